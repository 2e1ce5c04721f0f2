// The movement layer on a worker: Transpose, Slice, Concat, Gather, Pad as copies of boxes. Per tile: the source
// span arrives by DMA, the core gathers it (or the fill value) into a dense staging buffer converting the type,
// and DMAs write the staging buffer to the destination box. Two staging slots, so tile i+1's source arrives while
// tile i copies. Format: generator/platforms/spinnaker2/movement.ts.

import { compute } from "./hal/chip";
import { ELEMENT } from "./hal/cost";
import { dma_in, dma_out } from "./s2";
import { tile_loop, wait } from "./tiles";
import { loadElement, storeElement, typeBytes, word } from "./elements";

const TILE_BYTES: u32 = 128;
const FILL: u32 = 255;

function fetch(me: usize, tile: usize): i32 {
  if (word(tile, 68) == 0) return -1;
  return dma_in(me + <usize>word(tile, 76), word(tile, 72), word(tile, 80));
}

/**
 * Gathers the tile into its staging buffer, once the write-backs of tile i-2 (which used the same staging slot) are
 * done; returns the ticket of its last write-back.
 */
function copy(me: usize, p: usize, tile: usize, slotWriteBack: i32): i32 {
  const rows = word(tile, 0);
  const d1 = word(tile, 4);
  const d2 = word(tile, 8);
  const d3 = word(tile, 12);
  const st = word(tile, 16);
  const dt = word(tile, 20);
  const fill = <i32>word(tile, 56);
  const src = me + <usize>word(tile, 60);
  const staging = me + <usize>word(tile, 64);
  const sb = typeBytes(st);
  const db = typeBytes(dt);
  let at = staging;
  wait(slotWriteBack);
  for (let i: u32 = 0; i < rows; i++) {
    for (let j1: u32 = 0; j1 < d1; j1++) {
      for (let j2: u32 = 0; j2 < d2; j2++) {
        for (let j3: u32 = 0; j3 < d3; j3++) {
          const idx = i * word(tile, 24) + j1 * word(tile, 28) + j2 * word(tile, 32) + j3 * word(tile, 36);
          storeElement(dt, at, st == FILL ? <i64>fill : loadElement(st, src + <usize>(idx * sb)));
          at += <usize>db;
        }
      }
    }
  }
  compute(ELEMENT, <i32>(rows * d1 * d2 * d3));
  const dst = word(tile, 92);
  const run = d2 * d3 * db;
  if (word(tile, 96) != 0) return dma_out(staging, dst, rows * d1 * run);
  let ticket = -1;
  for (let i: u32 = 0; i < rows; i++) {
    for (let j1: u32 = 0; j1 < d1; j1++) {
      const to = dst + (i * word(tile, 40) + j1 * word(tile, 44)) * db;
      const from = staging + <usize>((i * d1 + j1) * run);
      ticket = d2 > 1 ? dma_out(from, to, run, d3 * db, word(tile, 48) * db) : dma_out(from, to, run);
    }
  }
  return ticket;
}

export function move_run(me: usize, p: usize, block: usize): void {
  tile_loop(me, p, block, TILE_BYTES, fetch, copy);
}
