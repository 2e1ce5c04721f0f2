// The GEMM layer on a worker: its tiles one after another, double-buffered: while tile i computes, the inputs of
// tile i+1 arrive and the result of tile i-1 leaves. Per tile the MLA computes the int32 products (mla.ts) and the
// core applies the epilogue: alpha, bias, requantization, the output type. Parameters and tile descriptors:
// generator/platforms/spinnaker2/gemm-encode.ts.

import { compute } from "./hal/chip";
import { ELEMENT, REQUANT } from "./hal/cost";
import { dma_in, dma_out, mla_start, mla_wait } from "./s2";
import { DMA_BYTES, DMA_DRAM, DMA_ROW_LENGTH, DMA_ROW_STRIDE, DMA_SIZE, DMA_SRAM } from "./layout";
import { tile_loop, wait } from "./tiles";
import { im2col, pool_max } from "./im2col";
import { word } from "./elements";

const GEMM_TILE_BYTES: u32 = 160;
const CONV_TILE_BYTES: u32 = 192;
const MODE_SCALAR: u32 = 1;
const MODE_COL: u32 = 2;
const MODE_ROW: u32 = 3;
const MODE_FULL: u32 = 4;

function transfer(me: usize, d: usize, toLocal: bool): i32 {
  const local = me + <usize>word(d, DMA_SRAM);
  const dram = word(d, DMA_DRAM);
  const bytes = word(d, DMA_BYTES);
  const len = word(d, DMA_ROW_LENGTH);
  const stride = word(d, DMA_ROW_STRIDE);
  return toLocal ? dma_in(local, dram, bytes, len, stride) : dma_out(local, dram, bytes, len, stride);
}

/** Starts the input transfers of a tile; the ticket of the last one, or -1. */
function fetch(me: usize, tile: usize): i32 {
  let ticket = -1;
  const n = word(tile, 32);
  for (let i: u32 = 0; i < n; i++) ticket = transfer(me, tile + 36 + <usize>(i * DMA_SIZE), true);
  return ticket;
}

/** A parameter's value at (r, c) of the tile: scalar, per column, per row or full table in SRAM. */
@inline function param(mode: u32, scalar: i32, at: usize, r: i32, c: i32, cols: i32): i32 {
  if (mode == MODE_SCALAR) return scalar;
  if (mode == MODE_COL) return load<i32>(at + (<usize>c << 2));
  if (mode == MODE_ROW) return load<i32>(at + (<usize>r << 2));
  if (mode == MODE_FULL) return load<i32>(at + (<usize>(r * cols + c) << 2));
  return 0;
}

function epilogue(me: usize, p: usize, tile: usize, acc: usize, rows: i32, cols: i32): void {
  const flags = word(p, 4);
  const alpha = <i32>word(p, 8);
  const biasMode = word(p, 12);
  const biasScalar = <i32>word(p, 16);
  const mulMode = word(p, 20);
  const mulScalar = <i32>word(p, 24);
  const addMode = word(p, 28);
  const addScalar = <i32>word(p, 32);
  const shift = <i64>word(p, 36);
  const lo = <i64><i32>word(p, 40);
  const hi = <i64><i32>word(p, 44);
  const requant = (flags & 16) != 0;
  const yLog = (flags >> 8) & 3;
  const bias = me + <usize>word(tile, 16);
  const mul = me + <usize>word(tile, 20);
  const add = me + <usize>word(tile, 24);
  const y = me + <usize>word(tile, 28);
  const round: i64 = shift > 0 ? (<i64>1) << (shift - 1) : 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      let v: i32 = load<i32>(acc + (<usize>i << 2)) * alpha + param(biasMode, biasScalar, bias, r, c, cols);
      if (requant) {
        let t = (<i64>v * <i64>param(mulMode, mulScalar, mul, r, c, cols) + <i64>param(addMode, addScalar, add, r, c, cols) + round) >> shift;
        v = <i32>(t < lo ? lo : t > hi ? hi : t);
      }
      if (yLog == 0) store<u8>(y + <usize>i, <u8>v);
      else if (yLog == 1) store<u16>(y + (<usize>i << 1), <u16>v);
      else store<i32>(y + (<usize>i << 2), v);
    }
  }
  compute(requant ? REQUANT : ELEMENT, rows * cols);
}

/** One GEMM tile: the MLA job, then (once tile i-2's write-back has left the output slot) the epilogue and the write-back. */
function gemm_tile(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  const K = <i32>word(p, 0);
  const flags = word(p, 4);
  const acc = me + <usize>word(p, 48);
  const rows = <i32>word(tile, 0);
  const cols = <i32>word(tile, 4);
  const kMajorA = (flags & 4) != 0;
  const nMajorB = (flags & 8) != 0;
  mla_start(
    me + <usize>word(tile, 8), me + <usize>word(tile, 12), acc, rows, cols, K,
    kMajorA ? 1 : K, kMajorA ? rows : 1, nMajorB ? 1 : cols, nMajorB ? K : 1, cols << 2, <i32>(flags & 3),
  );
  mla_wait();
  wait(slotWriteBack);
  epilogue(me, p, tile, acc, rows, cols);
  return transfer(me, tile + 136, false);
}

/**
 * One conv tile: the GEMM tile with the im2col buffer as B, rebuilt where the tile says so; MaxPool stores the max of
 * each column straight to the output slot (no MLA, no epilogue).
 */
function conv_tile(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  if (word(tile, 160) != 0) im2col(me, p, tile);
  if (word(p, 112) != 1) return gemm_tile(me, p, tile, slotWriteBack);
  wait(slotWriteBack);
  pool_max(me, p, tile, me + <usize>word(tile, 28));
  return transfer(me, tile + 136, false);
}

export function gemm_run(me: usize, p: usize, block: usize): void {
  tile_loop(me, p, block, GEMM_TILE_BYTES, fetch, gemm_tile);
}

export function conv_run(me: usize, p: usize, block: usize): void {
  tile_loop(me, p, block, CONV_TILE_BYTES, fetch, conv_tile);
}
