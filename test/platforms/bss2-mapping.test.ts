/**
 * BrainScaleS-2's partitioning and mapping (generator/platforms/brainscales2/): without noise, a product partitioned
 * into blocks of 128 x 256 over the two arrays and several runs equals SEMANTICS.md 3's mock model on the whole
 * matrix; with the fixed pattern, the placement matters (the chip is not uniform); the mapping's figures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnalogChip, mockMatmul } from '../../generator/platforms/brainscales2/analog/chip-model.js';
import { analogMatmul } from '../../generator/platforms/brainscales2/analog/partition.js';
import { blockSpread, inputShift, numSendsFor, rescale, scaledWeights, weightScales } from '../../generator/platforms/brainscales2/mapping.js';
import { Rng } from '../helpers/random.js';

const quiet = { chipSeed: 4, fixedPattern: false, noiseSeed: 0, noiseStd: 0 };

for (const [M, K, N] of [[3, 300, 600], [2, 700, 300], [1, 128, 256], [4, 129, 257], [2, 50, 20]]) {
  test(`${M}x${K} by ${K}x${N}: partitioned over the arrays = the unpartitioned mock model (no noise)`, () => {
    const rng = new Rng(K * 1000 + N);
    const x = rng.ints(M * K, 0, 31);
    const w = rng.ints(K * N, -63, 63);
    for (const firstArray of [0, 1]) {
      const got = analogMatmul(new AnalogChip(quiet), { x, w, M, K, N, numSends: 2, gain: 0.002, firstArray });
      assert.equal(got, mockMatmul(x, w, M, K, N, 2, 0.002));
    }
  });
}

test('with the fixed pattern, the placement matters: the first array changes the values', () => {
  const rng = new Rng(3);
  const [M, K, N] = [2, 200, 100];
  const x = rng.ints(M * K, 0, 31);
  const w = rng.ints(K * N, -63, 63);
  const cfg = { ...quiet, fixedPattern: true };
  const a = analogMatmul(new AnalogChip(cfg), { x, w, M, K, N, numSends: 2, gain: 0.002, firstArray: 0 });
  const b = analogMatmul(new AnalogChip(cfg), { x, w, M, K, N, numSends: 2, gain: 0.002, firstArray: 1 });
  assert.not.equal(a, b);
  // ... and it stays close to the uniform chip: the spread is a few percent
  const ideal = mockMatmul(x, w, M, K, N, 2, 0.002);
  const far = a.filter((v, i) => Math.abs(v - ideal[i]) > 8).length;
  assert.ok(far < a.length / 10, `${far} of ${a.length} outputs more than 8 LSB from the uniform chip`);
});

test('inputs to 5 bits, weights to 6 bits per column', () => {
  assert.is(inputShift(255), 3);
  assert.is(inputShift(127), 2);
  assert.is(inputShift(31), 0);
  assert.is(inputShift(32), 1);
  // K = 3 rows by N = 2 columns: column 0 is -128, 0, -5; column 1 is 10, 64, 0
  const b = [-128, 10, 0, 64, -5, 0];
  const s = weightScales(b, 3, 2);
  assert.equal(s, [63 / 128, 63 / 64]);
  assert.equal(scaledWeights(b, 3, 2, s), [-63, 10, 0, 63, -2, 0]);
  assert.equal(weightScales([0, 0], 2, 1), [1]);
});

test('num_sends puts three standard deviations of a block at the int8 edge', () => {
  const w = new Array<number>(128).fill(63);
  const spread = blockSpread(w, 128, 1);
  assert.ok(Math.abs(spread - 3 * 18 * 63 * Math.sqrt(128)) < 1e-6);
  const ns = numSendsFor(spread / 10, 0.002);
  assert.ok((spread / 10) * ns * 0.002 <= 127 && (spread / 10) * (ns + 1) * 0.002 > 127);
  assert.is(numSendsFor(1e9, 0.002), 1);
  assert.is(numSendsFor(1, 0.002), 255);
});

test('the rescale keeps every value in int32 and the multiplier near 16 bits; undefined when it cannot', () => {
  const r = rescale({ mul: [20, 40], add: [1 << 20, 1 << 20], bias: [1000, -1000], shift: 16, k: 3, numSends: 2, gain: 0.002, scales: [0.5, 0.25] });
  assert.ok(r);
  for (let n = 0; n < 2; n++) {
    assert.ok(128 * Math.abs(r!.mul[n]) + Math.abs(r!.add[n]) + 2 ** (r!.shift - 1) < 2 ** 31);
    // the same real multiplier, to the precision kept
    const real = ([20, 40][n] * 8) / (2 * 0.002 * [0.5, 0.25][n]);
    assert.ok(Math.abs(r!.mul[n] / 2 ** (r!.shift - 16) - real) <= 0.5 / 2 ** (r!.shift - 16) + 1e-9);
  }
  assert.is(rescale({ mul: [1], add: [2 ** 31], bias: [0], shift: 0, k: 0, numSends: 1, gain: 0.002, scales: [1] }), undefined);
  // large multipliers of the layer's own: fewer bits than its shift (e < 0), still inside int32
  const big = rescale({ mul: [24602], add: [0], bias: [1000], shift: 24, k: 3, numSends: 1, gain: 0.002, scales: [0.5] })!;
  assert.ok(big.shift < 24 && 128 * Math.abs(big.mul[0]) + Math.abs(big.add[0]) + 2 ** (big.shift - 1) < 2 ** 31);
});

test.run();
