import { GenError } from '../errors.js';

/*
 * Seeded sampling with a temperature in integers only, so that a bare-metal core runs it exactly (docs/llm.md,
 * "Sampling"): the same function here (the reference, `gen run --host-loop`) and in the firmware's generation loop
 * (templates network.c / network.ts), token for token.
 *
 * The host computes once, in float64, a table of 256 weights W[d] = round(2^16 exp(-d s / T)) for d = 0..255 (s the
 * logits' scale, T the temperature); W[0] = 2^16. Per token, over the integer logit codes q_i:
 *   m = max q_i;  w_i = W[m - q_i] if m - q_i < 256, else 0;  total = sum w_i  (< 2^32: at most 65535 tokens);
 *   the PRNG state advances (mulberry32, 32-bit: below) and gives r in [0, 2^32);
 *   u = (r * total) >> 32 (a 64-bit product);  the token is the first i with w_0 + .. + w_i > u.
 */

/** Entries of the weight table: logit differences 0..255 (an int8 logit's whole range). */
export const SAMPLING_TABLE = 256;
/** W[0], the weight of the largest logit: 2^16. */
export const SAMPLING_ONE = 65536;
/** The most tokens a sampler takes: total = sum of weights stays below 2^32. */
export const SAMPLING_MAX_VOCAB = 65535;

export type Choose = (logits: ArrayLike<number>) => number;

/** What a sampled generation needs: the integer weight table and the PRNG's seed (its first state). */
export interface Sampling {
  temperature: number;
  seed: number;
  table: number[];
}

/** Checks the temperature and the seed (one-line errors) and computes the weight table for the logits' scale. */
export function sampling(temperature: number, seed: number, scale: number): Sampling {
  if (!(temperature > 0) || !Number.isFinite(temperature)) throw new GenError('input', `temperature ${temperature}: expected a number > 0`);
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) throw new GenError('input', `seed ${seed}: expected a whole number from 0 to 4294967295`);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new GenError('input', `logits scale ${scale}: expected a number > 0`);
  const table = Array.from({ length: SAMPLING_TABLE }, (_, d) => Math.round(SAMPLING_ONE * Math.exp((-d * scale) / temperature)));
  return { temperature, seed, table };
}

/** The firmware's sampling block (ir/state.ts): [on, PRNG state, W[0..255]], as int32. */
export function samplingBlock(s: Sampling): number[] {
  return [1, s.seed | 0, ...s.table]; // the state as the int32 the block holds
}

/** mulberry32's step: the next state and its output, both uint32 (32-bit integer operations only). */
export function mulberry32(state: number): { state: number; r: number } {
  const next = (state + 0x6d2b79f5) >>> 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 15), z | 1);
  z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
  return { state: next, r: (z ^ (z >>> 14)) >>> 0 };
}

/** The draw u = (r * total) >> 32, exact (the product needs 64 bits). */
export function scaledDraw(r: number, total: number): number {
  return Number((BigInt(r) * BigInt(total)) >> 32n);
}

/** A stateful chooser over integer logit codes: each call draws once. */
export function sampler(s: Sampling): Choose {
  let state = s.seed;
  return (logits) => {
    if (logits.length > SAMPLING_MAX_VOCAB) throw new GenError('input', `sampling takes at most ${SAMPLING_MAX_VOCAB} tokens, not ${logits.length}`);
    let max = logits[0];
    for (let i = 1; i < logits.length; i++) if (logits[i] > max) max = logits[i];
    const weight = (q: number): number => (max - q < SAMPLING_TABLE ? s.table[max - q] : 0);
    let total = 0;
    for (let i = 0; i < logits.length; i++) total += weight(logits[i]);
    const step = mulberry32(state);
    state = step.state;
    const u = scaledDraw(step.r, total);
    let acc = 0;
    for (let i = 0; i < logits.length; i++) {
      acc += weight(logits[i]);
      if (acc > u) return i;
    }
    throw new GenError('internal', 'the sampler found no token (weights summing to 0)');
  };
}
