import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseActivation, type Observed } from '../../generator/quantize/clipping.js';
import { pow2Ceil, quantizeBias, quantizeWeights, realOf, scaleFor, toMulShift } from '../../generator/quantize/fixed-point.js';
import { requantShift } from '../../generator/reference/ops/requant-shift.js';
import { Rng } from '../helpers/random.js';

/* The quantizer's arithmetic on hand-checked values: scales, (mul, shift) pairs, weights, biases, clipping. */

const f32 = Math.fround;

test('(mul, shift): largest 15-bit multiplier, then common factors of two removed', () => {
  // 0.1 * 2^18 = 26214.4 -> 26214 = 2 * 13107: (13107, 17), i.e. 0.0999985...
  assert.equal(toMulShift([0.1]), { mul: [13107], shift: 17 });
  assert.equal(toMulShift([0.5]), { mul: [1], shift: 1 });
  assert.equal(toMulShift([0.375]), { mul: [3], shift: 3 });
  assert.equal(toMulShift([3]), { mul: [3], shift: 0 });
  assert.equal(toMulShift([40000.4]), { mul: [40000], shift: 0 });
  // Per channel: one shift for all; 0.25 and 0.125 keep their ratio.
  assert.equal(toMulShift([0.25, 0.125]), { mul: [2, 1], shift: 3 });
  // 0.3 and 0.7: 0.7 sets the shift (0.7 * 2^15 = 22937.6 < 2^15 <= 0.7 * 2^16); 9830 and 22938 are both even.
  assert.equal(toMulShift([0.3, 0.7]), { mul: [4915, 11469], shift: 14 });
  assert.equal(toMulShift([0]), { mul: [0], shift: 0 });
  assert.is(realOf(13107, 17), 13107 / 131072);
});

test('(mul, shift) in RequantShift rounds x * M half up, exactly for representable M', () => {
  const { mul, shift } = toMulShift([0.375]);
  const full = { min: -1e9, max: 1e9 };
  for (let x = -50; x <= 50; x++) assert.is(requantShift(x, mul[0], 0, shift, full), Math.floor(x * 0.375 + 0.5), `x = ${x}`);
  // A general multiplier is within 2^-14 (relative) of M: away from ties the result is round(x * M).
  const m = toMulShift([0.0123456]);
  assert.ok(Math.abs(realOf(m.mul[0], m.shift) / 0.0123456 - 1) < 2 ** -14);
  assert.is(requantShift(1000, m.mul[0], 0, m.shift, full), 12); // 12.3456
  assert.is(requantShift(-1000, m.mul[0], 0, m.shift, full), -12);
  assert.is(requantShift(20000, m.mul[0], 0, m.shift, { min: -128, max: 127 }), 127); // 246.9 saturates
});

test('powers of two: pow2Ceil and pow2 scales', () => {
  assert.is(pow2Ceil(0.1), 0.125);
  assert.is(pow2Ceil(0.125), 0.125);
  assert.is(pow2Ceil(3), 4);
  assert.is(scaleFor(1, 127, true), 2 ** -6); // 1/127 = 0.00787 -> 1/64
  assert.is(scaleFor(1, 255, true), 2 ** -7);
  assert.is(scaleFor(0, 127, false), 1);
  assert.is(scaleFor(2.54, 127, false), f32(0.02));
});

test('weights: per tensor, per channel (a zero channel takes the smallest other scale), pow2', () => {
  const w = [0.5, -1, 0.25, 0, 0, 0, 2, 1, -0.5];
  const t = quantizeWeights(w, [3, 3], 0, false, false);
  assert.equal(t.scales, [f32(2 / 127)]);
  assert.equal(Array.from(t.q), [32, -64, 16, 0, 0, 0, 127, 64, -32]);
  const c = quantizeWeights(w, [3, 3], 0, true, false);
  assert.equal(c.scales, [f32(1 / 127), f32(1 / 127), f32(2 / 127)]);
  assert.equal(Array.from(c.q), [64, -127, 32, 0, 0, 0, 127, 64, -32]);
  // Output channels on axis 1 (a MatMul's [K, N] weights).
  const m = quantizeWeights([1, 4, -2, 8], [2, 2], 1, true, false);
  assert.equal(Array.from(m.q), [64, 64, -127, 127]);
  const p = quantizeWeights(w, [3, 3], 0, true, true);
  assert.equal(p.scales, [2 ** -6, 2 ** -6, 2 ** -5]);
  assert.equal(Array.from(p.q), [32, -64, 16, 0, 0, 0, 64, 32, -16]);
});

test('bias: round half to even at scale s_x * s_w, saturating to int32', () => {
  assert.is(quantizeBias(1.4, 0.5), 3);
  assert.is(quantizeBias(1.25, 0.5), 2); // 2.5 -> 2
  assert.is(quantizeBias(-1.75, 0.5), -4); // -3.5 -> -4
  assert.is(quantizeBias(1e12, 1e-3), 2147483647);
});

function observed(values: number[]): Observed {
  return { min: values.reduce((a, v) => Math.min(a, v)), max: values.reduce((a, v) => Math.max(a, v)), values: Float32Array.from(values) };
}

test('activations: min/max covers the range; MSE clips a heavy tail; pow2 scales are powers of two', () => {
  const rng = new Rng(5);
  // 300000 values uniform in [-1, 1] and one at 20. Clipping at c costs the bulk n (c/127)^2 / 12 = 1.55 c^2 of
  // rounding noise and the outlier (20 - c)^2: the optimum is c = 40 / 5.1 = 7.84.
  const vals = [...rng.floats(300000, -1, 1), 20];
  const mm = chooseActivation(observed(vals), 'minmax', false, true);
  assert.is(mm.scale, f32(20 / 127));
  assert.is(mm.qmax, 127);
  const mse = chooseActivation(observed(vals), 'mse', false, true);
  assert.ok(Math.abs(mse.clip - 7.84) < 0.21, `MSE clips at the optimum (candidates are 0.2 apart): ${mse.clip}`);
  const u = chooseActivation(observed([0, 0.5, 1]), 'minmax', false, false);
  assert.equal([u.scale, u.qmax, u.signed], [f32(1 / 255), 255, false]);
  const p = chooseActivation(observed(vals), 'mse', true, true);
  assert.is(Math.log2(p.scale) % 1, 0);
  assert.ok(p.scale <= mm.scale * 2);
  const wide = chooseActivation(observed([-3, 3]), 'minmax', false, true, 16);
  assert.equal([wide.qmax, wide.scale], [32767, f32(3 / 32767)]);
});

test.run();
