/**
 * The planner's estimate of a tile loop (midend/tiling/cost.ts loopCycles) and of the busiest core's share of a SIMD
 * conv tile (kernels/conv.ts gatherWork): expectations worked out by hand from the loop's order (conv.c deals its
 * units round robin; the tile loop fetches the next tile's inputs while the current one computes).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gatherWork } from '../../generator/kernels/conv.js';
import { busiestShare, loopCycles } from '../../generator/midend/tiling/cost.js';
import { compileModel } from '../../generator/pipeline.js';
import { CALIBRATION } from '../../scripts/cost-fit/layers.js';
import { writeLayer } from '../../scripts/cost-fit/measure.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('tile-estimate');

test('single buffering waits for every transfer', () => {
  // 3 tiles of 100 cycles, 500 cycles of fetches, 60 of stores.
  assert.is(loopCycles(3, 100, { firstIn: 300, dmaIn: 500, dmaOut: 60 }, false), 300 + 500 + 60);
});

test('double buffering: the first fetch alone, later fetches under the tile before, the last store alone', () => {
  // First tile's inputs 300; the other 200 arrive under tiles 0 and 1 (100 each = their compute); stores of 20 each
  // under tiles 1 and 2, the last one's after: 300 + 100 + 100 + 100 + 20.
  assert.is(loopCycles(3, 100, { firstIn: 300, dmaIn: 500, dmaOut: 60 }, true), 620);
  // Fetches longer than a tile's compute set the pace: 300 + 2 x 150 + 100 + 20.
  assert.is(loopCycles(3, 100, { firstIn: 300, dmaIn: 600, dmaOut: 60 }, true), 720);
  // One tile overlaps nothing: as single buffering.
  assert.is(loopCycles(1, 100, { firstIn: 300, dmaIn: 300, dmaOut: 60 }, true), 460);
  // Weights fetched whole with the first tile cost their whole transfer before any compute, however many tiles follow.
  const once = loopCycles(4, 100, { firstIn: 1000, dmaIn: 1030, dmaOut: 40 }, true);
  assert.is(once, 1000 + 3 * 100 + 100 + 10);
});

test("a SIMD conv tile's busiest core takes ceil(units / cores) of its round-robin units", () => {
  const layer = CALIBRATION.find((l) => l.name === 'conv1x1/1 64->128 8x8');
  assert.ok(layer, 'calibration layer');
  const { model, sample } = writeLayer(layer!, join(dir, 'conv'));
  const c = compileModel({ model, platform: 'siracusa', sampleInputs: sample, untiled: true });
  const conv = c.layers.find((l) => l.node.op === 'Conv')!;
  assert.ok(conv.kernel !== 'alias', 'a conv kernel');
  // 3 rows x 3 pixel pairs x 4 blocks of 32 channels = 36 units: 5 on four cores, 4 on the other four.
  const uneven = gatherWork(conv.node, c.lowered, [1, 128, 3, 6], c.platform);
  assert.is(uneven.units, 36);
  assert.is(uneven.busiest, 5 / 36);
  // The rows' share (busiestShare) would say an eighth: 384 channel rows, 48 a core.
  assert.is(busiestShare(conv.kernel, [1, 128, 3, 6], 8), 1 / 8);
  // 2 rows x 3 pairs x 4 blocks = 24 units: 3 on every core.
  assert.is(gatherWork(conv.node, c.lowered, [1, 128, 2, 6], c.platform).busiest, 3 / 24);
});

test.after(cleanup);
test.run();
