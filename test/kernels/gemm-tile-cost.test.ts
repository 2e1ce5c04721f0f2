/**
 * The tiler's estimate of a GEMM tile's products (kernels/gemm-tile-cost.ts), against counts worked out by hand from
 * gemm.c.mustache's loops, each class priced 1 cycle (or a power of ten, to tell the classes apart in one number).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gemmTileMacCycles } from '../../generator/kernels/gemm-tile-cost.js';
import type { GemmLoops } from '../../generator/kernels/gemm.js';
import { COST_CLASSES, type CoreCosts, type Platform } from '../../generator/platforms/types.js';

function platformWith(costs: Partial<Record<(typeof COST_CLASSES)[number], number>>, cores: number): Platform {
  const all = Object.fromEntries(COST_CLASSES.map((c) => [c, costs[c] ?? 0])) as unknown as CoreCosts;
  return { cores, costs: all } as unknown as Platform;
}

// B without batch dimensions (one B for every row): rows pair (gemmRowPairs).
const loops = (o: Partial<GemmLoops>): GemmLoops => ({ transA: false, K: 8, WB: 8, M: 2, bShape: [8, 8], macClass: 'MAC_GEMM', ...o }) as GemmLoops;

test('dot products: a pair of rows through the 4x2 block, its leftover columns through the 1x2 loop, a k tail', () => {
  // One core, two rows of 6 columns, K = 10: one 4-column block (8 outputs x 8 k of the SIMD loop = 64 MACs), two
  // leftover columns for both rows (2 x 2 x 8 = 32 MACs of the 1x2 loop), and the last 2 k of all 12 outputs (24 MACs
  // of the tail); one block call, 4 leftover outputs, 2 units. Rows 10 bytes apart: every other row is off a word
  // (offA 0.5), B's rows too: per word of k (2 words) a block loads 2 A and 4 B rows (3 misaligned), the 1x2 loop 2 A
  // and 1 B (1.5) per column: 2 x (3 + 2 x 1.5) = 12.
  const p = platformWith({ MAC_GEMM: 1, MAC_GEMM_COL: 100, MAC_GEMM_TAIL: 10_000, GEMM_BLOCK: 1e6, GEMM_COL: 1e7, GEMM_UNIT: 1e8, MISALIGNED: 1e9 }, 1);
  const c = gemmTileMacCycles(loops({ K: 10, WB: 10 }), 2, 2, 6, { chunks: 1, width: 6 }, p);
  assert.is(c, 64 + 32 * 100 + 24 * 10_000 + 1e6 + 4 * 1e7 + 2 * 1e8 + 12 * 1e9);
});

test('a row alone takes the block with itself and its leftover columns in pairs, a last odd one twice', () => {
  // One row of 5 columns, K = 8, aligned: the block's 4 columns x 8 k at MAC_GEMM_LONE, the fifth column's loop run
  // for 2 columns (2 x 8 MACs of the 1x2 loop); no tail, nothing misaligned.
  const p = platformWith({ MAC_GEMM_LONE: 1, MAC_GEMM_COL: 100 }, 1);
  assert.is(gemmTileMacCycles(loops({}), 1, 1, 5, { chunks: 1, width: 5 }, p), 32 + 16 * 100);
});

test('one row per batch and a B per batch (a decoder step\'s heads): each row alone, never a pair across two B\'s', () => {
  // Two batches of one row, 4 columns, K = 8, B [2, 4, 8]: both rows take the block with themselves (2 x 4 x 8 MACs at
  // MAC_GEMM_LONE), none at MAC_GEMM; with one B for both (B [1, 4, 8]) they pair (2 x 4 x 8 at MAC_GEMM).
  const p = platformWith({ MAC_GEMM: 1, MAC_GEMM_LONE: 1000 }, 1);
  assert.is(gemmTileMacCycles(loops({ M: 1, bShape: [2, 4, 8] }), 2, 1, 4, { chunks: 1, width: 4 }, p), 64 * 1000);
  assert.is(gemmTileMacCycles(loops({ M: 1, bShape: [1, 4, 8] }), 2, 1, 4, { chunks: 1, width: 4 }, p), 64);
});

test('the busiest core sets the figure: three rows on two cores, the first core takes two', () => {
  // ceil(3 / 2) = 2 rows on core 0 (a pair: 2 x 4 x 8 MACs), 1 on core 1 (alone); MAC_GEMM and MAC_GEMM_LONE alike.
  const p = platformWith({ MAC_GEMM: 1, MAC_GEMM_LONE: 1 }, 2);
  assert.is(gemmTileMacCycles(loops({}), 3, 3, 4, { chunks: 1, width: 4 }, p), 64);
});

test('transposed-B path: four columns per step, the rest in pairs from copies of B made once per pair and batch', () => {
  // One core, two rows of one batch, 6 columns, K = 8: per row 4 x 8 MACs of the 4-column step and one pair (2 x 8
  // at MAC_GEMM_COL, 2 outputs at GEMM_COL); the pair (columns 4-5) is copied once (2 x 8 bytes) and reused by row 2.
  const p = platformWith({ MAC_GEMM_KDOT: 1, MAC_GEMM_COL: 100, GEMM_COL: 10_000, MOVE_ELEM: 1e6, GEMM_UNIT: 1e7 }, 1);
  assert.is(gemmTileMacCycles(loops({ macClass: 'MAC_GEMM_KDOT' }), 2, 2, 6, { chunks: 1, width: 6 }, p), 2 * (32 + 1600 + 20_000 + 1e7) + 16 * 1e6);
  // Two batches of one row: the copy is made again for the second batch.
  assert.is(gemmTileMacCycles(loops({ macClass: 'MAC_GEMM_KDOT' }), 2, 1, 6, { chunks: 1, width: 6 }, p), 2 * (32 + 1600 + 20_000 + 1e7) + 32 * 1e6);
});

test('the scalar loop: every MAC at its class, a unit each row', () => {
  const p = platformWith({ MAC_GEMM_SCALAR: 1, GEMM_UNIT: 1000 }, 1);
  assert.is(gemmTileMacCycles(loops({ K: 2, macClass: 'MAC_GEMM_SCALAR' }), 3, 3, 5, { chunks: 1, width: 5 }, p), 3 * (10 + 1000));
});

test.run();
