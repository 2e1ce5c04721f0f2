import { GenError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { formatShape, ndarray, sizeOf, type NDArray } from '../ir/ndarray.js';
import { CHUNK, runBatched } from './batch.js';
import type { Observed } from './clipping.js';

/*
 * Calibration: the float model runs in the reference interpreter on every calibration sample (in batches,
 * batch.ts); the quantizer keeps, per tensor it will quantize, the range and the values seen (for the MSE search and
 * the SQNR report), and per linear layer the mean of its pre-activation output per channel (bias correction).
 */

/** Values kept per tensor at most (4 bytes each); later batches still widen min/max but are not stored. */
const MAX_STORED = 1 << 23;

/**
 * One sample per leading index: an array shaped like the model input is one sample; an array [N, ...] whose
 * trailing dims match an input of batch 1 is N samples. Arrays match graph inputs in order; extra arrays (labels)
 * are ignored.
 */
export function splitSamples(g: Graph, arrays: NDArray[], source: string): NDArray[][] {
  if (arrays.length < g.inputs.length) {
    throw new GenError('input', `holds ${arrays.length} arrays, the model has ${g.inputs.length} inputs`, { file: source });
  }
  const per = g.inputs.map((name, i) => {
    const want = g.tensors.get(name)?.shape ?? [];
    const a = arrays[i];
    if (a.shape.length === want.length && a.shape.every((d, k) => d === want[k])) return [a];
    if (a.shape.length === want.length && want[0] === 1 && a.shape.slice(1).every((d, k) => d === want[k + 1])) {
      const n = sizeOf(want);
      const dtype = g.tensors.get(name)?.dtype === 'float32' ? 'float32' : a.dtype; // token ids stay integers
      return Array.from({ length: a.shape[0] }, (_, s) => ndarray(dtype, want, a.data.subarray(s * n, (s + 1) * n)));
    }
    throw new GenError('input', `array ${i} has shape ${formatShape(a.shape)}; input '${name}' needs ${formatShape(want)} or [N, ${want.slice(1).join(', ')}]`, { file: source });
  });
  const count = per[0].length;
  if (per.some((p) => p.length !== count)) throw new GenError('input', 'the arrays hold different numbers of samples', { file: source });
  if (count === 0) throw new GenError('input', 'no calibration samples', { file: source });
  return Array.from({ length: count }, (_, s) => per.map((p) => p[s]));
}

export interface ChannelMean {
  tensor: string;
  /** Axis of the tensor that holds channels. */
  axis: number;
}

export interface Calibration {
  observed: Map<string, Observed>;
  /** Per-channel means of the requested tensors over the first `meanSamples` samples and all positions. */
  means: Map<string, Float64Array>;
  meanSamples: number;
  samples: number;
}

/** Per-channel sums of one array along `axis`, added into `acc`; returns the count per channel. */
export function addChannelSums(a: NDArray, axis: number, acc: Float64Array): number {
  const inner = sizeOf(a.shape.slice(axis + 1));
  const c = a.shape[axis];
  for (let i = 0; i < a.data.length; i++) acc[Math.floor(i / inner) % c] += a.data[i];
  return a.data.length / c;
}

/**
 * Samples the per-channel means are taken over: bias correction re-runs the integer model on these once per layer,
 * so fewer samples make it cheaper (a mean over 64 images and every position is steady). One run's worth.
 */
export const MEAN_SAMPLES = CHUNK;

/** Per tensor, the range and (up to MAX_STORED values) the values of the runs it is shown, in order. */
export class Observer {
  private readonly stored: Map<string, Float32Array[]>;
  private readonly ranges: Map<string, { min: number; max: number; kept: number }>;

  constructor(private readonly tensors: string[]) {
    this.stored = new Map(tensors.map((t) => [t, []]));
    this.ranges = new Map(tensors.map((t) => [t, { min: Infinity, max: -Infinity, kept: 0 }]));
  }

  add(values: Map<string, NDArray>): void {
    for (const t of this.tensors) {
      const v = values.get(t);
      if (!v) throw new GenError('internal', `calibration produced no value for '${t}'`);
      const r = this.ranges.get(t)!;
      for (const x of v.data) {
        if (x < r.min) r.min = x;
        if (x > r.max) r.max = x;
      }
      if (r.kept + v.data.length <= MAX_STORED) {
        this.stored.get(t)!.push(Float32Array.from(v.data));
        r.kept += v.data.length;
      }
    }
  }

  observed(): Map<string, Observed> {
    const observed = new Map<string, Observed>();
    for (const t of this.tensors) {
      const r = this.ranges.get(t)!;
      const values = new Float32Array(r.kept);
      let o = 0;
      for (const c of this.stored.get(t)!) {
        values.set(c, o);
        o += c.length;
      }
      observed.set(t, { min: r.min, max: r.max, values });
    }
    return observed;
  }
}

export function calibrate(g: Graph, samples: NDArray[][], tensors: string[], means: ChannelMean[]): Calibration {
  const meanSamples = Math.min(MEAN_SAMPLES, samples.length);
  let seen = 0;
  const observer = new Observer(tensors);
  const sums = new Map<string, { acc: Float64Array; count: number }>();
  runBatched(g, samples, [...tensors, ...means.map((m) => m.tensor)], (values, count) => {
    observer.add(values);
    // Batches hold MEAN_SAMPLES samples (or one), so the means cover exactly the first meanSamples.
    const inMeans = seen < meanSamples;
    seen += count;
    if (!inMeans) return;
    for (const m of means) {
      const v = values.get(m.tensor)!;
      const e = sums.get(m.tensor) ?? { acc: new Float64Array(v.shape[m.axis]), count: 0 };
      e.count += addChannelSums(v, m.axis, e.acc);
      sums.set(m.tensor, e);
    }
  });
  const meanMap = new Map([...sums].map(([t, e]) => [t, e.acc.map((v) => v / e.count)]));
  return { observed: observer.observed(), means: meanMap, meanSamples, samples: samples.length };
}
