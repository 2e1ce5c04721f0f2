// The double-buffered tile loop of every layer type (C twin: s2_tile_loop in c/s2_firmware.h). Per tile of the
// worker block: charge the descriptor reads and loop bookkeeping, wait for its inputs, start the next tile's (`fetch`
// returns the ticket of its last transfer, or -1), then `work`, which gets the ticket of the write-back that last
// used this tile's output slot (tile i-2's: there are two slots), must wait() it before writing there, and returns
// the ticket of the tile's last write-back.

import { compute } from "./hal/chip";
import { CALL } from "./hal/cost";
import { dma_wait } from "./s2";
import { WORKER_FIRST, WORKER_TILES } from "./layout";
import { word } from "./elements";

/** Waits for a DMA ticket; -1 (no transfer) needs no wait. */
export function wait(ticket: i32): void {
  if (ticket >= 0) dma_wait(ticket);
}

export function tile_loop(
  me: usize, p: usize, block: usize, tileBytes: u32,
  fetch: (me: usize, tile: usize) => i32,
  work: (me: usize, p: usize, tile: usize, slotWriteBack: i32) => i32,
): void {
  const tiles = <i32>word(block, WORKER_TILES);
  let inNext = fetch(me, block + WORKER_FIRST);
  let outPrev: i32 = -1;
  let outPrev2: i32 = -1;
  for (let i = 0; i < tiles; i++) {
    const tile = block + WORKER_FIRST + <usize>(<u32>i * tileBytes);
    compute(CALL, 1); // descriptor reads and loop bookkeeping on the core
    wait(inNext);
    inNext = i + 1 < tiles ? fetch(me, tile + tileBytes) : -1;
    const out = work(me, p, tile, outPrev2);
    outPrev2 = outPrev;
    outPrev = out;
  }
  wait(outPrev);
}
