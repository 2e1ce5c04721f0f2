// The row layer on a worker: the integer softmaxes of SEMANTICS.md over rows of the last axis (iSoftmax, ITAMax,
// ITAPartialMax; an iSoftmax bounded by a run-time position too), iRMSNorm, iLayerNorm, ArgMax, and the column
// reductions; tiles of whole rows, double-buffered as in gemm.ts. It computes in 64 bits (the generator checked every intermediate fits). Format: generator/platforms/spinnaker2/rows.ts.

import { compute } from "./hal/chip";
import { DIV, ELEMENT, MOVE_ELEM, NORM_ELEM, POOL_TAP, SOFTMAX_ELEM } from "./hal/cost";
import { fg_isqrt64 } from "./hal/support";
import { dma_in, dma_out, dma_wait } from "./s2";
import { DMA_BYTES, DMA_DRAM, DMA_ROW_LENGTH, DMA_ROW_STRIDE, DMA_SRAM } from "./layout";
import { loadElement, storeElement, typeBytes, word } from "./elements";
import { tile_loop, wait } from "./tiles";

const TILE_BYTES: u32 = 64;

@inline function shift(v: i64): i64 {
  return v < 31 ? v : 31;
}

/** iSoftmax over entries 0..n-1 of a row of L (n < L: a row bounded by a position); entries n.. are written 0. */
function iSoftmax(x: usize, y: usize, L: i32, n: i32, xt: u32, yt: u32, p: usize): void {
  const A = <i64><i32>word(p, 16);
  const B = <i64><i32>word(p, 20);
  const C = <i64><i32>word(p, 24);
  const log2 = <i64><i32>word(p, 28);
  const nm1 = <i64><i32>word(p, 32) - 1;
  let mx = loadElement(xt, x, 0);
  for (let j = 1; j < n; j++) mx = max(mx, loadElement(xt, x, j));
  let sum: i64 = 0;
  for (let pass = 0; pass < 2; pass++) {
    for (let j = 0; j < n; j++) {
      const d = loadElement(xt, x, j) - mx;
      let z = -d / log2;
      z = z < 0 ? 0 : z > 31 ? 31 : z;
      const q = d + z * log2 + B;
      const e = (A * (q * q) + C) >> z;
      if (pass == 0) {
        sum += e;
      } else {
        const num = e * nm1;
        let o = num / sum;
        if (num % sum != 0 && (num < 0) != (sum < 0)) o -= 1; // floor, not truncation
        storeElement(yt, y, o, j);
      }
    }
  }
  for (let j = n; j < L; j++) storeElement(yt, y, 0, j);
}

/** ArgMax: the first index of the largest entry of a row, stored as the row's one output (element r of y). */
function argMax(x: usize, y: usize, L: i32, xt: u32, yt: u32, r: i32): void {
  let best = 0;
  let top = loadElement(xt, x, 0);
  for (let j = 1; j < L; j++) {
    const v = loadElement(xt, x, j);
    if (v > top) {
      top = v;
      best = j;
    }
  }
  storeElement(yt, y, <i64>best, r);
}

/**
 * The entries of a row an iSoftmax spans: L, or with a position (params +40: its type code + 1) entries 0..pos,
 * pos clamped into the row (fg_entries_to, runtime/as/support.ts). rows_run fetched it into the slot at params +48.
 */
function span(me: usize, p: usize, L: i32): i32 {
  const t = word(p, 40);
  if (word(p, 0) != 0 || t == 0) return L;
  const pos = loadElement(t - 1, me + <usize>word(p, 48));
  return pos < 0 ? 1 : pos >= <i64>L ? L : <i32>pos + 1;
}

function itaMax(x: usize, y: usize, L: i32, xt: u32, yt: u32, p: usize): void {
  const num = (<i64><i32>word(p, 32) - 1) * 256;
  let mx = loadElement(xt, x, 0);
  for (let j = 1; j < L; j++) mx = max(mx, loadElement(xt, x, j));
  let s: i64 = 0;
  for (let j = 0; j < L; j++) s += (<i64>256) >> shift((mx - loadElement(xt, x, j) + 16) >> 5);
  const inv = num / s;
  for (let j = 0; j < L; j++) storeElement(yt, y, inv >> shift((mx - loadElement(xt, x, j) + 16) >> 5), j);
}

function itaPartialMax(x: usize, y: usize, L: i32, xt: u32, yt: u32, p: usize): void {
  const gw = <i32>word(p, 36);
  const num = (<i64>(<i32>word(p, 32) / 2) - 1) * 256;
  let g: i64 = -128;
  let s: i64 = 0;
  for (let k = 0; k + gw <= L; k += gw) {
    let m = loadElement(xt, x, k);
    for (let j = 1; j < gw; j++) m = max(m, loadElement(xt, x, k + j));
    if (m > g) {
      s >>= shift((m - g + 16) >> 5);
      g = m;
    }
    for (let j = 0; j < gw; j++) s += (<i64>256) >> shift((g - loadElement(xt, x, k + j) + 16) >> 5);
  }
  const inv = num / s;
  for (let j = 0; j < L; j++) {
    const sh = (g - loadElement(xt, x, j) + 16) >> 5;
    storeElement(yt, y, sh < 0 ? 0 : inv >> shift(sh), j);
  }
}

/** iRMSNorm: std = isqrt(tdiv(sum x^2, L) + 1); y = clip(tdiv(x*w, std) >> log2(D), -128, 127); weights from +48. */
function rmsNorm(x: usize, y: usize, L: i32, xt: u32, yt: u32, p: usize): void {
  const s = <i64>word(p, 40);
  let sq: i64 = 0;
  for (let j = 0; j < L; j++) {
    const v = loadElement(xt, x, j);
    sq += v * v;
  }
  const std = fg_isqrt64(sq / <i64>L + 1);
  for (let j = 0; j < L; j++) {
    const v = (loadElement(xt, x, j) * <i64><i32>load<u32>(p + 48 + (<usize>j << 2))) / std >> s;
    storeElement(yt, y, v < -128 ? -128 : v > 127 ? 127 : v, j);
  }
}

/**
 * iLayerNorm: mean = tdiv(sum x, L); std = isqrt(tdiv(sum (x-mean)^2, L) + 1);
 * y = wrap8((tdiv((x-mean)*w, std) + b) >> log2(D)); weights from +48, biases after them.
 */
function layerNorm(x: usize, y: usize, L: i32, xt: u32, yt: u32, p: usize): void {
  const s = <i64>word(p, 40);
  let sum: i64 = 0;
  for (let j = 0; j < L; j++) sum += loadElement(xt, x, j);
  const mean = sum / <i64>L;
  let sq: i64 = 0;
  for (let j = 0; j < L; j++) {
    const d = loadElement(xt, x, j) - mean;
    sq += d * d;
  }
  const std = fg_isqrt64(sq / <i64>L + 1);
  for (let j = 0; j < L; j++) {
    const w = <i64><i32>load<u32>(p + 48 + (<usize>j << 2));
    const b = <i64><i32>load<u32>(p + 48 + (<usize>(L + j) << 2));
    const v = ((loadElement(xt, x, j) - mean) * w / std + b) >> s;
    storeElement(yt, y, <i64><i8>v, j); // wrap8: the low byte, signed
  }
}

/**
 * Variant 4 (generator/platforms/spinnaker2/reduce.ts): the tile is R rows of `cols` values ([R][cols] in SRAM);
 * each column's sum, or its mean by a rounding shift (mode 1) or a rounded truncating division (mode 2, sign(0) +1).
 */
function reduceColumns(x: usize, y: usize, cols: i32, xt: u32, yt: u32, p: usize): void {
  const R = <i32>word(p, 4);
  const mode = word(p, 16);
  const s = <i64>word(p, 20);
  for (let c = 0; c < cols; c++) {
    let acc: i64 = 0;
    for (let r = 0; r < R; r++) acc += loadElement(xt, x, r * cols + c);
    if (mode == 1) acc = (acc + ((<i64>1) << (s - 1))) >> s;
    else if (mode == 2) acc = (acc + (acc >= 0 ? <i64>(R / 2) : -<i64>(R / 2))) / <i64>R;
    storeElement(yt, y, acc, c);
  }
  compute(ELEMENT, R * cols);
  if (mode == 2) compute(DIV, cols);
}

function transfer(me: usize, d: usize, toLocal: bool): i32 {
  const local = me + <usize>word(d, DMA_SRAM);
  const len = word(d, DMA_ROW_LENGTH);
  const stride = word(d, DMA_ROW_STRIDE);
  return toLocal ? dma_in(local, word(d, DMA_DRAM), word(d, DMA_BYTES), len, stride) : dma_out(local, word(d, DMA_DRAM), word(d, DMA_BYTES), len, stride);
}

function fetch(me: usize, tile: usize): i32 {
  return transfer(me, tile + 16, true);
}

/** One tile of rows, written once tile i-2's write-back has left the output slot. */
function run_tile(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  const variant = word(p, 0);
  const L = <i32>word(p, 4);
  const xt = word(p, 8);
  const yt = word(p, 12);
  const xb = typeBytes(xt);
  const yb = typeBytes(yt);
  wait(slotWriteBack);
  const rows = <i32>word(tile, 0);
  const x = me + <usize>word(tile, 4);
  const y = me + <usize>word(tile, 8);
  if (variant == 4) {
    reduceColumns(x, y, rows, xt, yt, p);
    return transfer(me, tile + 36, false);
  }
  if (variant == 6) {
    for (let r = 0; r < rows; r++) argMax(x + <usize>(<u32>(r * L) * xb), y, L, xt, yt, r);
    // ASSUMPTION: a compare-and-select per entry costs one pooling tap (a max over a window), as on the core platforms.
    compute(POOL_TAP, rows * L);
    return transfer(me, tile + 36, false);
  }
  const n = span(me, p, L);
  for (let r = 0; r < rows; r++) {
    const xr = x + <usize>(<u32>(r * L) * xb);
    const yr = y + <usize>(<u32>(r * L) * yb);
    if (variant == 0) iSoftmax(xr, yr, L, n, xt, yt, p);
    else if (variant == 1) itaMax(xr, yr, L, xt, yt, p);
    else if (variant == 3) rmsNorm(xr, yr, L, xt, yt, p);
    else if (variant == 5) layerNorm(xr, yr, L, xt, yt, p);
    else itaPartialMax(xr, yr, L, xt, yt, p);
  }
  const norm = variant == 3 || variant == 5;
  // A bounded iSoftmax works on its n entries and writes 0 to the rest, a moved element each (as the core platforms'
  // kernel charges them).
  compute(norm ? NORM_ELEM : SOFTMAX_ELEM, rows * n);
  compute(DIV, variant == 0 ? 2 * rows * n : norm ? rows * (2 + L) : rows);
  if (n < L) compute(MOVE_ELEM, rows * (L - n));
  return transfer(me, tile + 36, false);
}

export function rows_run(me: usize, p: usize, block: usize): void {
  // A bounded iSoftmax's position, before any tile: every row of the layer stops there.
  if (word(p, 0) == 0 && word(p, 40) != 0) dma_wait(dma_in(me + <usize>word(p, 48), word(p, 44), typeBytes(word(p, 40) - 1)));
  tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
