// The systolic array: preload (funct 6), compute_preloaded (4), compute_accumulated (5); functional as Spike's
// gemmini extension (the HARDWARE.md reference model).
// - preload: rs1 = B (WS) or D (OS) local address with cols/rows; rs2 = C, the output, with cols/rows.
// - compute: rs1 = A with cols/rows; rs2 = D (WS) or B (OS) with cols/rows. compute_preloaded first loads the PEs
//   from the preload address (WS: the weights B; OS: the partial sums D); compute_accumulated keeps them (WS: the
//   same weights; OS: keeps accumulating).
// - WS: C = D + A.B with B held in the PEs; OS: the PEs accumulate A.B on top of D, C = their value. int32, wrapping.
// - C goes to the accumulator as int32 (overwrite, or add with address bit 30), or to the scratchpad as int8:
//   OS rounding shift (config_ex shift; WS: none), saturation, config_ex activation.
// Elements outside an operand's rows/cols fields read as 0, a garbage address reads zeros (A too: the hardware
// feeds undefined data there, we feed zeros); C elements outside its fields are not written.

import { ARRAY_FILL_DRAIN, ARRAY_PRELOAD, ARRAY_STREAM, DIM } from "../chips/gemmini";
import { accumulates, checkRows, isAcc, isGarbage, rowOf } from "./addr";
import { aStride, aTranspose, bTranspose, cStride, dataflow, sysAct, sysShift, WS } from "./config";
import { fail, failValue } from "./faults";
import { activate, sysShift as shiftOut } from "./numeric";
import { accRow, pe, spadRow } from "./state";
import {
  arrayFree, arrayStreams, complete, dispatch, event, EXECUTE, lastStream, rowsMark, rowsReady,
} from "./timing";

/** The last preload's operands. */
let preAddr: u32 = 0xffff_ffff;
let preRows: i32 = 0;
let preCols: i32 = 0;
let outAddr: u32 = 0xffff_ffff;
let outRows: i32 = 0;
let outCols: i32 = 0;

/** Staging of one compute's operands and WS results, DIM x DIM int32 each. */
const A = memory.data(DIM * DIM * 4);
const B = memory.data(DIM * DIM * 4);
const RES = memory.data(DIM * DIM * 4);

export function resetGemminiArray(): void {
  preAddr = 0xffff_ffff;
  preRows = 0;
  preCols = 0;
  outAddr = 0xffff_ffff;
  outRows = 0;
  outCols = 0;
  memory.fill(A, 0, DIM * DIM * 4);
  memory.fill(B, 0, DIM * DIM * 4);
  memory.fill(RES, 0, DIM * DIM * 4);
}

// @ts-ignore: decorator
@inline function at(m: usize, i: i32, j: i32): usize {
  return m + (<usize>(i * DIM + j) << 2);
}

function sizes(cmd: string, what: string, rows: i32, cols: i32): void {
  if (rows > DIM || cols > DIM) {
    failValue(cmd, what, rows > DIM ? rows : cols, rows > DIM ? " rows (at most 16)" : " cols (at most 16)");
  }
}

/** An operand the array reads: scratchpad only (reading the accumulator into the array is not modelled). */
function operand(cmd: string, addr: u32, span: i32, step: i32): void {
  if (isGarbage(addr) || span <= 0) return;
  if (isAcc(addr)) fail(cmd, "reading an operand from the accumulator is not modelled (scratchpad addresses only)");
  checkRows(cmd, addr, <i64>(span - 1) * step);
}

export function preload(rs1: u64, rs2: u64): void {
  const t0 = dispatch(EXECUTE);
  preAddr = <u32>rs1;
  preCols = <i32>((rs1 >> 32) & 0xffff);
  preRows = <i32>((rs1 >> 48) & 0xffff);
  outAddr = <u32>rs2;
  outCols = <i32>((rs2 >> 32) & 0xffff);
  outRows = <i32>((rs2 >> 48) & 0xffff);
  sizes("preload", "B/D has ", preRows, preCols);
  sizes("preload", "C has ", outRows, outCols);
  complete(EXECUTE, max(t0, arrayFree));
}

export function compute(preloaded: bool, rs1: u64, rs2: u64): void {
  const cmd = preloaded ? "compute_preloaded" : "compute_accumulated";
  const t0 = dispatch(EXECUTE);
  const a = <u32>rs1;
  const aCols = <i32>((rs1 >> 32) & 0xffff);
  const aRows = <i32>((rs1 >> 48) & 0xffff);
  const bd = <u32>rs2;
  const bdCols = <i32>((rs2 >> 32) & 0xffff);
  const bdRows = <i32>((rs2 >> 48) & 0xffff);
  sizes(cmd, "A has ", aRows, aCols);
  sizes(cmd, dataflow == WS ? "D has " : "B has ", bdRows, bdCols);
  const ws = dataflow == WS;
  const preT = ws && bTranspose != 0;
  // operand spans in rows: A rows a_stride apart; B/D and the preload consecutive
  const aSpan = aTranspose != 0 ? aCols : aRows;
  const bdSpan = ws ? bdRows : bTranspose != 0 ? bdCols : bdRows;
  const preSpan = preT ? preCols : preRows;
  operand(cmd, a, aSpan, aStride);
  operand(cmd, bd, bdSpan, 1);
  if (preloaded) operand("preload", preAddr, preSpan, 1);
  const outGarbage = isGarbage(outAddr);
  if (!outGarbage && outRows > 0) checkRows(cmd, outAddr, <i64>(outRows - 1) * cStride);

  // operands into the staging buffers
  const aG = isGarbage(a);
  const bdG = isGarbage(bd);
  for (let i = 0; i < DIM; i++) {
    for (let k = 0; k < DIM; k++) {
      let v: i32 = 0;
      if (!aG && i < aRows && k < aCols) {
        v = load<i8>(spadRow(rowOf(a) + aStride * (aTranspose != 0 ? k : i)) + <usize>(aTranspose != 0 ? i : k));
      }
      store<i32>(at(A, i, k), v);
    }
  }
  // B (OS) as B[k][j], or D (WS) as D[i][j]
  for (let r = 0; r < DIM; r++) {
    for (let c = 0; c < DIM; c++) {
      let v: i32 = 0;
      if (!bdG && r < bdRows && c < bdCols) {
        const tr = !ws && bTranspose != 0;
        v = load<i8>(spadRow(rowOf(bd) + (tr ? c : r)) + <usize>(tr ? r : c));
      }
      store<i32>(at(B, r, c), v);
    }
  }
  if (preloaded) {
    const pG = isGarbage(preAddr);
    for (let i = 0; i < DIM; i++) {
      for (let j = 0; j < DIM; j++) {
        let v: i32 = 0;
        if (!pG && i < preRows && j < preCols) {
          v = load<i8>(spadRow(rowOf(preAddr) + (preT ? j : i)) + <usize>(preT ? i : j));
        }
        store<i32>(pe(i, j), v);
      }
    }
  }

  // the matmul
  for (let i = 0; i < DIM; i++) {
    for (let j = 0; j < DIM; j++) {
      let s: i32 = ws ? load<i32>(at(B, i, j)) : load<i32>(pe(i, j));
      for (let k = 0; k < DIM; k++) {
        s += load<i32>(at(A, i, k)) * (ws ? load<i32>(pe(k, j)) : load<i32>(at(B, k, j)));
      }
      if (ws) store<i32>(at(RES, i, j), s);
      else store<i32>(pe(i, j), s);
    }
  }

  // C
  if (!outGarbage) {
    const acc = isAcc(outAddr);
    const add = accumulates(outAddr);
    const base = rowOf(outAddr);
    const shift = ws ? 0 : sysShift;
    for (let i = 0; i < outRows; i++) {
      for (let j = 0; j < outCols; j++) {
        const v = ws ? load<i32>(at(RES, i, j)) : load<i32>(pe(i, j));
        const row = base + cStride * i;
        if (acc) {
          const p = accRow(row) + (<usize>j << 2);
          store<i32>(p, add ? load<i32>(p) + v : v);
        } else {
          store<i8>(spadRow(row) + <usize>j, <i8>activate(shiftOut(v, shift), sysAct));
        }
      }
    }
  }

  // time: new weights (or D) shift in after the previous stream started; the stream waits for its operands, the
  // array and, for C, until the other units are done with those rows; C lands ARRAY_FILL_DRAIN after the stream
  let ready = max(t0, arrayFree);
  if (preloaded) {
    let w = max(t0, lastStream);
    if (!isGarbage(preAddr) && preSpan > 0) w = max(w, rowsReady(EXECUTE, false, rowOf(preAddr), preSpan, 1, false));
    ready = max(ready, w + ARRAY_PRELOAD);
    if (!isGarbage(preAddr) && preSpan > 0) rowsMark(EXECUTE, false, rowOf(preAddr), preSpan, 1, false, w + ARRAY_PRELOAD);
  }
  if (!aG && aSpan > 0) ready = max(ready, rowsReady(EXECUTE, false, rowOf(a), aSpan, aStride, false));
  if (!bdG && bdSpan > 0) ready = max(ready, rowsReady(EXECUTE, false, rowOf(bd), bdSpan, 1, false));
  const acc = isAcc(outAddr);
  if (!outGarbage && outRows > 0) {
    ready = max(ready, rowsReady(EXECUTE, acc, rowOf(outAddr), outRows, cStride, true) - (ARRAY_STREAM + ARRAY_FILL_DRAIN));
  }
  const stream = ready;
  arrayStreams(stream);
  const end = stream + ARRAY_STREAM + ARRAY_FILL_DRAIN;
  if (!aG && aSpan > 0) rowsMark(EXECUTE, false, rowOf(a), aSpan, aStride, false, stream + ARRAY_STREAM);
  if (!bdG && bdSpan > 0) rowsMark(EXECUTE, false, rowOf(bd), bdSpan, 1, false, stream + ARRAY_STREAM);
  if (!outGarbage && outRows > 0) rowsMark(EXECUTE, acc, rowOf(outAddr), outRows, cStride, true, end);
  complete(EXECUTE, end);
  event(EXECUTE, preloaded ? 4 : 5, DIM, stream, stream + ARRAY_STREAM);
}
