/**
 * Calibration samples for the analog mapping (`--analog-samples`, docs/brainscales2.md "Mapping"): the integer
 * model's inputs, on which each analog layer's block sums are computed so that num_sends fits the sums the layer
 * actually meets (mapping.ts sampleSpread) instead of the input-free bound.
 */
import { GenError, quoted } from '../../errors.js';
import { isIntType, rangeOf } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { formatShape, sizeOf, type NDArray } from '../../ir/ndarray.js';
import { valueRange } from '../../kernels/common.js';
import { readNpz } from '../../onnx/npy.js';
import { runBatched } from '../../quantize/batch.js';
import { im2colOp } from '../../reference/ops/im2col.js';
import { requantShift } from '../../reference/ops/requant-shift.js';
import { INPUT_MAX } from './analog/constants.js';
import { outputPeaks, sampledInputShift, sampleSpread } from './mapping.js';

export interface AnalogSamples {
  /** Where they came from, for messages: the file, or "(from code)". */
  source: string;
  /** One array per graph input, the samples along axis 0 (each sample the input's shape with batch 1). */
  arrays: NDArray[];
}

/** One analog layer as the sums need it: its input tensor, a convolution's unfolding, the mapping's k and W6. */
export interface SampledLayer {
  x: string;
  /** A convolution: the Im2col attributes and the input's shape as [C, H, W] (1-D: H = 1). */
  conv?: { attrs: Node['attrs']; C: number; H: number; W: number };
  k: number;
  w6: readonly number[];
  K: number;
  N: number;
  /** Per column, the sums the layer's output can tell apart (mapping.ts usefulSums). */
  useful: { lo: number[]; hi: number[] };
}

/**
 * The option's value: a .npz file (one array per graph input, as `gen forward --inputs`), or the arrays from code
 * (`source` names them in messages).
 */
export function analogSamples(value: unknown, from = '(from code)'): AnalogSamples {
  let arrays: NDArray[];
  let source = from;
  if (typeof value === 'string') {
    source = value;
    try {
      arrays = [...readNpz(value).values()];
    } catch (e) {
      throw new GenError('input', `--analog-samples ${value}: ${e instanceof GenError ? e.reason : (e as Error).message.split('\n')[0]}`);
    }
  } else if (Array.isArray(value) && value.every((a) => a && Array.isArray(a.shape) && a.data && typeof a.data.length === 'number')) {
    arrays = value as NDArray[];
  } else {
    throw new GenError('input', '--analog-samples: a .npz file of the integer model\'s inputs');
  }
  const count = arrays[0]?.shape[0] ?? 0;
  if (arrays.length === 0 || !(count >= 1) || arrays.some((a) => a.shape[0] !== count)) {
    throw new GenError('input', `--analog-samples ${source}: every array must hold the same number (>= 1) of samples along its first axis`);
  }
  arrays.forEach((a, i) => {
    const bad = Array.prototype.findIndex.call(a.data, (v: number) => !Number.isInteger(v));
    if (bad >= 0) {
      throw new GenError('input', `--analog-samples ${source}: array ${i} holds a non-integer value (element ${bad}: ${a.data[bad]}); ` +
        'the samples are the integer model\'s inputs');
    }
  });
  return { source, arrays };
}

/** The samples one by one (batch 1), each array checked against the graph input it stands for. */
function samplesFor(g: Graph, s: AnalogSamples): NDArray[][] {
  const fail = (why: string): never => {
    throw new GenError('input', `--analog-samples ${s.source}: ${why}`);
  };
  if (s.arrays.length !== g.inputs.length) fail(`holds ${s.arrays.length} arrays, the model has ${g.inputs.length} inputs`);
  const count = s.arrays[0].shape[0];
  const shapes = g.inputs.map((name, i) => {
    const t = g.tensors.get(name)!;
    const a = s.arrays[i];
    if (a.data.length / count !== sizeOf(t.shape)) {
      fail(`array ${i} has shape ${formatShape(a.shape)}, ${a.data.length / count} elements per sample; input ${quoted(name)} declares ${formatShape(t.shape)}`);
    }
    // the input's type, not its inferred range (sample inputs beside the model may have set a narrower one)
    const r = isIntType(t.dtype) ? rangeOf(t.dtype) : valueRange(t);
    const out = Array.prototype.findIndex.call(a.data, (v: number) => v < r.min || v > r.max);
    if (out >= 0) fail(`array ${i}, element ${out}: ${a.data[out]} is outside input ${quoted(name)}'s ${t.dtype} range [${r.min}, ${r.max}]`);
    return t.shape;
  });
  const one = (i: number): number => s.arrays[i].data.length / count;
  return Array.from({ length: count }, (_, n) => s.arrays.map((a, i) => ({ dtype: a.dtype, shape: shapes[i], data: a.data.subarray(n * one(i), (n + 1) * one(i)) })));
}

/** A layer's input values as the arrays' 5-bit rows: the conversion of lower-analog.ts, then a convolution's windows. */
function fiveBitRows(l: SampledLayer, x: NDArray): Float64Array {
  const x5 = Float64Array.from(x.data, (v) => requantShift(v, 1, 0, l.k, { min: 0, max: INPUT_MAX }));
  if (!l.conv) return x5;
  const { C, H, W } = l.conv;
  const n = x5.length / (C * H * W);
  const node = { name: 'samples', op: 'Im2col', domain: 'firmgen', inputs: [], outputs: [], attrs: l.conv.attrs } as Node;
  return Float64Array.from(im2colOp.evaluate(node, [{ dtype: 'uint8', shape: [n, C, H, W], data: x5 }])[0].data);
}

/**
 * Per layer, the mapping the calibration samples choose (docs/brainscales2.md "Mapping"), from the int8 model's own
 * activations on them (the graph before the lowering, on the reference interpreter): the choice belongs to the model,
 * the same for every chip and noise. First the input shift (mapping.ts sampledInputShift: the layer's inputs as they
 * occur, not its type's range), the layer remapped with it by `reshift` where it changes; then the magnitude of its
 * sums that should land at the int8 edge (mapping.ts sampleSpread; 0: the samples give only zeros).
 */
export function sampleMapping<L extends SampledLayer>(g: Graph, s: AnalogSamples, layers: readonly L[], reshift: (i: number, k: number) => L): { layers: L[]; spreads: number[] } {
  // checked against the model's inputs even when no layer needs them: a file that does not fit is refused
  const samples = samplesFor(g, s);
  if (layers.length === 0) return { layers: [], spreads: [] };
  const names = [...new Set(layers.map((l) => l.x))];
  const inputs = new Map<string, NDArray[]>(names.map((n) => [n, []]));
  runBatched(g, samples, names, (values) => {
    for (const n of names) {
      const x = values.get(n)!;
      inputs.get(n)!.push({ ...x, data: x.data.slice() });
    }
  });
  const chosen = layers.map((l, i) => {
    const k = sampledInputShift(inputs.get(l.x)!.map((x) => x.data), l.k);
    return k === l.k ? l : reshift(i, k);
  });
  const spreads = chosen.map((l) => sampleSpread(inputs.get(l.x)!.map((x) => {
    const rows = fiveBitRows(l, x);
    return outputPeaks(rows, rows.length / l.K, l.w6, l.K, l.N, l.useful);
  })));
  return { layers: chosen, spreads };
}
