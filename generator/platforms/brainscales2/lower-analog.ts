import { attrInt, attrInts, attrLog2 } from '../../ir/attrs.js';
import type { DType, IntRange } from '../../ir/dtype.js';
import { consumersOf, tensorOf } from '../../ir/graph.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { fusedNames, tensorBuilder } from '../../frontend/edit.js';
import { valueRange } from '../../kernels/common.js';
import { ARRAYS, DEFAULT_GAIN, DEFAULT_WAIT_BETWEEN_EVENTS } from './analog/constants.js';
import { blocksOf, blockSpread, inputShift, numSendsFor, rescale, scaledWeights, weightScales, usefulSums, weightShrink, type Rescale } from './mapping.js';
import { requantParams } from '../../reference/ops/requant-shift.js';
import { sampleMapping, type AnalogSamples, type SampledLayer } from './samples.js';

/** The emulated chip and its noise, from the platform's options (platform.ts). */
export interface AnalogOptions {
  /** false: every layer stays digital (on the core), exactly the int8 model. */
  analog: boolean;
  chipSeed: number;
  fixedPattern: boolean;
  noiseSeed: number;
  noiseStd: number;
  /**
   * Per analog layer (in model order), per output column: the affine correction `a * v + b` of the analog outputs
   * fitted on the emulated chip (calibrate.ts), folded into the rescale. Absent: none.
   */
  corrections?: Correction[];
  /**
   * Calibration samples (the integer model's inputs): num_sends chosen per layer on the sums they give (mapping.ts
   * sampleSpread). Absent: the input-free bound (blockSpread).
   */
  samples?: AnalogSamples;
}

export interface Correction {
  a: number[];
  b: number[];
}

/** The node op of an analog layer (domain firmgen): its semantics are generator/reference/ops/analog-matmul.ts. */
export const ANALOG_OP = 'Bss2Matmul';

/** A convolution as a matrix product: x [N, C, H, W] (1-D: H = 1) unfolded into rows of C x KH x KW. */
interface Unfolding {
  oneD: boolean;
  N: number; C: number; H: number; W: number; O: number; OH: number; OW: number;
  attrs: Node['attrs'];
}

interface Product {
  /** The activation: [M, K] for a product, the convolution's input for a convolution (unfolded first). */
  x: Tensor;
  conv?: Unfolding;
  /** The weights as K x N row-major, the bias per column (output channel). */
  b: number[];
  bias: number[];
  M: number;
  K: number;
  N: number;
  requant: Node;
  mul: number[];
  add: number[];
}

/** One value per output column: a scalar broadcast, or N values (`lastAxis`: only along the last axis). */
const perColumn = (t: Tensor | undefined, N: number, lastAxis: boolean): number[] | string => {
  if (!t) return new Array<number>(N).fill(0);
  if (!t.data) return 'not constant';
  const d = t.data.data;
  if (d.length === 1) return new Array<number>(N).fill(d[0]);
  if (d.length === N && (!lastAxis || t.shape[t.shape.length - 1] === N)) return Array.from(d);
  return 'neither one value nor one per output column';
};

/** The activation's checks: what the arrays' 5-bit unsigned inputs (SEMANTICS.md 3) can take. */
function inputProblem(x: Tensor): string | null {
  if (x.dtype !== 'int8' && x.dtype !== 'uint8') return 'the input is neither int8 nor uint8';
  const r = valueRange(x);
  if (r.min < 0) return 'the input can be negative (the arrays take inputs in [0, 31])';
  if (r.max === 0) return 'the input is always 0';
  return null;
}

/** The RequantShift that alone reads `y`, with its per-column mul and add, or why there is none. */
function requantOf(g: Graph, y: string, N: number, consumers: Map<string, Node[]>, lastAxis: boolean): { requant: Node; mul: number[]; add: number[] } | string {
  const readers = consumers.get(y) ?? [];
  if (g.outputs.includes(y) || readers.length !== 1 || readers[0].op !== 'RequantShift' || readers[0].inputs[0] !== y) {
    return 'no RequantShift of its own follows (the analog outputs need one to reach the layer\'s scale)';
  }
  const r = readers[0];
  const mul = perColumn(tensorOf(g, r.inputs[1]), N, lastAxis);
  const add = perColumn(tensorOf(g, r.inputs[2]), N, lastAxis);
  if (typeof mul === 'string') return `the requantization's mul is ${mul}`;
  if (typeof add === 'string') return `the requantization's add is ${add}`;
  if (mul.some((m) => m < 0)) return 'a negative requantization multiplier';
  return { requant: r, mul, add };
}

/** A Gemm/MatMul with constant weights and its RequantShift, or why the analog core does not take it. */
function matmulOf(n: Node, g: Graph, consumers: Map<string, Node[]>): Product | string {
  const x = tensorOf(g, n.inputs[0]);
  const bt = tensorOf(g, n.inputs[1]);
  if (x.shape.length !== 2 || bt.shape.length !== 2) return 'the arrays take 2-D products';
  const bad = inputProblem(x);
  if (bad) return bad;
  if (!bt.data || bt.dtype !== 'int8') return 'the weights are not constant int8';
  const gemm = n.op === 'Gemm';
  if (gemm && (attrInt(n, 'transA', 0) !== 0 || attrInt(n, 'alpha', 1) !== 1 || attrInt(n, 'beta', 1) !== 1)) return 'a Gemm with transA, alpha or beta';
  const transB = gemm && attrInt(n, 'transB', 0) !== 0;
  const [M, K] = x.shape;
  const N = transB ? bt.shape[0] : bt.shape[1];
  const bd = bt.data.data;
  const b = Array.from({ length: K * N }, (_, i) => (transB ? bd[(i % N) * K + Math.floor(i / N)] : bd[i]));
  const bias = perColumn(n.inputs[2] ? tensorOf(g, n.inputs[2]) : undefined, N, true);
  if (typeof bias === 'string') return `the bias is ${bias}`;
  const rq = requantOf(g, n.outputs[0], N, consumers, true);
  if (typeof rq === 'string') return rq;
  return { x, b, bias, M, K, N, ...rq };
}

/** A 1-D or 2-D Conv (one group, constant int8 weights) and its RequantShift, unfolded, or why not. */
function convOf(n: Node, g: Graph, consumers: Map<string, Node[]>): Product | string {
  const x = tensorOf(g, n.inputs[0]);
  const w = tensorOf(g, n.inputs[1]);
  const y = tensorOf(g, n.outputs[0]);
  const oneD = x.shape.length === 3;
  if (x.shape.length !== 4 && !oneD) return 'the arrays take 1-D and 2-D convolutions';
  const bad = inputProblem(x);
  if (bad) return bad;
  if (!w.data || w.dtype !== 'int8') return 'the weights are not constant int8';
  if (attrInt(n, 'group', 1) !== 1) return 'a grouped convolution';
  const autoPad = n.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value}`;
  const [N, C, H, W] = oneD ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
  const [O, , KH, KW] = oneD ? [w.shape[0], w.shape[1], 1, w.shape[2]] : w.shape;
  const [OH, OW] = oneD ? [1, y.shape[2]] : [y.shape[2], y.shape[3]];
  const two = (name: string, d: number): number[] => (oneD ? [d, ...attrInts(n, name, [d])] : attrInts(n, name, [d, d]));
  const pads = oneD ? (([l, r]) => [0, l, 0, r])(attrInts(n, 'pads', [0, 0])) : attrInts(n, 'pads', [0, 0, 0, 0]);
  const K = C * KH * KW;
  // row (c, kh, kw) of the product's weights is the filters' own order: B[k][o] = W[o][k]
  const wd = w.data.data;
  const b = Array.from({ length: K * O }, (_, i) => wd[(i % O) * K + Math.floor(i / O)]);
  const bias = perColumn(n.inputs[2] ? tensorOf(g, n.inputs[2]) : undefined, O, false);
  if (typeof bias === 'string') return `the bias is ${bias}`;
  const rq = requantOf(g, n.outputs[0], O, consumers, false);
  if (typeof rq === 'string') return rq;
  const attrs: Node['attrs'] = {
    kernel_shape: { kind: 'ints', value: [KH, KW] }, strides: { kind: 'ints', value: two('strides', 1) },
    dilations: { kind: 'ints', value: two('dilations', 1) }, pads: { kind: 'ints', value: pads },
  };
  return { x, conv: { oneD, N, C, H, W, O, OH, OW, attrs }, b, bias, M: N * OH * OW, K, N: O, ...rq };
}

/**
 * The rescale with a layer's correction folded in: `((a v + b) * mul + add) >> s` = `(v * (a mul) + (b mul + add)) >> s`.
 * Without a correction (or one of another width, or one that would leave int32) the rescale as it is.
 */
function corrected(re: Rescale, c: Correction | undefined, N: number): Rescale {
  if (!c || c.a.length !== N || c.b.length !== N) return re;
  const mul = re.mul.map((m, n) => Math.round(m * c.a[n]));
  const add = re.add.map((v, n) => Math.round(v + re.mul[n] * c.b[n]));
  const round = re.shift > 0 ? 2 ** (re.shift - 1) : 0;
  const fits = mul.every((m, n) => Number.isFinite(m) && Number.isFinite(add[n]) && 128 * Math.abs(m) + Math.abs(add[n]) + round < 2 ** 31);
  return fits ? { mul, add, shift: re.shift } : re;
}

/** The mapping's input shift and 6-bit weights of a product (mapping.ts), and its input as the sample sums read it. */
function weightsOf(p: Product, k = inputShift(valueRange(p.x).max)): SampledLayer & { scales: number[] } {
  const scales = weightScales(p.b, p.K, p.N);
  const w6 = scaledWeights(p.b, p.K, p.N, scales);
  const c = p.conv;
  const useful = usefulSums({ ...p, shift: attrLog2(p.requant, 'div'), k, scales, out: requantParams(p.requant).range });
  return { x: p.x.name, k, scales, w6, K: p.K, N: p.N, useful, ...(c ? { conv: { attrs: c.attrs, C: c.C, H: c.H, W: c.W } } : {}) };
}

function productOf(n: Node, g: Graph, consumers: Map<string, Node[]>): Product | string {
  if (n.domain !== '') return 'not a product';
  if (n.op === 'Gemm' || n.op === 'MatMul') return matmulOf(n, g, consumers);
  if (n.op === 'Conv') return convOf(n, g, consumers);
  return 'not a product';
}

/**
 * The lowering onto the analog core (docs/brainscales2.md "Mapping"): each int8 Gemm/MatMul, or 1-D/2-D Conv, with
 * constant weights and a non-negative input, read only by its RequantShift, becomes
 *   x5 = RequantShift(x, 1, 0; div 2^k, 32 levels, unsigned)      inputs rounded to 5 bits (core)
 *   [Im2col(x5)]                                                   a convolution's windows as rows (core)
 *   v  = Bss2Matmul(x5, W6)                                        [row blocks, M, N] int8 from the arrays
 *   s  = ReduceSum(v, axis 0), Clip(s, -128, 127)                  the digital sum of row blocks (core; several blocks)
 *   y  = RequantShift(v or s, mul', add'; div 2^(s+e))             back to the layer's scale (core)
 *   [Reshape, Transpose, Reshape]                                  a convolution's [pixels, channels] back to NCHW (core)
 * W6 are the weights scaled per column to [-63, 63]; num_sends is chosen per layer for the 8-bit range
 * (mapping.ts). Block t of the model goes to array t mod 2 (the layer's first array is where the last layer left
 * off), its noise stream is seeded from the noise seed and the layer's index. Anything else is left to the core,
 * with the reason on engineNote.
 */
export function lowerAnalog(o: AnalogOptions): (g: Graph) => Graph {
  return (g: Graph): Graph => {
    if (!o.analog) return g;
    const tensors = new Map(g.tensors);
    const { fresh, add, constant } = tensorBuilder(tensors);
    const activation = (base: string, dtype: DType, shape: number[], range: IntRange): string =>
      add({ name: fresh(base), dtype, shape, range });
    const consumers = consumersOf(g);
    const replaced = new Map<Node, Node[]>();
    const dropped = new Set<Node>();
    const products = g.nodes.map((n) => ({ n, p: productOf(n, g, consumers) }));
    const analog = products.flatMap(({ n, p }) => (typeof p === 'string' ? [] : [{ n, p }]));
    const byRange = analog.map(({ p }) => weightsOf(p));
    // with calibration samples, each layer's input shift and num_sends from them (samples.ts sampleMapping)
    const sampled = o.samples ? sampleMapping(g, o.samples, byRange, (i, k) => weightsOf(analog[i].p, k)) : undefined;
    const mapped = new Map(analog.map(({ n }, i) => [n, sampled ? sampled.layers[i] : byRange[i]]));
    const spreads = new Map(analog.map(({ n }, i) => [n, sampled?.spreads[i] ?? 0]));
    let layer = 0;
    let block = 0;
    for (const { n, p } of products) {
      if (typeof p === 'string') {
        if (p !== 'not a product') replaced.set(n, [{ ...n, engineNote: `core: ${p}` }]);
        continue;
      }
      const { M, K, N } = p;
      const full = mapped.get(n)!;
      const k = full.k;
      // the calibration samples' sums where given (and not all zero), else the input-free bound
      const fromSamples = spreads.get(n)! > 0;
      const spread = fromSamples ? spreads.get(n)! : blockSpread(full.w6, K, N);
      // sums that overfill the range even at one send: the weights scaled below 6 bits (the input-free bound never
      // gets there: 3 * 18 * 63 * sqrt(128) * gain = 77 < 127)
      const shrink = weightShrink(spread, DEFAULT_GAIN);
      const scales = shrink < 1 ? full.scales.map((s) => s * shrink) : full.scales;
      const w6 = shrink < 1 ? scaledWeights(p.b, K, N, scales) : full.w6;
      const numSends = numSendsFor(spread, DEFAULT_GAIN);
      const r = p.requant;
      const plain = rescale({ mul: p.mul, add: p.add, bias: p.bias, shift: attrLog2(r, 'div'), k, numSends, gain: DEFAULT_GAIN, scales });
      const re = plain && corrected(plain, o.corrections?.[layer], N);
      if (!re) {
        replaced.set(n, [{ ...n, engineNote: 'core: the rescaled requantization would leave int32' }]);
        continue;
      }
      const blocks = blocksOf(K, N);
      const from = fusedNames(n, r);
      const out: Node[] = [];
      const mk = (op: string, tag: string, inputs: string[], output: string, attrs: Node['attrs'] = {}, extra: Partial<Node> = {}): Node => ({
        name: fresh(`${n.name}__${tag}`), op, domain: '', inputs, outputs: [output], attrs, fusedFrom: from, ...extra,
      });
      const reshape = (tag: string, x: string, shape: number[], dtype: DType, range: IntRange, to?: string): string => {
        const t = to ?? activation(`${x}__${tag}`, dtype, shape, range);
        out.push(mk('Reshape', tag, [x, constant(`${n.name}__${tag}_shape`, 'int64', [shape.length], shape)], t));
        return t;
      };
      const x5 = activation(`${p.x.name}__5bit`, 'uint8', p.x.shape, { min: 0, max: 31 });
      out.push(mk('RequantShift', 'to_5bit', [p.x.name, constant(`${n.name}__one`, 'int32', [1], [1]), constant(`${n.name}__zero`, 'int32', [1], [0])], x5, {
        div: { kind: 'int', value: 2 ** k }, n_levels: { kind: 'int', value: 32 }, signed: { kind: 'int', value: 0 },
      }));
      let rows = x5;
      const c = p.conv;
      if (c) {
        const x4 = c.oneD ? reshape('to_2d', x5, [c.N, c.C, 1, c.W], 'uint8', { min: 0, max: 31 }) : x5;
        rows = activation(`${p.x.name}__windows`, 'uint8', [M, K], { min: 0, max: 31 });
        out.push(mk('Im2col', 'im2col', [x4], rows, c.attrs, { domain: 'firmgen' }));
      }
      const wName = constant(`${n.inputs[1]}__6bit`, 'int8', [K, N], w6);
      const v = activation(`${n.outputs[0]}__analog`, 'int8', blocks.rows > 1 ? [blocks.rows, M, N] : [M, N], { min: -128, max: 127 });
      const firstArray = block % ARRAYS;
      const noiseSeed = (o.noiseSeed ^ Math.imul(layer + 1, 0x85ebca6b)) >>> 0;
      out.push(mk(ANALOG_OP, 'analog', [rows, wName], v, {
        num_sends: { kind: 'int', value: numSends },
        wait_between_events: { kind: 'int', value: DEFAULT_WAIT_BETWEEN_EVENTS },
        gain: { kind: 'float', value: DEFAULT_GAIN },
        first_array: { kind: 'int', value: firstArray },
        chip_seed: { kind: 'int', value: o.chipSeed >>> 0 },
        fixed_pattern: { kind: 'int', value: o.fixedPattern ? 1 : 0 },
        noise_seed: { kind: 'int', value: noiseSeed },
        noise_std: { kind: 'float', value: o.noiseStd },
      }, {
        domain: 'firmgen',
        engineNote: `analog: ${blocks.rows} x ${blocks.cols} blocks of 128 x 256 from array ${firstArray}, num_sends ${numSends}${fromSamples ? ' (from the calibration samples)' : ''}, inputs >> ${k} to 5 bits${k < inputShift(valueRange(p.x).max) ? ' (the samples\' values: at most 1 in 1000 clip)' : ''}, weights scaled per column to ${shrink < 1 ? `${(63 * shrink).toFixed(1)} of 63` : '6 bits'}${c ? ', the convolution unfolded (im2col)' : ''}`,
      }));
      let sum = v;
      if (blocks.rows > 1) {
        const s = activation(`${n.outputs[0]}__blocksum`, 'int16', [M, N], { min: -128 * blocks.rows, max: 127 * blocks.rows });
        out.push(mk('ReduceSum', 'block_sum', [v], s, { axes: { kind: 'ints', value: [0] }, keepdims: { kind: 'int', value: 0 } }));
        sum = activation(`${n.outputs[0]}__clipped`, 'int8', [M, N], { min: -128, max: 127 });
        out.push(mk('Clip', 'block_clip', [s, constant(`${n.name}__lo`, 'int32', [], [-128]), constant(`${n.name}__hi`, 'int32', [], [127])], sum));
      }
      const y = tensorOf(g, r.outputs[0]);
      const yRows = c ? activation(`${y.name}__rows`, y.dtype, [M, N], valueRange(y)) : y.name;
      out.push(mk('RequantShift', 'rescale', [sum, constant(`${r.inputs[1]}__analog`, 'int32', [N], re.mul), constant(`${r.inputs[2]}__analog`, 'int32', [N], re.add)], yRows, {
        ...r.attrs, div: { kind: 'int', value: 2 ** re.shift },
      }));
      if (c) {
        // [N x OH x OW, O] -> [N, O, OH x OW] -> the convolution's own shape
        const y3 = reshape('pixels', yRows, [c.N, c.OH * c.OW, N], y.dtype, valueRange(y));
        const yt = activation(`${y.name}__nchw`, y.dtype, [c.N, N, c.OH * c.OW], valueRange(y));
        out.push(mk('Transpose', 'to_nchw', [y3], yt, { perm: { kind: 'ints', value: [0, 2, 1] } }));
        reshape('to_output', yt, y.shape, y.dtype, valueRange(y), y.name);
      }
      replaced.set(n, out);
      dropped.add(r);
      layer++;
      block += blocks.rows * blocks.cols;
    }
    const nodes = g.nodes.flatMap((n) => (dropped.has(n) ? [] : replaced.get(n) ?? [n]));
    return { ...g, nodes, tensors };
  };
}
