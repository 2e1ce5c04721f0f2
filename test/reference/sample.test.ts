import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mulberry32, sampler, sampling, samplingBlock, scaledDraw, SAMPLING_ONE } from '../../generator/reference/sample.js';
import { genError } from '../helpers/gen-error.js';

/*
 * The integer sampler (reference/sample.ts, docs/llm.md "Sampling") against what it stands for: drawn often, tokens
 * come at the softmax's probabilities exp(q_i s / T) / sum (computed here in float64, not by the sampler's table);
 * logits 256 or more codes below the largest never come; the 64-bit draw is exact; bad temperatures and seeds refused.
 */

function frequencies(logits: number[], temperature: number, scale: number, seed: number, draws: number): number[] {
  const choose = sampler(sampling(temperature, seed, scale));
  const count = logits.map(() => 0);
  for (let k = 0; k < draws; k++) count[choose(logits)]++;
  return count.map((c) => c / draws);
}

function softmax(logits: number[], temperature: number, scale: number): number[] {
  const e = logits.map((q) => Math.exp((q * scale) / temperature));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / sum);
}

test('drawn 40,000 times, the tokens come at the softmax\'s probabilities (within 0.01)', () => {
  for (const [logits, temperature, scale] of [[[0, -3, 5, 5, -100, 2], 0.5, 0.1], [[10, 12, -7, 0], 1.7, 0.25], [[-128, 127, 120, 100], 2, 0.05]] as [number[], number, number][]) {
    const got = frequencies(logits, temperature, scale, 9, 40000);
    const want = softmax(logits, temperature, scale);
    got.forEach((p, i) => assert.ok(Math.abs(p - want[i]) < 0.01, `logits ${logits}, T ${temperature}: token ${i} at ${p}, expected ${want[i]}`));
  }
});

test('the largest logit weighs 2^16; one 256 or more codes below it weighs 0 and never comes (int16 logits)', () => {
  const s = sampling(1000, 1, 1);
  assert.is(s.table[0], SAMPLING_ONE);
  assert.is(s.table.length, 256);
  assert.equal(frequencies([0, -255, -256, -1000], 1000, 1, 3, 4000).slice(2), [0, 0]);
  assert.equal(samplingBlock(sampling(1, 4294967295, 1)).slice(0, 2), [1, -1], 'the block: on, the seed as int32');
});

test('the same seed draws the same tokens; another seed others', () => {
  const logits = [3, 1, 4, 1, 5, 9, 2, 6];
  const draw = (seed: number): number[] => {
    const choose = sampler(sampling(8, seed, 1));
    return Array.from({ length: 32 }, () => choose(logits));
  };
  assert.equal(draw(42), draw(42));
  assert.not.equal(draw(42), draw(43));
});

test('a draw on a running sum\'s boundary takes the next token: the first sum strictly above u', () => {
  // Two equal logits weigh 2^16 each: total 2^17, u = r >> 15. A seed whose first r is in [2^31, 2^31 + 2^15) gives
  // u = 2^16 = w_0 exactly: token 0's sum is not above u, so the draw is token 1.
  let seed = 0;
  while ((mulberry32(seed).r >>> 15) !== 65536) seed++;
  assert.is(sampler(sampling(1, seed, 1))([7, 7]), 1);
  // Four: total 2^18, u = r >> 14 = 2^17 or 2^17 + 1, at or just past token 1's sum 2^17: token 2.
  assert.is(sampler(sampling(1, seed, 1))([7, 7, 7, 7]), 2);
});

test('the draw u = (r * total) >> 32 is exact past 2^53', () => {
  // (2^32 - 1)^2 = 2^64 - 2^33 + 1: its top 32 bits are 2^32 - 2.
  assert.is(scaledDraw(0xffffffff, 0xffffffff), 4294967294);
  assert.is(scaledDraw(0x80000000, 3), 1);
  assert.is(scaledDraw(0, 65536), 0);
});

test('bad temperatures and seeds are refused', () => {
  for (const t of [0, -1, NaN, Infinity]) assert.match(genError(() => sampling(t, 0, 1)), /expected a number > 0/);
  for (const seed of [-1, 1.5, 4294967296, NaN]) assert.match(genError(() => sampling(1, seed, 1)), /expected a whole number from 0 to 4294967295/);
});

test.run();
