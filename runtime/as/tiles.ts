// The tile loop's table walker (format: generator/midend/tiling/table.ts). A tiled layer's loop calls these from
// the core that drives the DMA; the kernels themselves never see the table.

import { dma_channel_alloc, dma_channel_free, dma_copy_1d, dma_copy_2d, dma_copy_2d_l1, dma_wait } from "./dma";
import { compute } from "./chip";
import { TRANSFER } from "./cost";

const WORDS: usize = 5;

/** Tiles in the table. */
export function tile_count(table: usize): i32 {
  return load<i32>(table);
}

@inline function record(table: usize, t: i32): usize {
  return table + <usize>load<i32>(table + 4 + (<usize>t << 2));
}

/** The kernel instance tile t runs. */
export function tile_instance(table: usize, t: i32): i32 {
  return load<i32>(record(table, t));
}

/** Linear address of operand k's buffer for tile t. */
export function tile_ptr(table: usize, t: i32, k: i32, l1: usize): usize {
  return l1 + <usize>load<i32>(record(table, t) + 12 + (<usize>k << 2));
}

function issue(table: usize, t: i32, nOperands: i32, store: bool, arena: usize, l1: usize): i32 {
  const r = record(table, t);
  const nFetch = load<i32>(r + 4);
  const nStore = load<i32>(r + 8);
  const n = store ? nStore : nFetch;
  if (n == 0) return -1;
  let p = r + 12 + (<usize>nOperands << 2) + (store ? <usize>nFetch * WORDS * 4 : 0);
  const ch = dma_channel_alloc();
  for (let i = 0; i < n; i++) {
    const ext = arena + <usize>load<i32>(p);
    const dst = l1 + <usize>load<i32>(p + 4);
    const bytes = load<i32>(p + 8);
    const stride = load<i32>(p + 12);
    compute(TRANSFER, 1);
    // A negative stride spreads the rows in L1 instead (padded conv filters, off their neighbours' banks).
    if (stride == 0) dma_copy_1d(ch, dst, ext, bytes, !store);
    else if (stride > 0) dma_copy_2d(ch, dst, ext, bytes, stride, load<i32>(p + 16), !store);
    else dma_copy_2d_l1(ch, dst, ext, bytes, -stride, load<i32>(p + 16), !store);
    p += WORDS * 4;
  }
  return ch;
}

/** Starts the transfers that bring tile t's changed inputs into L1; the channel to wait on, or -1 if none. */
export function tile_fetch(table: usize, t: i32, nOperands: i32, arena: usize, l1: usize): i32 {
  return issue(table, t, nOperands, false, arena, l1);
}

/** Starts the write-back of tile t's output; the channel to wait on, or -1 if none. */
export function tile_store(table: usize, t: i32, nOperands: i32, arena: usize, l1: usize): i32 {
  return issue(table, t, nOperands, true, arena, l1);
}

/** Waits for a channel from tile_fetch / tile_store and frees it (-1: nothing to wait for). */
export function tile_wait(ch: i32): void {
  if (ch < 0) return;
  dma_wait(ch);
  dma_channel_free(ch);
}
