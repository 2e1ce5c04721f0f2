// loop_ws (funct 8) and its configuration (9..13): the weight-stationary tiled matmul C = A.B + D over I x J x K
// blocks of DIM, expanded into the primitive commands in the order of Spike's model (gemmini_t::loop_ws), which
// then run through the same units, reservation stations and hazards as host-issued ones (timing.ts), dispatched by
// the loop unroller. Scratchpad layout of the expansion: A from row 0 (a_spad_id 2: from half the scratchpad), B
// ending at half the scratchpad (b_spad_id 2: at its end), D and C in the accumulator from row 0.
// The mvins use the mvin configurations 0 (A), 1 (B) and 2 (D) and the mvouts config_mvout (stride, activation,
// scale), which firmware sets before the loop, as gemmini.h's tiled_matmul_outer does.

import { ACC_ROWS, DIM, MAX_ROW_BYTES, SPAD_ROWS } from "../chips/gemmini";
import { loadBlockStride } from "./config";
import { GARBAGE_ADDR } from "./addr";
import { fail } from "./faults";
import { msgBegin, msgDec, msgText, raise } from "../fault";
import { msgLayer } from "../events";
import { mvin, mvout } from "./move";
import { compute, preload } from "./array";
import { beginUnroll, endUnroll } from "./timing";

let bI: i32 = 0;
let bJ: i32 = 0;
let bK: i32 = 0;
let padI: i32 = 0;
let padJ: i32 = 0;
let padK: i32 = 0;
let addrA: u64 = 0;
let addrB: u64 = 0;
let addrD: u64 = 0;
let addrC: u64 = 0;
let strideA: u64 = 0;
let strideB: u64 = 0;
let strideD: u64 = 0;
let strideC: u64 = 0;
// Which half of the scratchpad and of the accumulator the loop works in. LoopMatmul.scala runs concurrent_loops = 2
// loops, each with its own scratchpad and accumulator half, so the next loop's mvins do not wait for this loop's
// computes and mvouts (the double-buffering tiles.ts sizes the tiles for). A loop that continues the previous loop's
// sums (ex_accumulate and no D) stays in its accumulator half.
let spadHalf: i32 = 0;
let accHalf: i32 = 0;

export function resetGemminiLoop(): void {
  spadHalf = accHalf = 0;
  bI = bJ = bK = padI = padJ = padK = 0;
  addrA = addrB = addrD = addrC = 0;
  strideA = strideB = strideD = strideC = 0;
}

/** funct 9..13: rs1/rs2 of gemmini.h's gemmini_loop_ws macro. */
export function loopWsConfig(funct: i32, rs1: u64, rs2: u64): void {
  if (funct == 9) {
    bI = <i32>(rs2 & 0xffff);
    bJ = <i32>((rs2 >> 16) & 0xffff);
    bK = <i32>((rs2 >> 32) & 0xffff);
    padI = <i32>(rs1 & 0xffff);
    padJ = <i32>((rs1 >> 16) & 0xffff);
    padK = <i32>((rs1 >> 32) & 0xffff);
  } else if (funct == 10) {
    addrA = rs1;
    addrB = rs2;
  } else if (funct == 11) {
    addrD = rs1;
    addrC = rs2;
  } else if (funct == 12) {
    strideA = rs1;
    strideB = rs2;
  } else {
    strideD = rs1;
    strideC = rs2;
  }
}

/** rs2 of mvin/mvout/preload/compute: rows, cols, local address. */
// @ts-ignore: decorator
@inline function local(rows: i32, cols: i32, addr: u32): u64 {
  return (<u64>rows << 48) | (<u64>cols << 32) | <u64>addr;
}

/** Block size along a dimension: DIM, less the padding on the last block. */
// @ts-ignore: decorator
@inline function edge(index: i32, count: i32, pad: i32): i32 {
  return DIM - (index == count - 1 ? pad : 0);
}

export function loopWs(rs1: u64, rs2: u64): void {
  const exAccumulate = (rs1 & 1) != 0;
  const fullC = <u32>((rs1 >> 1) & 1);
  const lowD = (rs1 >> 2) & 1;
  const act = <i32>((rs1 >> 8) & 7);
  const aT = (rs2 & 1) != 0;
  const bT = ((rs2 >> 1) & 1) != 0;
  const resadd = ((rs2 >> 2) & 1) != 0;
  const aId = <i32>((rs1 >> 18) & 3);
  const bId = <i32>((rs1 >> 16) & 3);
  if (act == 2 || act == 4) fail("loop_ws", "layernorm and softmax on the loop's output (I-BERT) are not modelled");
  if (rs2 >> 3 != 0) fail("loop_ws", "rs2 bits 3..63 (loop state fields of later Gemmini versions) are not modelled");
  if (bI == 0 || bJ == 0 || (bK == 0 && !resadd)) fail("loop_ws", "bad config: I, J and K must be at least 1 (loop_ws_config_bounds)");
  if (padI >= DIM || padJ >= DIM || padK >= DIM) fail("loop_ws", "bad config: padding must be less than 16");
  const spadRows = (bI * bK + bK * bJ) * DIM;
  const accRows = bI * bJ * DIM;
  if (spadRows > SPAD_ROWS / 2 || accRows > ACC_ROWS / 2) tooLarge(resadd ? 0 : spadRows, accRows);
  if (!resadd && aId == 0 && bId == 0) {
    spadHalf ^= 1;
    if (!exAccumulate || addrD != 0) accHalf ^= 1;
  }
  beginUnroll();
  if (resadd) residualAdd(fullC);
  else matmul(exAccumulate, fullC, lowD, aT, bT, aId, bId);
  endUnroll();
}

function tooLarge(spadRows: i32, accRows: i32): void {
  msgBegin("gemmini loop_ws: bad config: bounds too large for double-buffering: ");
  msgDec(spadRows);
  msgText(" scratchpad rows (at most 8192) and ");
  msgDec(accRows);
  msgText(" accumulator rows (at most 512)");
  msgLayer();
  raise();
}

/** Blocks of DIM one mvin or mvout moves at most: 64 bytes of int8 (MAX_BLOCK_LEN); int32 rows: 1. */
const WIDE: i32 = MAX_ROW_BYTES / DIM;

/** Columns of a command over up to `most` blocks from block `index` of `count`, the last block less its padding. */
function span(index: i32, count: i32, pad: i32, most: i32): i32 {
  const blocks = min(most, count - index);
  return blocks * DIM - (index + blocks >= count ? pad : 0);
}

/** An mvin of several blocks lands them DIM rows apart only with the block stride gemmini.h configures (DIM). */
function wideMvin(state: i32, funct: i32, dram: u64, rows: i32, cols: i32, addr: u32): void {
  if (cols > DIM && loadBlockStride(state) != DIM) {
    fail("loop_ws", "bad config: the loop's mvins need the mvin block stride 16 (gemmini.h's default)");
  }
  mvin(state, funct, dram, local(rows, cols, addr));
}

// The running loop's layout and options (set by matmul for moveIn and multiply).
let aStart: u32 = 0;
let bStart: u32 = 0;
let cStart: u32 = 0;
let aT = false;
let bT = false;
let exAcc = false;
let sizeofC: u64 = 1;
let cWide: i32 = WIDE;

/**
 * The matmul, in Spike's k, j, i order; moves are as wide as the hardware's loop unroller makes them (up to 4 blocks
 * of int8 per mvin/mvout, LoopMatmul.scala), each C move after the last compute it reads. Two passes over the
 * blocks: the moves in, then the array and the moves out. Each unit's stream dispatches on its own clock
 * (timing.ts), so the loads run ahead as the hardware's load state machines do; within one loop no scratchpad row
 * is written twice, so moving everything in first changes no value.
 */
function matmul(exAccumulate: bool, fullC: u32, lowD: u64, aTranspose: bool, bTranspose: bool, aId: i32, bId: i32): void {
  const half = SPAD_ROWS / 2;
  const own = aId == 0 && bId == 0;
  aStart = aId == 2 || (own && spadHalf == 1) ? <u32>half : 0;
  bStart = <u32>((bId == 2 || (own && spadHalf == 1) ? SPAD_ROWS : half) - bK * bJ * DIM);
  const accStart = <u32>(own ? accHalf * (ACC_ROWS / 2) : 0);
  cStart = (0xc000_0000 | (fullC << 29)) + accStart;
  aT = aTranspose;
  bT = bTranspose;
  exAcc = exAccumulate;
  sizeofC = fullC != 0 ? 4 : 1;
  cWide = fullC != 0 ? 1 : WIDE;
  const dStart: u32 = 0x8000_0000 + accStart;
  const sizeofD: u64 = lowD != 0 ? 1 : 4;
  const dWide = lowD != 0 ? WIDE : 1;
  if (addrD != 0) {
    for (let i = 0; i < bI; i++) {
      for (let j = 0; j < bJ; j += dWide) {
        const dram = addrD + (<u64>i * strideD + <u64>j) * <u64>DIM * sizeofD;
        wideMvin(2, 14, dram, edge(i, bI, padI), span(j, bJ, padJ, dWide), dStart + <u32>((i * bJ + j) * DIM));
      }
    }
  }
  for (let pass = 0; pass < 2; pass++) {
    for (let k = 0; k < bK; k++) {
      for (let j = 0; j < bJ; j++) {
        for (let i = 0; i < bI; i++) {
          if (pass == 0) moveIn(k, j, i);
          else multiply(k, j, i);
        }
      }
    }
  }
}

function aAddrOf(k: i32, i: i32): u32 {
  return aStart + <u32>((aT ? k * bI + i : i * bK + k) * DIM);
}

function bAddrOf(k: i32, j: i32): u32 {
  return bStart + <u32>((bT ? j * bK + k : k * bJ + j) * DIM);
}

/** The A and B moves block (k, j, i) is the first to need. */
function moveIn(k: i32, j: i32, i: i32): void {
  if (j == 0 && addrA != 0 && (aT ? i : k) % WIDE == 0) {
    const dram = addrA + (aT ? <u64>k * strideA + <u64>i : <u64>i * strideA + <u64>k) * <u64>DIM;
    const rows = aT ? edge(k, bK, padK) : edge(i, bI, padI);
    const cols = aT ? span(i, bI, padI, WIDE) : span(k, bK, padK, WIDE);
    wideMvin(0, 2, dram, rows, cols, aAddrOf(k, i));
  }
  if (i == 0 && addrB != 0 && (bT ? k : j) % WIDE == 0) {
    const dram = addrB + (bT ? <u64>j * strideB + <u64>k : <u64>k * strideB + <u64>j) * <u64>DIM;
    const rows = bT ? edge(j, bJ, padJ) : edge(k, bK, padK);
    const cols = bT ? span(k, bK, padK, WIDE) : span(j, bJ, padJ, WIDE);
    wideMvin(1, 1, dram, rows, cols, bAddrOf(k, j));
  }
}

/** Block (k, j, i) through the array (new weights when i == 0), then the C move it completes. */
function multiply(k: i32, j: i32, i: i32): void {
  const bAddr = bAddrOf(k, j);
  const cAddr = cStart + <u32>((i * bJ + j) * DIM);
  const out = !exAcc && k == 0 ? cAddr & ~(<u32>1 << 30) : cAddr;
  preload(
    local(edge(k, bK, padK), edge(j, bJ, padJ), i == 0 ? bAddr : GARBAGE_ADDR),
    local(edge(i, bI, padI), edge(j, bJ, padJ), out),
  );
  compute(i == 0, local(edge(i, bI, padI), edge(k, bK, padK), aAddrOf(k, i)), local(DIM, DIM, GARBAGE_ADDR));
  if (addrC != 0 && k == bK - 1 && (j % cWide == cWide - 1 || j == bJ - 1)) {
    const j0 = j - j % cWide;
    const dram = addrC + (<u64>i * strideC + <u64>j0) * <u64>DIM * sizeofC;
    mvout(dram, local(edge(i, bI, padI), span(j0, bJ, padJ, cWide), cStart + <u32>((i * bJ + j0) * DIM)));
  }
}

/**
 * is_resadd: C = A + B elementwise over I x J blocks, through the accumulator: A moved in (mvin config 0) to
 * accumulator rows from 0, B (mvin config 1) accumulated onto the same rows, the sum moved out scaled.
 */
function residualAdd(fullC: u32): void {
  const aStart: u32 = 0x8000_0000;
  const bStart: u32 = 0xc000_0000;
  const cStart: u32 = 0xc000_0000 | (fullC << 29);
  const sizeofC: u64 = fullC != 0 ? 4 : 1;
  for (let i = 0; i < bI; i++) {
    for (let j = 0; j < bJ; j++) {
      const off = <u32>((i * bJ + j) * DIM);
      const rows = edge(i, bI, padI);
      const cols = edge(j, bJ, padJ);
      mvin(0, 2, addrA + (<u64>i * strideA + <u64>j) * <u64>DIM, local(rows, cols, aStart + off));
      mvin(1, 1, addrB + (<u64>i * strideB + <u64>j) * <u64>DIM, local(rows, cols, bStart + off));
      if (addrC != 0) mvout(addrC + (<u64>i * strideC + <u64>j) * <u64>DIM * sizeofC, local(rows, cols, cStart + off));
    }
  }
}
