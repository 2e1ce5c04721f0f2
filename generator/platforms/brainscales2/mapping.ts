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

/**
 * The share of a layer's nonzero input values on the calibration samples that may round past 31 at the shift the
 * samples choose. ASSUMPTION (not fitted to the examples): a clipped input moves every sum it enters, so it is held
 * well below the outputs' 1 in 20 (SAMPLE_CLIP_ONE_IN).
 */
export const INPUT_CLIP_ONE_IN = 1000;

/**
 * The input shift from the values a layer's inputs take on the calibration samples: the smallest k, at most `bound`
 * (the type range's inputShift), at which at most 1 in INPUT_CLIP_ONE_IN of the nonzero values round (as the
 * conversion does, (x + 2^(k-1)) >> k) past 31. Inputs that use a small part of their type's range then send more
 * of their bits (a ReLU's uint8 output that stays under 64: k 1 instead of 3). No nonzero value: `bound`.
 */
export function sampledInputShift(values: readonly ArrayLike<number>[], bound: number): number {
  const counts = new Map<number, number>();
  let nonzero = 0;
  for (const a of values) {
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v <= 0) continue;
      nonzero++;
      counts.set(v, (counts.get(v) ?? 0) + 1);
    }
  }
  if (nonzero === 0) return bound;
  const allowed = Math.floor(nonzero / INPUT_CLIP_ONE_IN);
  for (let k = 0; k < bound; k++) {
    const half = k > 0 ? 2 ** (k - 1) : 0;
    let past = 0;
    for (const [v, c] of counts) if (Math.floor((v + half) / 2 ** k) > INPUT_MAX) past += c;
    if (past <= allowed) return k;
  }
  return bound;
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
 * the largest over the blocks and columns. ASSUMPTION: activations fill their 5-bit range evenly. The choice when
 * no calibration samples are given (sampleSpread otherwise).
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

/**
 * The sample-based choice (docs/brainscales2.md "Mapping"): of a layer's output values on the calibration samples, the
 * share whose useful peak (outputPeaks) may exceed the 8-bit range (1 in 20), and the headroom kept above the rest for
 * the chip's gain spread (10 %). Measured on the HAR and Fashion-MNIST examples (3 chips, noise 0 and 2 LSB): 1 in
 * 100 or 1000 leaves too few levels against the 2 LSB of temporal noise (Fashion-MNIST 80-86 % instead of 87 %); 1 in
 * 20 lets 0-4 % of the outputs clip where the layer's output could tell.
 */
export const SAMPLE_CLIP_ONE_IN = 20;
export const SAMPLE_HEADROOM = 1.1;

/**
 * Per column, the interval of x5 . w6 (the chip's integer scale, before num_sends and gain) whose values the layer's
 * output can tell apart: beyond it the int8 model's own requantization saturates (a ReLU's negative sums, logits past
 * the int8 edge), so an analog sum clipped there changes nothing. acc = dot * 2^k / scale_n + bias_n gives the output
 * `clip((acc * mul_n + add_n + 2^(s-1)) >> s, out)`; its edges out.min and out.max are reached at acc =
 * (edge * 2^s - add_n - 2^(s-1)) / mul_n. A column with mul_n = 0 has an empty interval (its output is a constant).
 */
export function usefulSums(p: { mul: readonly number[]; add: readonly number[]; bias: readonly number[]; shift: number; k: number; scales: readonly number[]; out: { min: number; max: number } }): { lo: number[]; hi: number[] } {
  const round = p.shift > 0 ? 2 ** (p.shift - 1) : 0;
  const dot = (edge: number, n: number): number => (((edge * 2 ** p.shift - p.add[n] - round) / p.mul[n] - p.bias[n]) * p.scales[n]) / 2 ** p.k;
  const lo: number[] = [];
  const hi: number[] = [];
  p.scales.forEach((_, n) => {
    const [a, b] = p.mul[n] === 0 ? [0, 0] : [dot(p.out.min, n), dot(p.out.max, n)];
    lo.push(Math.min(a, b));
    hi.push(Math.max(a, b));
  });
  return { lo, hi };
}

/**
 * Per output value (row m, column n) of x5 [M, K] by w [K, N]: the largest magnitude the chip must represent for it
 * (|x5 . w| on the chip's integer scale, before num_sends and gain). The total of its block sums (the digital sum,
 * clipped to int8 again) held to the column's useful interval (usefulSums): where the total lies inside, each block
 * sum too (128 signed rows, one analog run each: a clipped block moves the total); outside, only the interval's edge
 * (the layer saturates whatever the blocks give).
 */
export function outputPeaks(x5: ArrayLike<number>, M: number, w: ArrayLike<number>, K: number, N: number, useful: { lo: readonly number[]; hi: readonly number[] }): Float64Array {
  const peaks = new Float64Array(M * N);
  const block = new Float64Array(N);
  const total = new Float64Array(N);
  const blockMax = new Float64Array(N);
  for (let m = 0; m < M; m++) {
    total.fill(0);
    blockMax.fill(0);
    for (let r0 = 0; r0 < K; r0 += SIGNED_ROWS) {
      block.fill(0);
      for (let k = r0; k < Math.min(K, r0 + SIGNED_ROWS); k++) {
        const x = x5[m * K + k];
        if (x === 0) continue;
        for (let n = 0; n < N; n++) block[n] += x * w[k * N + n];
      }
      for (let n = 0; n < N; n++) {
        blockMax[n] = Math.max(blockMax[n], Math.abs(block[n]));
        total[n] += block[n];
      }
    }
    for (let n = 0; n < N; n++) {
      const { lo, hi } = { lo: useful.lo[n], hi: useful.hi[n] };
      const t = total[n];
      peaks[m * N + n] = t >= lo && t <= hi ? Math.max(Math.abs(t), blockMax[n]) : Math.abs(t < lo ? lo : hi);
    }
  }
  return peaks;
}

/**
 * The magnitude that should land at the edge of the int8 range, from the peaks of every calibration sample: of the
 * nonzero peaks (a zero never clips: an all-zero input, a padding column), sorted ascending, the one at rank
 * count - floor(count / 1000) (1-based), so that at most 1 in 1000 lies above it; times SAMPLE_HEADROOM. 0 when
 * every peak is 0 (the samples say nothing: the caller falls back to the input-free bound).
 */
export function sampleSpread(peaks: readonly Float64Array[]): number {
  const count = peaks.reduce((c, p) => c + p.reduce((z, v) => z + (v > 0 ? 1 : 0), 0), 0);
  if (count === 0) return 0;
  const all = new Float64Array(count);
  let i = 0;
  for (const p of peaks) for (const v of p) if (v > 0) all[i++] = v;
  all.sort();
  return all[count - Math.floor(count / SAMPLE_CLIP_ONE_IN) - 1] * SAMPLE_HEADROOM;
}

/** num_sends in 1..255 so that `spread * num_sends * gain` stays within 127: the largest that does, at least 1. */
export function numSendsFor(spread: number, gain: number): number {
  if (spread === 0) return 1;
  return Math.max(1, Math.min(255, Math.floor(127 / (spread * gain))));
}

/**
 * The factor the 6-bit weights are scaled by so that `spread` fits the int8 range at one send: 1 when it already
 * does, else 127 / (spread * gain) (sums larger than even num_sends 1 allows: the weights give up resolution rather
 * than the outputs clip).
 */
export function weightShrink(spread: number, gain: number): number {
  return spread * gain <= 127 ? 1 : 127 / (spread * gain);
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
