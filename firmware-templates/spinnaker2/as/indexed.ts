// The indexed layer on a worker: Gather by run-time indices and CacheWrite at a run-time position, the index read
// from data memory by the tile's first transfer. Format: generator/platforms/spinnaker2/indexed.ts.

import { compute } from "./hal/chip";
import { COPY_BYTE, ELEMENT } from "./hal/cost";
import { dma_in, dma_out } from "./s2";
import { tile_loop, wait } from "./tiles";
import { loadElement, word } from "./elements";
import { DMA_BATCH, DMA_BYTES, DMA_DRAM, DMA_SIZE, DMA_SRAM } from "./layout";

const TILE_BYTES: u32 = 96;
const GATHER: u32 = 0;

/** The tile's inputs (indices or position first); the ticket of the last. */
function fetch(me: usize, tile: usize): i32 {
  let ticket = -1;
  for (let k: u32 = 0; k < word(tile, 24); k++) {
    const d = tile + 28 + <usize>(k * DMA_SIZE);
    ticket = dma_in(me + <usize>word(d, DMA_SRAM), word(d, DMA_DRAM), word(d, DMA_BYTES));
  }
  return ticket;
}

/**
 * Gather: per index, its row (a negative index from the end, clamped into the axis) from the table in SRAM (mode 0)
 * or by its own DMA from DRAM (mode 1) into the staging buffer, then one write-back.
 */
function gather(me: usize, p: usize, tile: usize): i32 {
  const it = word(p, 4);
  const dim = <i64>word(p, 8);
  const rb = word(p, 12);
  const mode = word(p, 16);
  const count = word(tile, 0);
  const idx = me + <usize>word(tile, 4);
  const out = me + <usize>word(tile, 8);
  const table = me + <usize>word(tile, 12);
  const src = word(tile, 16);
  let ticket = -1;
  for (let j: u32 = 0; j < count; j++) {
    let k = loadElement(it, idx, <i32>j);
    if (k < 0) k += dim;
    k = k < 0 ? 0 : k >= dim ? dim - 1 : k;
    const at = out + <usize>(j * rb);
    if (mode == 0) {
      memory.copy(at, table + <usize>(<u32>k * rb), rb);
    } else {
      ticket = dma_in(at, src + <u32>k * rb, rb);
      if ((j + 1) % DMA_BATCH == 0) wait(ticket);
    }
  }
  wait(ticket);
  compute(ELEMENT, <i32>count);
  if (mode == 0) compute(COPY_BYTE, <i32>(count * rb));
  return dma_out(out, word(tile, 20), count * rb);
}

/**
 * CacheWrite: pos clamped to [0, R - n]; in place the value rows of the tile's outer indices go straight to rows
 * pos.. of each cache block (one 2-D write-back), else they are copied into the fetched cache blocks first.
 */
function cacheWrite(me: usize, p: usize, tile: usize): i32 {
  const last = <i64>word(p, 8);
  const rb = word(p, 12);
  const inPlace = word(p, 16) != 0;
  const R = word(p, 20);
  const n = word(p, 24);
  const count = word(tile, 0);
  let pos = loadElement(word(p, 4), me + <usize>word(tile, 4));
  pos = pos < 0 ? 0 : pos > last ? last : pos;
  const out = me + <usize>word(tile, 8);
  const dst = word(tile, 20);
  compute(ELEMENT, 1);
  if (inPlace) {
    const bytes = count * n * rb;
    const to = dst + <u32>pos * rb;
    return count > 1 ? dma_out(out, to, bytes, n * rb, R * rb) : dma_out(out, to, bytes);
  }
  const value = me + <usize>word(tile, 12);
  for (let o: u32 = 0; o < count; o++) memory.copy(out + <usize>((o * R + <u32>pos) * rb), value + <usize>(o * n * rb), n * rb);
  compute(COPY_BYTE, <i32>(count * n * rb));
  return dma_out(out, dst, count * R * rb);
}

function run_tile(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  wait(slotWriteBack);
  return word(p, 0) == GATHER ? gather(me, p, tile) : cacheWrite(me, p, tile);
}

export function indexed_run(me: usize, p: usize, block: usize): void {
  tile_loop(me, p, block, TILE_BYTES, fetch, run_tile);
}
