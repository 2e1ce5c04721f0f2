/**
 * How an int8 layer `y = requant(x . B + bias)` is put on the analog core (docs/brainscales2.md "Mapping"): the
 * inputs rounded to 5 bits, the weights scaled per column to the 6-bit range, num_sends chosen so that the analog
 * outputs use the 8-bit range, and the digital requantization that takes the analog outputs back to the layer's own
 * output scale. Pure functions of the constants: the pass (lower-analog.ts) applies them.
 */
import { COLUMNS, INPUT_MAX, SIGNED_ROWS, WEIGHT_MAX } from './analog/constants.js';

/**
 * Right shift that brings inputs of at most `max` into [0, 31]: the smallest k with max >> k <= 31 (the conversion
 * rounds, (x + 2^(k-1)) >> k, and clips the few values that round up to 32).
 */
export function inputShift(max: number): number {
  let k = 0;
  while (Math.floor(max / 2 ** k) > INPUT_MAX) k++;
  return k;
}

/** Per column n of B (K x N, row-major): the factor to 6 bits (63 / max |B[., n]|, 1 for an all-zero column). */
export function weightScales(b: ArrayLike<number>, K: number, N: number): number[] {
  const s: number[] = [];
  for (let n = 0; n < N; n++) {
    let m = 0;
    for (let k = 0; k < K; k++) m = Math.max(m, Math.abs(b[k * N + n]));
    s.push(m === 0 ? 1 : WEIGHT_MAX / m);
  }
  return s;
}

export function scaledWeights(b: ArrayLike<number>, K: number, N: number, scales: readonly number[]): number[] {
  const w: number[] = new Array(K * N);
  for (let k = 0; k < K; k++) {
    for (let n = 0; n < N; n++) {
      const v = Math.round(b[k * N + n] * scales[n]);
      w[k * N + n] = Math.max(-WEIGHT_MAX, Math.min(WEIGHT_MAX, v));
    }
  }
  return w;
}

/**
 * The spread of one block's analog sum that should land at the edge of the int8 range: three standard deviations of
 * x5 . w for inputs spread uniformly over [0, 31] (root mean square 17.9, taken as 18) and the block's weights,
 * the largest over the blocks and columns. ASSUMPTION: activations fill their 5-bit range evenly; there is no
 * calibration on sample inputs yet (docs/brainscales2.md "Left").
 */
export function blockSpread(w: ArrayLike<number>, K: number, N: number): number {
  let worst = 0;
  for (let r0 = 0; r0 < K; r0 += SIGNED_ROWS) {
    for (let n = 0; n < N; n++) {
      let sq = 0;
      for (let k = r0; k < Math.min(K, r0 + SIGNED_ROWS); k++) sq += w[k * N + n] ** 2;
      worst = Math.max(worst, 3 * 18 * Math.sqrt(sq));
    }
  }
  return worst;
}

/** num_sends in 1..255 so that `spread * num_sends * gain` stays within 127: the largest that does, at least 1. */
export function numSendsFor(spread: number, gain: number): number {
  if (spread === 0) return 1;
  return Math.max(1, Math.min(255, Math.floor(127 / (spread * gain))));
}

export interface Rescale {
  /** Per column: the integer multiplier of the analog output. */
  mul: number[];
  /** Per column: the integer added before the shift (bias and the layer's add, scaled). */
  add: number[];
  /** The total right shift (the layer's own plus the extra bits of precision). */
  shift: number;
}

/**
 * The requantization of the analog output v: the layer computed `(acc * mul_n + add_n) >> s` with acc = x . B + bias;
 * the core gives v ~ num_sends * gain * (x / 2^k) . (B * scale_n), so acc ~ v * 2^k / (num_sends * gain * scale_n) +
 * bias_n, which becomes `(v * mul'_n + add'_n) >> (s + e)`. e is the largest in [-s, 24] that keeps every value inside
 * int32 for v in [-128, 127] and the multiplier within 16 bits (v has 8: more buys nothing); a negative e (a layer
 * whose own multipliers are large) rounds add' to an integer. Undefined when even e = -s leaves int32.
 */
export function rescale(p: { mul: readonly number[]; add: readonly number[]; bias: readonly number[]; shift: number; k: number; numSends: number; gain: number; scales: readonly number[] }): Rescale | undefined {
  const N = p.scales.length;
  const real = p.scales.map((s, n) => (p.mul[n] * 2 ** p.k) / (p.numSends * p.gain * s));
  const base = p.scales.map((_, n) => p.bias[n] * p.mul[n] + p.add[n]);
  const fits = (e: number): boolean => {
    const round = p.shift + e > 0 ? 2 ** (p.shift + e - 1) : 0;
    return real.every((m, n) => 128 * Math.abs(Math.round(m * 2 ** e)) + Math.abs(Math.round(base[n] * 2 ** e)) + round < 2 ** 31);
  };
  const largest = Math.max(...real.map(Math.abs));
  let e = 24;
  while (e > -p.shift && !(fits(e) && largest * 2 ** e <= 2 ** 16)) e--;
  if (!fits(e)) return undefined;
  return {
    mul: Array.from({ length: N }, (_, n) => Math.round(real[n] * 2 ** e)),
    add: Array.from({ length: N }, (_, n) => Math.round(base[n] * 2 ** e)),
    shift: p.shift + e,
  };
}

export function blocksOf(K: number, N: number): { rows: number; cols: number } {
  return { rows: Math.ceil(K / SIGNED_ROWS), cols: Math.ceil(N / COLUMNS) };
}
