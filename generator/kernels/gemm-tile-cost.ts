/**
 * The busiest core's cycles for a GEMM tile's products and units, counted by the loops the C takes (gemm.c.mustache) with the
 * classes the AS firmware charges them (gemm.ts.mustache): for the tiler, which chose GEMM tiles from every MAC at
 * the SIMD block's cost. EEGFormer's attention value product (K = 66, N = 2) was estimated at 8,935 cycles in two tiles
 * where the AS charges and the ISS measures ~17,000-20,000: all its columns run the 1x2 loop, half its rows are off a
 * word and each dot product ends in a scalar k tail. Misaligned words are estimated from the row lengths (the AS counts
 * them from the addresses).
 */
import type { Platform } from '../platforms/types.js';
import { chunkOf } from './common.js';
import type { GemmLoops } from './gemm.js';

/** Of rows `stride` bytes apart, the fraction whose start is off a word (over every fourth row: r x stride mod 4). */
function offWord(stride: number): number {
  return stride % 4 === 0 ? 0 : stride % 2 === 0 ? 0.5 : 0.75;
}

/**
 * Whether a core's whole rows go two at a time through the 4x2 register block (two A rows against the same B
 * columns; gemm.c.mustache `rowPairs`, the AS's `lone.pairs`, gemm-tile-cost.ts): units of whole rows, k of a word or
 * more, and a pair's two rows reading one B: rows of one batch (M >= 2), or batches that share B. With one row per
 * batch and a B per batch (a decoder step's heads against their cached keys) every pair would span two B's, which the
 * pair loop takes a column at a time with two dot products each (the step's score products at 2.3x their charge on
 * generic's ISS): each row goes alone instead, through the block with itself as both rows.
 */
export function gemmRowPairs(L: GemmLoops, split: { chunks: number }): boolean {
  const sharedB = L.bShape.slice(0, -2).every((d) => d === 1);
  return split.chunks === 1 && L.K >= 4 && (L.M >= 2 || sharedB);
}

/**
 * `L`: the node's loops (gemm.ts gemmLoops); a tile of `rows` output rows (`rowsPerBatch` to a batch) of `N` columns,
 * split as `split` (gemmSplit); `runs`: whether the transposed-B path copies B's columns once per run of rows, and
 * four at a time (gemm.ts kdotCopies).
 */
export function gemmTileMacCycles(L: GemmLoops, rows: number, rowsPerBatch: number, N: number, split: { chunks: number; width: number }, platform: Platform, runs: false | { quads: boolean } = false): number {
  const c = platform.costs;
  const cores = platform.cores;
  const { K } = L;
  const { chunks, width } = split;
  const kWords = K & ~3;
  const tail = K - kWords;
  // Word loads off a boundary cost one cycle more where word loads take any address (XpulpV2; MISALIGNED).
  const offA = L.transA ? 0 : offWord(K);
  const offB = offWord(L.WB);
  const words = kWords / 4;
  const pairs = gemmRowPairs(L, split);
  const widthOf = (u: number): number => Math.min(N, (u % chunks) * width + width) - (u % chunks) * width;
  let most = 0;
  for (let core = 0; core < cores; core++) {
    const [start, end] = chunkOf(rows * chunks, core, cores);
    // The first unit's divisions on a team (gemm.ts.mustache GEMM_SPLIT).
    let cycles = cores > 1 ? c.GEMM_SPLIT : 0;
    if (L.macClass === 'MAC_GEMM_SCALAR') {
      for (let u = start; u < end; u++) cycles += widthOf(u) * K * c.MAC_GEMM_SCALAR + c.GEMM_UNIT;
    } else if (L.macClass === 'MAC_GEMM_KDOT') {
      // With `runs`, whole rows of a batch take B's columns from copies made once for the core's rows there (a run):
      // four at a time through the 4x2 block where they fit (`runs.quads`), the rest two at a time through the 1x2
      // loop (gemm.c.mustache `kdot.runs`; the AS charges the same). Any other unit (a run of one row, a slice of a
      // row): four columns at a time; the 1..3 left two at a time through the 1x2 loop, a last odd one with itself,
      // from B's pair of columns copied as rows along k (MOVE_ELEM a byte), again whenever the core's pair or batch
      // changes (a run leaves the copy invalid, as the C's bt_col = -1).
      let btOf = -1;
      let colOf = -1;
      let u = start;
      while (u < end) {
        const run = runs ? Math.min(end - u, rowsPerBatch - (u % rowsPerBatch)) : 1;
        if (runs && run >= 2) {
          const q = runs.quads ? N >> 2 : 0;
          const full = (N - 4 * q) >> 1;
          const odd = (N - 4 * q) & 1;
          const lone = run & 1;
          const rowPairs = (run >> 1) + lone;
          const calls = rowPairs * (2 * full + odd);
          cycles += (2 * q + full) * words * c.GEMM_BT_QUAD + (4 * q * tail + 2 * (full * tail + odd * K)) * c.MOVE_ELEM;
          cycles += q * ((run >> 1) * 8 * kWords * c.MAC_GEMM + lone * 4 * kWords * c.MAC_GEMM_LONE + rowPairs * c.GEMM_BLOCK);
          cycles += calls * (8 * words * c.MAC_GEMM_COL + c.GEMM_COL);
          cycles += rowPairs * (q + 2 * full + odd) * 2 * offA * words * c.MISALIGNED;
          cycles += rowPairs * (8 * q + 4 * (full + odd)) * tail * c.MAC_GEMM_TAIL + run * c.GEMM_UNIT;
          colOf = -1;
          u += run;
          continue;
        }
        const w = widthOf(u);
        const c0 = (u % chunks) * width;
        const bt = Math.floor(u / chunks / rowsPerBatch);
        const left = ((w & 3) + 1) & ~1;
        cycles += (w & ~3) * K * c.MAC_GEMM_KDOT + left * (K * c.MAC_GEMM_COL + c.GEMM_COL) + c.GEMM_UNIT;
        for (let col = c0 + (w & ~3); col < c0 + w; col += 2) {
          if (bt !== btOf || col !== colOf) cycles += 2 * K * c.MOVE_ELEM;
          btOf = bt;
          colOf = col;
        }
        u += 1;
      }
    } else {
      // Whole rows pair up two by two through the 4x2 block (a last odd row alone, as both rows); slices of rows
      // are each a row alone. The 1x2 loop takes a pair's leftover columns one at a time, a row alone's two at a time.
      let u = start;
      while (u < end) {
        const w = widthOf(u);
        const quads = w >> 2;
        const cols = w & 3;
        const paired = pairs && u + 1 < end;
        if (paired) {
          cycles += 8 * quads * kWords * c.MAC_GEMM + 2 * cols * kWords * c.MAC_GEMM_COL;
          cycles += quads * c.GEMM_BLOCK + 2 * cols * c.GEMM_COL + 2 * c.GEMM_UNIT;
          cycles += words * (quads * (2 * offA + 4 * offB) + cols * (2 * offA + offB)) * c.MISALIGNED;
          cycles += 2 * w * tail * c.MAC_GEMM_TAIL;
          u += 2;
        } else {
          const run = (cols + 1) & ~1;
          cycles += 4 * quads * kWords * c.MAC_GEMM_LONE + run * kWords * c.MAC_GEMM_COL;
          cycles += quads * c.GEMM_BLOCK + cols * c.GEMM_COL + c.GEMM_UNIT;
          cycles += words * (quads * (2 * offA + 4 * offB) + (run / 2) * (offA + 2 * offB)) * c.MISALIGNED;
          cycles += w * tail * c.MAC_GEMM_TAIL;
          u += 1;
        }
      }
    }
    most = Math.max(most, cycles);
  }
  return most;
}
