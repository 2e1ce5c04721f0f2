import { roundHalfEven } from '../reference/exact.js';
import { scaleFor } from './fixed-point.js';

/*
 * Activation quantization: from the values a tensor took on the calibration data to its clipping range and scale.
 * Activations are symmetric (zero point 0): int8 [-127, 127] scaled from max |x|, or uint8 [0, 255] for tensors
 * that cannot be negative (params.ts decides), which doubles the resolution for free. 16-bit tensors (the input of
 * an integer softmax) use [-32767, 32767]. The saturating range of the integer type is one code wider on the
 * negative side ([-128, 127]); the scale is chosen for the symmetric grid.
 *   minmax: the clipping range is the observed range.
 *   mse:    the clipping bound that minimises the mean squared quantize-dequantize error over the observed values,
 *           searched on a histogram of |x| (65536 bins) over 100 candidate bounds (max/100 .. max); with pow2
 *           scales the candidates are the powers of two near the min/max scale.
 */

export type Calibrate = 'minmax' | 'mse';

export interface Observed {
  min: number;
  max: number;
  /** The values seen (all of them, or a deterministic stride through them when there are very many). */
  values: Float32Array;
}

export interface ActivationQuant {
  scale: number;
  signed: boolean;
  /** 32: an index input (token ids), passed through unscaled (scale 1). */
  bits: 8 | 16 | 32;
  /** The integer range: [-qmax, qmax] signed, [0, qmax] unsigned. */
  qmax: number;
  /** The clipping range in real units: [-clip, clip] signed, [0, clip] unsigned. */
  clip: number;
}

/** Bins of the |x| histogram: at the smallest candidate bound (max/100) a grid step still spans 5 bins. */
const BINS = 1 << 16;
const CANDIDATES = 100;

function levels(signed: boolean, bits: 8 | 16 | 32): number {
  return bits === 32 ? 2147483647 : bits === 16 ? 32767 : signed ? 127 : 255;
}

/** Counts of |x| in BINS equal bins over [0, top]. */
function histogram(values: Float32Array, top: number): Float64Array {
  const h = new Float64Array(BINS);
  const k = BINS / top;
  for (let i = 0; i < values.length; i++) h[Math.min(BINS - 1, Math.floor(Math.abs(values[i]) * k))]++;
  return h;
}

/** Squared quantize-dequantize error summed over the histogram (each bin at its centre) for one scale. */
function histogramError(h: Float64Array, top: number, scale: number, qmax: number): number {
  const width = top / BINS;
  let e = 0;
  for (let b = 0; b < BINS; b++) {
    if (h[b] === 0) continue; // most bins of a peaked distribution are empty
    const c = (b + 0.5) * width;
    const q = Math.min(qmax, roundHalfEven(c / scale)) * scale;
    e += h[b] * (c - q) * (c - q);
  }
  return e;
}

/** The quantization of a tensor from its observations. */
export function chooseActivation(o: Observed, calibrate: Calibrate, pow2: boolean, signed: boolean, bits: 8 | 16 = 8): ActivationQuant {
  const qmax = levels(signed, bits);
  const top = Math.max(Math.abs(o.min), Math.abs(o.max));
  const minmaxScale = scaleFor(top, qmax, pow2);
  let scale = minmaxScale;
  if (calibrate === 'mse' && top > 0 && o.values.length > 0) {
    const h = histogram(o.values, top);
    const candidates: number[] = [];
    if (pow2) {
      for (let k = 0; k <= 8; k++) candidates.push(Math.fround(minmaxScale / 2 ** k));
    } else {
      for (let i = CANDIDATES; i >= 1; i--) candidates.push(scaleFor((top * i) / CANDIDATES, qmax, false));
    }
    let best = Infinity;
    for (const s of candidates) {
      const e = histogramError(h, top, s, qmax);
      // Strictly better only: ties keep the wider range (fewer clipped outliers on unseen data).
      if (e < best) {
        best = e;
        scale = s;
      }
    }
  }
  return { scale, signed, bits, qmax, clip: scale * qmax };
}

/** The quantization of a tensor whose scale is fixed by its meaning (softmax probabilities: 1/255, uint8). */
export function fixedActivation(scale: number, signed: boolean, bits: 8 | 16 | 32 = 8): ActivationQuant {
  const qmax = levels(signed, bits);
  const s = Math.fround(scale);
  return { scale: s, signed, bits, qmax, clip: s * qmax };
}
