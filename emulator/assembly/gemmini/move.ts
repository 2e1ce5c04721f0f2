// mvin (funct 2, mvin2 1, mvin3 14) and mvout (funct 3): main memory <-> scratchpad/accumulator rows, functional
// as Spike's gemmini extension (the HARDWARE.md reference model), with the hardware's field limits as faults.
// rs1 = main-memory byte address; rs2[31:0] local address, rs2[47:32] cols, rs2[63:48] rows.

import { DIM, GEMMINI_DRAM_BASE, GEMMINI_DRAM_BYTES, MAX_ROW_BYTES, STORE_READ_LATENCY } from "../chips/gemmini";
import { region_linear_base } from "../regions";
import { checkRows, isAcc, isGarbage, normCmd, readsRaw, rowOf, accumulates } from "./addr";
import {
  accAct, accScale, loadBlockStride, loadRepeats, loadScale, loadShrunk, loadStride, poolLpad, poolOcols, poolOrows, poolOutDim,
  poolPocols, poolPorows, poolSize, poolStride, poolUpad, storeStride,
} from "./config";
import { fail, failDram, failValue } from "./faults";
import { accRow, spadRow } from "./state";
import { accScale as scaleAcc, activate, mvinScale } from "./numeric";
import {
  complete, dispatch, dmaHold, dmaIssueFree, dmaRow, event, LOAD, READER, rowsMark, rowsReady, STORE, WRITER,
} from "./timing";

/** The store unit reads its next command's rows from here on (one row per cycle, in order). */
let storeReadFree: i64 = 0;

export function resetGemminiMoves(): void {
  storeReadFree = 0;
}

/** Linear address of `bytes` main-memory bytes at chip address `addr`; faults unless they lie in the DRAM. */
function dram(cmd: string, addr: u64, bytes: i64): usize {
  const off = addr - <u64>GEMMINI_DRAM_BASE;
  if (addr < <u64>GEMMINI_DRAM_BASE || off + <u64>bytes > <u64>GEMMINI_DRAM_BYTES) failDram(cmd, addr, bytes);
  return region_linear_base(0) + <usize>off;
}

function fields(cmd: string, rows: i32, cols: i32): void {
  if (rows == 0 || cols == 0) fail(cmd, "rows and cols must be at least 1");
  if (rows > DIM) failValue(cmd, "rows ", rows, " (at most 16 per command)");
}

export function mvin(state: i32, funct: i32, rs1: u64, rs2: u64): void {
  const cmd = state == 0 ? "mvin" : state == 1 ? "mvin2" : "mvin3";
  const local = <u32>rs2;
  const cols = <i32>((rs2 >> 32) & 0xffff);
  const rows = <i32>((rs2 >> 48) & 0xffff);
  const t0 = dispatch(LOAD);
  if (isGarbage(local)) {
    complete(LOAD, t0);
    return;
  }
  fields(cmd, rows, cols);
  const acc = isAcc(local);
  const wide = acc && !loadShrunk(state);
  const elem = wide ? 4 : 1;
  if (cols * elem > MAX_ROW_BYTES) failValue(cmd, "cols ", cols, wide ? " (at most 16 int32)" : " (at most 64 int8)");
  const blocks = (cols + DIM - 1) / DIM;
  const blockStride = loadBlockStride(state);
  if (blocks > 1 && blockStride < rows) {
    failValue(cmd, "bad config: the block stride ", blockStride, " is less than the rows moved");
  }
  checkRows(cmd, local, <i64>(blocks - 1) * blockStride + rows - 1);
  // pixel repeats (config_mvin, the first-layer optimisation of loop_conv_ws): row r is also written into row r - p,
  // shifted p * cols columns right, for p < repeats (rows below 0 are skipped); the shifted columns must fit a row
  const repeats = loadRepeats(state);
  if (repeats > 1 && (repeats - 1) * cols + min(cols, DIM) > DIM) {
    failValue(cmd, "bad config: pixel repeats place columns past 16 (repeats x cols = ", repeats * cols, ")");
  }
  const stride = loadStride(state);
  const zeros = rs1 == 0; // the hardware writes zeros for main-memory address 0 (LoadController all_zeros)
  const rowsRead = zeros ? 0 : stride == 0 ? 1 : rows;
  const rowBytes = cols * elem;
  if (stride > 0xffff_ffff && rowsRead > 1) failDram(cmd, rs1 + stride, rowBytes);
  for (let r = 0; r < rowsRead; r++) dram(cmd, rs1 + <u64>r * stride, rowBytes);

  // data
  const base = rowOf(local);
  const scale = loadScale(state);
  const add = acc && accumulates(local);
  for (let r = 0; r < rows; r++) {
    const src: usize = zeros ? 0 : dram(cmd, rs1 + (stride == 0 ? 0 : <u64>r * stride), rowBytes);
    for (let c = 0; c < cols; c++) {
      const row0 = base + r + (c / DIM) * blockStride;
      const v = zeros ? 0 : wide ? load<i32>(src + (<usize>c << 2)) : mvinScale(load<i8>(src + <usize>c), scale);
      for (let px = 0; px < repeats && px <= row0; px++) {
        const row = row0 - px;
        const col = c % DIM + px * cols;
        if (acc) {
          const p = accRow(row) + (<usize>col << 2);
          store<i32>(p, add ? load<i32>(p) + v : v);
        } else {
          store<i8>(spadRow(row) + <usize>col, <i8>v);
        }
      }
    }
  }

  // time: after the other units' accesses to these rows, the reader's requests, then the rows land
  const low = max(0, base - (repeats - 1)); // pixel repeats also write the rows just before
  const span = base - low + rows;
  let start = t0;
  for (let b = 0; b < blocks; b++) start = max(start, rowsReady(LOAD, acc, low + b * blockStride, span, 1, true));
  const first = max(start, dmaIssueFree(READER));
  let end: i64;
  if (zeros) {
    end = first + <i64>(rows * blocks);
    dmaHold(READER, end);
  } else {
    end = first;
    for (let r = 0; r < rowsRead; r++) end = max(end, dmaRow(READER, start, rs1 + <u64>r * stride, rowBytes));
    end += 1; // the last row's write into the SRAM
  }
  for (let b = 0; b < blocks; b++) rowsMark(LOAD, acc, low + b * blockStride, span, 1, true, end);
  complete(LOAD, end);
  event(LOAD, funct, rows, first, end);
}

/** The int8 an accumulator row element leaves as (scale, saturate, activation), or a scratchpad element. */
// @ts-ignore: decorator
@inline function outElem(acc: bool, row: i32, col: i32): i32 {
  return acc ? activate(scaleAcc(load<i32>(accRow(row) + (<usize>col << 2)), accScale), accAct) :
    <i32>load<i8>(spadRow(row) + <usize>col);
}

export function mvout(rs1: u64, rs2: u64): void {
  const local = <u32>rs2;
  const cols = <i32>((rs2 >> 32) & 0xffff);
  const rows = <i32>((rs2 >> 48) & 0xffff);
  const t0 = dispatch(STORE);
  if (isGarbage(local)) {
    complete(STORE, t0);
    return;
  }
  const acc = isAcc(local);
  if (acc && normCmd(local) != 0) fail("mvout", "the I-BERT normalisation commands (address bits 28..26) are not modelled");
  if (poolStride != 0) {
    pooled(rs1, local, cols, t0);
    return;
  }
  fields("mvout", rows, cols);
  const raw = acc && readsRaw(local);
  const elem = raw ? 4 : 1;
  if (cols * elem > MAX_ROW_BYTES) failValue("mvout", "cols ", cols, raw ? " (at most 16 int32)" : " (at most 64 int8)");
  const blocks = (cols + DIM - 1) / DIM;
  checkRows("mvout", local, <i64>(blocks - 1) * DIM + rows - 1);
  const rowBytes = cols * elem;
  for (let i = 0; i < rows; i++) dram("mvout", rs1 + <u64>i * <u64>storeStride, rowBytes);

  const base = rowOf(local);
  for (let i = 0; i < rows; i++) {
    const dst = dram("mvout", rs1 + <u64>i * <u64>storeStride, rowBytes);
    for (let j = 0; j < cols; j++) {
      const row = base + (j / DIM) * DIM + i;
      const col = j % DIM;
      if (raw) store<i32>(dst + (<usize>j << 2), load<i32>(accRow(row) + (<usize>col << 2)));
      else store<i8>(dst + <usize>j, <i8>outElem(acc, row, col));
    }
  }

  // time: one SRAM row read per cycle, through the read pipeline, then one write request per block-row
  let start = max(t0, storeReadFree);
  for (let b = 0; b < blocks; b++) start = max(start, rowsReady(STORE, acc, base + b * DIM, rows, 1, false));
  let end = start;
  let n = 0;
  for (let i = 0; i < rows; i++) {
    for (let b = 0; b < blocks; b++) {
      const len = min(DIM, cols - b * DIM) * elem;
      n++;
      const ready = start + n + STORE_READ_LATENCY;
      end = max(end, dmaRow(WRITER, ready, rs1 + <u64>i * <u64>storeStride + <u64>(b * DIM * elem), len));
    }
  }
  storeReadFree = start + n;
  for (let b = 0; b < blocks; b++) rowsMark(STORE, acc, base + b * DIM, rows, 1, false, storeReadFree);
  complete(STORE, end);
  event(STORE, 3, rows, start, end);
}

/**
 * mvout with max-pooling (config_mvout pool_stride != 0): the rows hold an orows x ocols image in NHWC order, one
 * pixel per row, `cols` channels. Output pixel (porow, pocol) is the max over its pool_size x pool_size window of
 * the int8 results, a window position outside the image counting as 0 (the zero padding); written at
 * rs1 + (porow * pool_out_dim + pocol) * stride. The rows field is not used (Spike's model).
 */
function pooled(rs1: u64, local: u32, cols: i32, t0: i64): void {
  if (readsRaw(local) && isAcc(local)) fail("mvout", "bad config: max-pooling of raw int32 accumulator rows");
  if (cols == 0 || cols > DIM) failValue("mvout", "pooling cols ", cols, " (1 to 16 channels)");
  if (poolPorows == 0 || poolPocols == 0 || poolOrows == 0 || poolOcols == 0) {
    fail("mvout", "bad config: max-pooling with 0 rows or columns (config_mvout porows, pocols, orows, ocols)");
  }
  const acc = isAcc(local);
  const pixels = poolOrows * poolOcols;
  checkRows("mvout", local, pixels - 1);
  for (let pr = 0; pr < poolPorows; pr++) {
    for (let pc = 0; pc < poolPocols; pc++) dram("mvout", rs1 + <u64>(pr * poolOutDim + pc) * <u64>storeStride, cols);
  }
  const base = rowOf(local);
  for (let pr = 0; pr < poolPorows; pr++) {
    for (let pc = 0; pc < poolPocols; pc++) {
      const dst = dram("mvout", rs1 + <u64>(pr * poolOutDim + pc) * <u64>storeStride, cols);
      for (let ch = 0; ch < cols; ch++) {
        let best: i32 = -128;
        for (let wr = 0; wr < poolSize; wr++) {
          for (let wc = 0; wc < poolSize; wc++) {
            const orow = pr * poolStride + wr - poolUpad;
            const ocol = pc * poolStride + wc - poolLpad;
            const inside = orow >= 0 && ocol >= 0 && orow < poolOrows && ocol < poolOcols;
            const v = inside ? outElem(acc, base + orow * poolOcols + ocol, ch) : 0;
            if (v > best) best = v;
          }
        }
        store<i8>(dst + <usize>ch, <i8>best);
      }
    }
  }

  // time: one window row read per cycle; an output pixel's request once its window is read
  let start = max(max(t0, storeReadFree), rowsReady(STORE, acc, base, pixels, 1, false));
  const window = poolSize * poolSize;
  let end = start;
  let n = 0;
  for (let pr = 0; pr < poolPorows; pr++) {
    for (let pc = 0; pc < poolPocols; pc++) {
      n += window;
      const ready = start + n + STORE_READ_LATENCY;
      end = max(end, dmaRow(WRITER, ready, rs1 + <u64>(pr * poolOutDim + pc) * <u64>storeStride, cols));
    }
  }
  storeReadFree = start + n;
  rowsMark(STORE, acc, base, pixels, 1, false, storeReadFree);
  complete(STORE, end);
  event(STORE, 3, poolPorows * poolPocols, start, end);
}
