import { GenError } from '../../errors.js';
import type { TiledLayer } from './layer-plan.js';

/*
 * The tile table a tiled layer's loop reads (little-endian int32 words, placed in the home memory with the
 * constants; runtime/as/tiles.ts and runtime/c/include/firmgen_tiles.h walk it):
 *   [T, record offset (bytes from the table start) of tile 0 .. T-1, records...]
 *   record: [instance, nFetch, nStore, ptr[nOperands] (L1 offsets), fetch[nFetch][5], store[nStore][5]]
 *   transfer: [external offset from the arena start, L1 offset, bytes, stride, row length]
 *   stride: 0 for a 1-D copy; > 0: rows every stride bytes on the external side; < 0: rows every -stride bytes on
 *   the L1 side, the external side contiguous (padded conv filters, filter-layout.ts). A sign rather than a sixth
 *   word: the tables sit in L2 with the constants, and no command of the plan is 2-D on both sides.
 * Tables keep the loop code the same for every layer and the firmware small whatever the tile count.
 */
const TRANSFER_WORDS = 5;

function recordWords(l: TiledLayer, t: number): number {
  const s = l.tiles[t];
  return 3 + l.operands.length + TRANSFER_WORDS * (s.fetch.length + s.store.length);
}

/** The longest record of any tile of these layers, in words (the C copies one record at a time to L1). */
export function maxRecordWords(layers: Iterable<TiledLayer>): number {
  let most = 0;
  for (const l of layers) for (let t = 0; t < l.tiles.length; t++) most = Math.max(most, recordWords(l, t));
  return most;
}

export function tableBytes(l: TiledLayer): number {
  let words = 1 + l.tiles.length;
  for (let t = 0; t < l.tiles.length; t++) words += recordWords(l, t);
  return words * 4;
}

/** Encodes the table once the home-memory offsets of the layer's tensors (from the arena start) are known. */
export function encodeTable(l: TiledLayer, arenaOffsetOf: (tensor: string) => number): Uint8Array {
  const words = new Int32Array(tableBytes(l) / 4);
  words[0] = l.tiles.length;
  let at = 1 + l.tiles.length;
  l.tiles.forEach((s, t) => {
    words[1 + t] = at * 4;
    words[at++] = s.instance;
    words[at++] = s.fetch.length;
    words[at++] = s.store.length;
    for (const p of s.ptrs) words[at++] = p;
    for (const tr of [...s.fetch, ...s.store]) {
      words[at++] = arenaOffsetOf(l.operands[tr.operand].tensor) + tr.ext;
      words[at++] = tr.l1;
      words[at++] = tr.bytes;
      if (tr.stride !== 0 && tr.l1Stride !== 0) throw new GenError('internal', 'a tile transfer 2-D on both sides has no table encoding');
      words[at++] = tr.l1Stride !== 0 ? -tr.l1Stride : tr.stride;
      words[at++] = tr.length;
    }
  });
  return new Uint8Array(words.buffer);
}
