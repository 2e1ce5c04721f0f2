import { GenError } from '../errors.js';

/*
 * Sampling the next token with a temperature, seeded, the same in the reference and in `gen run` (both call this in
 * one process, so a seed gives the same tokens): p_i proportional to exp((x_i - max) / T) over the dequantized
 * logits x_i = q_i * scale, one uniform draw u in [0, 1) (mulberry32, 32-bit state), the first token whose
 * cumulative probability exceeds u * sum.
 */

export type Choose = (logits: ArrayLike<number>) => number;

export function sampler(temperature: number, seed: number, scale: number): Choose {
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new GenError('input', `temperature ${temperature}: expected a number > 0`);
  if (!(scale > 0)) throw new GenError('input', `logits scale ${scale}: expected a number > 0`);
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (logits) => {
    let max = -Infinity;
    for (let i = 0; i < logits.length; i++) max = Math.max(max, logits[i]);
    const w = Array.from(logits, (q) => Math.exp(((q - max) * scale) / temperature));
    const total = w.reduce((a, b) => a + b, 0);
    const u = uniform() * total;
    let acc = 0;
    for (let i = 0; i < w.length; i++) {
      acc += w[i];
      if (acc > u) return i;
    }
    return w.length - 1;
  };
}
