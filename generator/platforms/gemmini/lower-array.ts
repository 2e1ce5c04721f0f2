import { attrInt, attrInts } from '../../ir/attrs.js';
import type { IntRange } from '../../ir/dtype.js';
import { tensorOf } from '../../ir/graph.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { fusedNames, tensorBuilder } from '../../frontend/edit.js';
import { valueRange } from '../../kernels/common.js';
import { SCALAR_CORE_COSTS } from '../generic/platform.js';
import { convTile, type ConvShape } from './conv-tiles.js';
import { arrayDepthwiseCycles, hostDepthwiseCycles } from './dw-cost.js';

/*
 * What Gemmini's array takes, made explicit before kernel selection (docs/gemmini.md "Generator"):
 *  - int8 and uint8 activations: the array multiplies signed bytes, so a uint8 operand x enters as x - 128 (an int8
 *    Sub the elementwise fusion joins to the op that produced x) and the constant weights' sums times 128 go into the
 *    bias: Σ x·w = Σ (x - 128)·w + 128·Σ w, exact in int32 (the 128-offset with a column-sum correction). A padded
 *    uint8 convolution pads explicitly after the offset (with -128, x's own 0), since the array pads with 0.
 *  - Conv (2-D, one group or depthwise, equal strides and dilations) becomes a 'GemminiConv' node (domain firmgen) on
 *    NHWC activations with HWIO weights (depthwise: [C, KH, KW]), the layouts loop_conv_ws reads; Transposes to and
 *    from NCHW run on the host core. A depthwise one goes to the array only when the cost rule (dw-cost.ts) finds it
 *    faster there (or as --depthwise-on says); a 1x1 one of stride 1 without padding becomes a MatMul (loop_ws).
 *  - MatMul of a batch of rows ([..., M, K] by a [K, N] with leading 1s) gets Reshapes to the 2-D product the array
 *    runs (the Reshapes share their input's buffer).
 *  - MatMul of two activations (int8 or uint8 by int8) with the same leading dimensions (attention's heads:
 *    [.., H, M, K] by [.., H, K, N]) becomes one 2-D product per head: Gathers of each head's rows, the products, a
 *    Concat of the int32 results (the host core copies; the products are the array's). A uint8 a enters offset by
 *    128 and the head's column sums of b times 128 (ReduceSum at run time) are the product's bias row.
 * Every rewritten node says why on engineNote; a node the array cannot take is left to the host core as it is.
 */

const NCHW_TO_NHWC = [0, 2, 3, 1];
const NHWC_TO_NCHW = [0, 3, 1, 2];
/** The accumulators are int32 and wrap (docs/gemmini.md "Semantics"): take only sums that fit. */
const INT32_MAX = 2 ** 31 - 1;

interface ConvPlan {
  shape: ConvShape;
  /** What one loop computes: the layer, or one channel of a depthwise layer. */
  tileShape: ConvShape;
  depthwise: boolean;
  /** A 1-D convolution, run as a 2-D one of height 1. */
  oneD: boolean;
  N: number;
  H: number;
  W: number;
  pads: [number, number, number, number];
  why?: undefined;
  /** The cost rule's figures of a depthwise layer it gave the array. */
  note?: string;
}

function magnitude(r: IntRange): number {
  return Math.max(Math.abs(r.min), Math.abs(r.max));
}

/** Where depthwise convolutions run: by the cost rule (dw-cost.ts), or always on one side (--depthwise-on). */
export type DepthwiseOn = 'cost' | 'array' | 'host';

/** The loop_conv_ws plan of a Conv, or why the array does not run it. */
function convPlan(n: Node, g: Graph, depthwiseOn: DepthwiseOn): ConvPlan | string {
  if (n.op !== 'Conv' || n.domain !== '') return 'not a Conv';
  const x = tensorOf(g, n.inputs[0]);
  const w = tensorOf(g, n.inputs[1]);
  const y = tensorOf(g, n.outputs[0]);
  // A 1-D convolution is a 2-D one of height 1 (Reshapes around it share their buffers).
  const oneD = x.shape.length === 3;
  if (x.shape.length !== 4 && !oneD) return 'the array runs 1-D and 2-D convolutions';
  if (x.dtype !== 'int8' && x.dtype !== 'uint8') return 'the input is neither int8 nor uint8';
  if (!w.data || w.dtype !== 'int8') return 'the weights are not constant int8';
  // int16 results come out as int32 (their values unchanged; rewriteConv says how they reach their type).
  if (y.dtype !== 'int32' && y.dtype !== 'int8' && y.dtype !== 'int16') return 'the output is neither int32, int16 nor int8';
  const group = attrInt(n, 'group', 1);
  // Depthwise (one input channel per output): loop_conv_ws's depthwise mode, one loop per channel.
  const depthwise = group > 1 && group === x.shape[1] && w.shape[0] === group && w.shape[1] === 1;
  if (group !== 1 && !depthwise) return 'a grouped convolution (the loop takes one group, or depthwise)';
  const autoPad = n.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value}`;
  // 1-D: the one stride and dilation serve both axes (a height-1 window never moves down); pads (left, right).
  const strides = oneD ? [...attrInts(n, 'strides', [1]), ...attrInts(n, 'strides', [1])] : attrInts(n, 'strides', [1, 1]);
  const dil = oneD ? [...attrInts(n, 'dilations', [1]), ...attrInts(n, 'dilations', [1])] : attrInts(n, 'dilations', [1, 1]);
  // Unequal strides: the loop strides along the row, the firmware steps the rows (one output row per loop).
  if (dil[0] !== dil[1]) return 'unequal dilations (the loop has one)';
  const pads1 = oneD ? attrInts(n, 'pads', [0, 0]) : [];
  const pads = (oneD ? [0, pads1[0], 0, pads1[1]] : attrInts(n, 'pads', [0, 0, 0, 0])) as [number, number, number, number];
  const bias = n.inputs[2] ? tensorOf(g, n.inputs[2]) : undefined;
  if (bias && !bias.data) return 'the bias is not constant';
  const [N, C, H, W] = oneD ? [x.shape[0], x.shape[1], 1, x.shape[2]] : x.shape;
  const [O, , KH, KW] = oneD ? [w.shape[0], w.shape[1], 1, w.shape[2]] : w.shape;
  const [, , OH, OW] = oneD ? [y.shape[0], y.shape[1], 1, y.shape[2]] : y.shape;
  const shape: ConvShape = { C, O, OH, OW, KH, KW, stride: strides[1], rowStride: strides[0], dilation: dil[0] };
  // A depthwise loop is one channel in, one out: its tile is that of a one-channel convolution.
  const tileShape: ConvShape = depthwise ? { ...shape, C: 1, O: 1 } : shape;
  // A window wholly in the padding would give the loop an empty input tile.
  const extentH = (KH - 1) * dil[0] + 1;
  const extentW = (KW - 1) * dil[0] + 1;
  if (pads[0] >= extentH || pads[2] >= extentH || pads[1] >= extentW || pads[3] >= extentW) return 'a padding as wide as the kernel';
  // The loop's 16-bit fields (gemmini.h's loop_conv_ws encodings).
  if ([N, C, H, W, O, OH, OW, KH, KW].some((d) => d >= 0xffff) || strides[1] > 0xff || dil[0] > 0xff) return 'a dimension past the loop\'s fields';
  if (!convTile(tileShape)) return 'the kernel does not fit the scratchpad';
  const xr = valueRange(x);
  const xMag = x.dtype === 'uint8' ? 128 : magnitude(xr);
  const taps = (depthwise ? 1 : C) * KH * KW;
  let bound = taps * xMag * magnitude(valueRange(w));
  if (bias) bound += magnitude(valueRange(bias)) + (x.dtype === 'uint8' ? 128 * taps * 128 : 0);
  if (bound > INT32_MAX) return 'the accumulator could leave int32';
  if (depthwise && depthwiseOn === 'host') return 'depthwise, and --depthwise-on host';
  if (depthwise && depthwiseOn === 'cost') {
    // the host core's figures are the generic scalar core's (platform.ts costs)
    const costs = hostDepthwiseCycles(n, g, SCALAR_CORE_COSTS);
    const array = arrayDepthwiseCycles({ ...shape, N, H, W, pads }) + costs.arrayTransposes;
    const host = costs.host + costs.hostTransposes;
    const figures = `estimates with the Transposes each way needs: array ~${Math.round(array)} cycles, host core ~${Math.round(host)}`;
    if (host < array) return `depthwise, cheaper on the host core (${figures})`;
    return { shape, tileShape, depthwise, oneD, N, H, W, pads, why: undefined, note: figures };
  }
  return { shape, tileShape, depthwise, oneD, N, H, W, pads };
}

/** A 1x1 convolution of stride 1 without padding (after any explicit Pad) and one group: a matrix product. */
function pointwise(p: ConvPlan, pads: readonly number[]): boolean {
  const s = p.shape;
  return !p.depthwise && s.KH === 1 && s.KW === 1 && s.stride === 1 && (s.rowStride ?? 1) === 1 && pads.every((v) => v === 0);
}

/**
 * Rows of the 2-D product a MatMul of more than 2-D operands is ([..., M, K] by a B whose leading dimensions are 1,
 * a bias of one row), or undefined when it is not one.
 */
function flatRows(n: Node, g: Graph): number | undefined {
  if (n.op !== 'MatMul' || n.domain !== '') return undefined;
  const a = tensorOf(g, n.inputs[0]);
  const b = tensorOf(g, n.inputs[1]);
  if (a.shape.length <= 2 || b.shape.length < 2) return undefined;
  if ((a.dtype !== 'int8' && a.dtype !== 'uint8') || b.dtype !== 'int8') return undefined;
  if (b.shape.slice(0, -2).some((d) => d !== 1)) return undefined;
  const N = b.shape[b.shape.length - 1];
  if (n.inputs[2]) {
    const c = tensorOf(g, n.inputs[2]);
    if (!c.data || c.data.data.length !== N || c.shape[c.shape.length - 1] !== N) return undefined;
  }
  return a.shape.slice(0, -1).reduce((p, d) => p * d, 1);
}

/** Heads at most split into 2-D products (each adds two Gathers and a product's fixed cost). */
const MAX_HEADS = 64;

/** Heads of a MatMul of two activations (int8 or uint8 by int8) with equal leading dimensions and an int32 result. */
function headsOf(n: Node, g: Graph): number | undefined {
  if (n.op !== 'MatMul' || n.domain !== '' || n.inputs.length !== 2) return undefined;
  const a = tensorOf(g, n.inputs[0]);
  const b = tensorOf(g, n.inputs[1]);
  if (a.shape.length < 3 || b.shape.length !== a.shape.length || (a.dtype !== 'int8' && a.dtype !== 'uint8') || b.dtype !== 'int8' || b.data) return undefined;
  if (tensorOf(g, n.outputs[0]).dtype !== 'int32') return undefined;
  const lead = a.shape.slice(0, -2);
  if (lead.some((d, i) => d !== b.shape[i])) return undefined;
  const heads = lead.reduce((p, d) => p * d, 1);
  return heads > 1 && heads <= MAX_HEADS ? heads : undefined;
}

/** A 2-D product of an activation by constant int8 weights with a uint8 activation: its offset form, or why not. */
function uint8Product(n: Node, g: Graph): string | null {
  if (n.op !== 'Gemm' && n.op !== 'MatMul') return 'not a product';
  const a = tensorOf(g, n.inputs[0]);
  const b = tensorOf(g, n.inputs[1]);
  if (a.dtype !== 'uint8') return 'not a uint8 activation';
  if (a.shape.length !== 2) return 'the array takes 2-D operands';
  if (!b.data || b.dtype !== 'int8' || b.shape.length !== 2) return 'the weights are not constant 2-D int8';
  if (n.op === 'Gemm' && (attrInt(n, 'transA', 0) !== 0 || attrInt(n, 'alpha', 1) !== 1 || attrInt(n, 'beta', 1) !== 1)) return 'a Gemm the array does not take';
  const bias = n.inputs[2] ? tensorOf(g, n.inputs[2]) : undefined;
  if (bias && !bias.data) return 'the bias is not constant';
  return null;
}

/** The pass: Convs and uint8 products rewritten for the array (file comment). */
export function lowerForArray(g: Graph, depthwiseOn: DepthwiseOn = 'cost'): Graph {
  const tensors = new Map(g.tensors);
  const nodes: Node[] = [];
  const { fresh, add, constant } = tensorBuilder(tensors);
  const node = (from: Node, op: string, tag: string, inputs: string[], output: string, attrs: Node['attrs'] = {}): Node => ({
    name: fresh(`${from.name}__${tag}`), op, domain: '', inputs, outputs: [output], attrs, fusedFrom: fusedNames(from),
  });
  /** x - 128 as int8 (uint8 x): the array's signed view of an unsigned activation. */
  const offset = (from: Node, x: Tensor, shape: number[]): [string, Node] => {
    const k = constant(`${from.name}__offset`, 'int32', [1], [128]);
    const out = add({ name: fresh(`${x.name}__s8`), dtype: 'int8', shape, range: { min: -128, max: 127 } });
    return [out, node(from, 'Sub', 'offset', [x.name, k], out)];
  };

  // The graph as rewritten so far: new tensors are visible to the checks below.
  const view: Graph = { ...g, tensors };
  for (const n of g.nodes) {
    const conv = convPlan(n, g, depthwiseOn);
    if (typeof conv !== 'string') {
      nodes.push(...rewriteConv(n, conv));
      continue;
    }
    const heads = headsOf(n, view);
    if (heads !== undefined) {
      nodes.push(...splitHeads(n, heads));
      continue;
    }
    const rows = flatRows(n, view);
    if (rows !== undefined) {
      const [before, mm, after] = flatten(n, rows);
      nodes.push(...before, ...(uint8Product(mm, view) === null ? rewriteProduct(mm) : [wideBias(mm)]), after);
      continue;
    }
    if (uint8Product(n, view) === null) {
      nodes.push(...rewriteProduct(n));
      continue;
    }
    nodes.push(n.op === 'Conv' ? { ...n, engineNote: `host core: ${conv}` } : wideBias(n));
  }
  return { ...g, nodes, tensors };

  /**
   * A product's constant bias of another integer type (inference stores constants in their narrowest type, e.g.
   * int16) as int32: the D the array moves in is int32 rows, or int8 ones.
   */
  function wideBias(n: Node): Node {
    if ((n.op !== 'Gemm' && n.op !== 'MatMul') || !n.inputs[2]) return n;
    const c = tensorOf(view, n.inputs[2]);
    if (!c.data || c.dtype === 'int32' || c.dtype === 'int8') return n;
    return { ...n, inputs: [n.inputs[0], n.inputs[1], constant(`${c.name}__i32`, 'int32', c.shape, c.data.data)] };
  }

  /** [.., H, M, K] by [.., H, K, N]: per head h, Gather(A, h) by Gather(B, h), then Concat and a Reshape back. */
  function splitHeads(n: Node, heads: number): Node[] {
    const a = tensorOf(view, n.inputs[0]);
    const b = tensorOf(view, n.inputs[1]);
    const y = tensorOf(view, n.outputs[0]);
    const [M, K] = a.shape.slice(-2);
    const N = b.shape[b.shape.length - 1];
    const out: Node[] = [];
    const reshape = (x: Tensor, shape: number[], tag: string): string => {
      const to = add({ ...x, name: fresh(`${x.name}__heads`), shape, data: undefined });
      out.push(node(n, 'Reshape', tag, [x.name, constant(`${to}__shape`, 'int64', [shape.length], shape)], to));
      return to;
    };
    const a3 = reshape(a, [heads, M, K], 'heads_a');
    const b3 = reshape(b, [heads, K, N], 'heads_b');
    const parts: string[] = [];
    for (let h = 0; h < heads; h++) {
      const index = constant(`${n.name}__head${h}`, 'int64', [], [h]);
      const pick = (x: Tensor, from: string, shape: number[], tag: string): string => {
        const to = add({ ...x, name: fresh(`${x.name}__h${h}`), shape, data: undefined });
        out.push(node(n, 'Gather', `${tag}${h}`, [from, index], to, { axis: { kind: 'int', value: 0 } }));
        return to;
      };
      let ah = pick(a, a3, [M, K], 'a');
      const bh = pick(b, b3, [K, N], 'b');
      const yh = add({ ...y, name: fresh(`${y.name}__h${h}`), shape: [M, N], data: undefined });
      const inputs = [ah, bh];
      if (a.dtype === 'uint8') {
        // Σ a·b = Σ (a - 128)·b + 128·Σ_k b: the offset as for constant weights, the column sums of this head's b
        // computed at run time (ReduceSum, times 128) as the product's one bias row.
        const [signed, sub] = offset(n, tensorOf(view, ah), [M, K]);
        out.push(sub);
        inputs[0] = ah = signed;
        const axes = constant(`${n.name}__k${h}`, 'int64', [1], [0]);
        const sums = add({ name: fresh(`${b.name}__colsum${h}`), dtype: 'int32', shape: [1, N], range: { min: -128 * K, max: 127 * K } });
        out.push(node(n, 'ReduceSum', `colsum${h}`, [bh, axes], sums, { keepdims: { kind: 'int', value: 1 } }));
        const bias = add({ name: fresh(`${b.name}__colbias${h}`), dtype: 'int32', shape: [1, N], range: { min: -128 * 128 * K, max: 128 * 127 * K } });
        out.push(node(n, 'Mul', `colbias${h}`, [sums, constant(`${n.name}__128_${h}`, 'int32', [1], [128])], bias));
        inputs.push(bias);
      }
      out.push({ ...node(n, 'MatMul', `head${h}`, inputs, yh), engineNote: `array: head ${h} of ${heads} of a product of two activations` });
      parts.push(yh);
    }
    const cat = add({ ...y, name: fresh(`${y.name}__heads`), shape: [heads * M, N], data: undefined });
    out.push(node(n, 'Concat', 'heads', parts, cat, { axis: { kind: 'int', value: 0 } }));
    out.push(node(n, 'Reshape', 'back', [cat, constant(`${y.name}__shape`, 'int64', [y.shape.length], y.shape)], y.name));
    return out;
  }

  /** MatMul [..., M, K] by [1.., K, N] with int8 or uint8 operands, as one 2-D product of [rows, K] by [K, N]. */
  function flatten(n: Node, rows: number): [Node[], Node, Node] {
    const a = tensorOf(view, n.inputs[0]);
    const b = tensorOf(view, n.inputs[1]);
    const y = tensorOf(view, n.outputs[0]);
    const K = a.shape[a.shape.length - 1];
    const N = b.shape[b.shape.length - 1];
    const reshape = (x: Tensor, shape: number[], tag: string, out?: string): [string, Node] => {
      const to = out ?? add({ ...x, name: fresh(`${x.name}__2d`), shape, data: x.data && ndarray(x.data.dtype, shape, x.data.data) });
      const k = constant(`${to}__shape`, 'int64', [shape.length], out ? y.shape : shape);
      return [to, node(n, 'Reshape', tag, [x.name, k], to)];
    };
    const before: Node[] = [];
    const [a2, ra] = reshape(a, [rows, K], 'rows');
    before.push(ra);
    let b2 = b.name;
    if (b.shape.length > 2) {
      if (b.data) b2 = constant(`${b.name}__2d`, b.dtype, [K, N], b.data.data);
      else {
        const [name, rb] = reshape(b, [K, N], 'cols');
        before.push(rb);
        b2 = name;
      }
    }
    const inputs = [a2, b2];
    if (n.inputs[2]) {
      const c = tensorOf(view, n.inputs[2]);
      inputs.push(constant(`${c.name}__row`, c.dtype, [N], c.data!.data));
    }
    const y2 = add({ ...y, name: fresh(`${y.name}__2d`), shape: [rows, N], data: undefined });
    const mm: Node = { ...n, inputs, outputs: [y2], engineNote: 'array: the batch of rows as one 2-D product' };
    const back: Node = { ...node(n, 'Reshape', 'back', [y2, constant(`${y.name}__shape`, 'int64', [y.shape.length], y.shape)], y.name) };
    return [before, mm, back];
  }

  function rewriteConv(n: Node, p: ConvPlan): Node[] {
    const out: Node[] = [];
    const w = tensorOf(g, n.inputs[1]);
    const y = tensorOf(g, n.outputs[0]);
    const { C, O, OH, OW, KH, KW } = p.shape;
    let x = tensorOf(g, n.inputs[0]);
    if (p.oneD) {
      // [N, C, W] as [N, C, 1, W]
      const x4 = add({ ...x, name: fresh(`${x.name}__2d`), shape: [p.N, C, 1, p.W], data: undefined });
      out.push(node(n, 'Reshape', 'to_2d', [x.name, constant(`${x4}__shape`, 'int64', [4], [p.N, C, 1, p.W])], x4));
      x = tensorOf(view, x4);
    }
    const unsigned = x.dtype === 'uint8';
    let xs = x.name;
    let pads = p.pads;
    let [H, W] = [p.H, p.W];
    let range = valueRange(x);
    if (unsigned) {
      // x - 128 first: the Sub joins the elementwise node that produced x (its requantization), no pass of its own.
      const [s8, sub] = offset(n, x, [p.N, C, H, W]);
      out.push(sub);
      xs = s8;
      range = { min: range.min - 128, max: range.max - 128 };
    }
    if (unsigned && pads.some((v) => v !== 0)) {
      // The real padding is x = 0, which the offset makes -128, where the array pads 0: pad explicitly with -128,
      // then the loop pads nothing.
      [H, W] = [H + pads[0] + pads[2], W + pads[1] + pads[3]];
      range = { min: -128, max: range.max };
      const padded = add({ name: fresh(`${x.name}__padded`), dtype: 'int8', shape: [p.N, C, H, W], range });
      out.push(node(n, 'Pad', 'pad', [xs], padded, {
        pads: { kind: 'ints', value: [0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]] },
        value: { kind: 'int', value: -128 }, mode: { kind: 'string', value: 'constant' },
      }));
      xs = padded;
      pads = [0, 0, 0, 0];
    }
    const xNhwc = add({ name: fresh(`${x.name}__nhwc`), dtype: 'int8', shape: [p.N, H, W, C], range });
    out.push(node(n, 'Transpose', 'to_nhwc', [xs], xNhwc, { perm: { kind: 'ints', value: NCHW_TO_NHWC } }));
    // HWIO weights: row (kh, kw, c) holds the O output channels (loop_conv_ws's weight rows); depthwise: each channel's
    // KH x KW taps in a row, the ONNX order (the loop reads them with main-memory stride 1).
    const wd = w.data!.data;
    const Cg = p.depthwise ? 1 : C;
    const hwio = new Array<number>(wd.length);
    const sums = new Array<number>(O).fill(0);
    for (let o = 0; o < O; o++) {
      for (let c = 0; c < Cg; c++) {
        for (let kh = 0; kh < KH; kh++) {
          for (let kw = 0; kw < KW; kw++) {
            const at = ((o * Cg + c) * KH + kh) * KW + kw;
            hwio[p.depthwise ? at : ((kh * KW + kw) * C + c) * O + o] = wd[at];
            sums[o] += wd[at];
          }
        }
      }
    }
    const wName = p.depthwise
      ? constant(`${n.inputs[1]}__dw`, 'int8', [C, KH, KW], hwio)
      : constant(`${n.inputs[1]}__hwio`, 'int8', [KH, KW, C, O], hwio);
    const b = n.inputs[2] ? tensorOf(g, n.inputs[2]).data!.data : undefined;
    const bias = Array.from({ length: O }, (_, o) => (b ? b[b.length > 1 ? o : 0] : 0) + (unsigned ? 128 * sums[o] : 0));
    const bName = bias.some((v) => v !== 0) ? constant(`${n.name}__bias`, 'int32', [O], bias) : '';
    // An int16 result becomes int32 (its readers take any integer type); a graph output keeps its type through a copy
    // that narrows it after the Transpose back (exact: its values fit int16).
    const narrow = y.dtype === 'int16' && g.outputs.includes(y.name);
    if (y.dtype === 'int16' && !narrow) tensors.set(y.name, { ...y, dtype: 'int32' });
    const yNhwc = add({ ...tensors.get(y.name)!, name: fresh(`${y.name}__nhwc`), shape: [p.N, OH, OW, O], data: undefined, ...(narrow ? { dtype: 'int32' as const } : {}) });
    const attrs: Node['attrs'] = {
      strides: { kind: 'ints', value: [p.shape.rowStride ?? p.shape.stride, p.shape.stride] },
      dilations: { kind: 'ints', value: [p.shape.dilation, p.shape.dilation] },
      pads: { kind: 'ints', value: pads },
      kernel_shape: { kind: 'ints', value: [KH, KW] },
      depthwise: { kind: 'int', value: p.depthwise ? 1 : 0 },
    };
    if (pointwise(p, pads)) out.push(...product(n, p, xNhwc, wName, bName, yNhwc, unsigned));
    else {
      const tile = convTile(p.tileShape)!;
      out.push({
        name: `${n.name}__gemmini`, op: 'GemminiConv', domain: 'firmgen', inputs: [xNhwc, wName, bName], outputs: [yNhwc], attrs,
        fusedFrom: fusedNames(n),
        engineNote: (p.depthwise ? `array: depthwise, one loop_conv_ws per channel and tile of ${tile.orows}x${tile.ocols} pixels${p.note ? ` (${p.note})` : ''}`
          : `array: loop_conv_ws in tiles of ${tile.orows}x${tile.ocols} pixels, ${tile.ochs} of ${O} output and ${tile.kchs} of ${C} input channels`) +
          `${unsigned ? ' (uint8 input offset by 128, corrected in the bias)' : ''}`,
      });
    }
    const yNchw = narrow ? add({ ...y, name: fresh(`${y.name}__i32`), dtype: 'int32', data: undefined }) : y.name;
    // 1-D: the Transpose writes [N, O, 1, OW], a Reshape gives it the result's shape
    const y4 = p.oneD ? add({ ...tensorOf(view, yNchw), name: fresh(`${y.name}__2d`), shape: [p.N, O, 1, OW], data: undefined }) : yNchw;
    out.push(node(n, 'Transpose', 'to_nchw', [yNhwc], y4, { perm: { kind: 'ints', value: NHWC_TO_NCHW } }));
    if (p.oneD) out.push(node(n, 'Reshape', 'to_1d', [y4, constant(`${y.name}__shape1d`, 'int64', [3], [p.N, O, OW])], yNchw));
    if (narrow) out.push({ ...node(n, 'Elementwise', 'to_int16', [yNchw], y.name), domain: 'firmgen', expr: { k: 'in', i: 0 } });
    return out;
  }

  /**
   * A 1x1 convolution of stride 1 without padding as the matrix product it is on NHWC activations: [pixels, C] by the
   * [C, O] weights (HWIO of a 1x1 kernel), between Reshapes that share their buffers. loop_ws moves its int32 sums out
   * itself and alternates scratchpad and accumulator halves between tiles, so tiles overlap; loop_conv_ws moves no raw
   * sums out, and the firmware's own moves out of a tile wait for the loop (docs/gemmini.md "Convolutions").
   * Gemmini's own software does the same: gemmini-rocc-tests' resnet50 and mobilenet run their pointwise convolutions
   * through tiled_matmul_nn_auto.
   */
  function product(n: Node, p: ConvPlan, xNhwc: string, wName: string, bName: string, yNhwc: string, unsigned: boolean): Node[] {
    const x = tensorOf(view, xNhwc);
    const y = tensorOf(view, yNhwc);
    const [N, H, W, C] = x.shape;
    const O = p.shape.O;
    const rows = N * H * W;
    const a2 = add({ ...x, name: fresh(`${xNhwc}__rows`), shape: [rows, C], data: undefined });
    const y2 = add({ ...y, name: fresh(`${yNhwc}__rows`), shape: [rows, O], data: undefined });
    const w2 = constant(`${wName}__co`, 'int8', [C, O], tensorOf(view, wName).data!.data);
    return [
      node(n, 'Reshape', 'rows', [xNhwc, constant(`${a2}__shape`, 'int64', [2], [rows, C])], a2),
      {
        name: `${n.name}__gemmini`, op: 'MatMul', domain: '', inputs: bName ? [a2, w2, bName] : [a2, w2], outputs: [y2],
        attrs: {}, fusedFrom: fusedNames(n),
        engineNote: `array: a 1x1 convolution as one loop_ws product of ${rows} pixels by ${C} x ${O}` +
          `${unsigned ? ' (uint8 input offset by 128, corrected in the bias)' : ''}`,
      },
      node(n, 'Reshape', 'pixels', [y2, constant(`${yNhwc}__shape`, 'int64', [4], y.shape)], yNhwc),
    ];
  }

  function rewriteProduct(n: Node): Node[] {
    const a = tensorOf(view, n.inputs[0]);
    const b = tensorOf(view, n.inputs[1]);
    const transB = n.op === 'Gemm' && attrInt(n, 'transB', 0) !== 0;
    const [K, N] = transB ? [b.shape[1], b.shape[0]] : b.shape;
    const sums = new Array<number>(N).fill(0);
    const bd = b.data!.data;
    for (let k = 0; k < K; k++) for (let j = 0; j < N; j++) sums[j] += bd[transB ? j * K + k : k * N + j];
    const [as8, sub] = offset(n, a, a.shape);
    // The bias gains 128·Σ_k B[k][j] in every row; a bias of one row stays one row, a matrix a matrix.
    const old = n.inputs[2] ? tensorOf(view, n.inputs[2]) : undefined;
    const od = old?.data!.data;
    const rows = od && od.length > N ? od.length / N : 1;
    const values = Array.from({ length: rows * N }, (_, i) => (od ? od[od.length === 1 ? 0 : i] : 0) + 128 * sums[i % N]);
    const shape = rows > 1 ? [rows, N] : [N];
    const bName = constant(`${n.name}__bias`, 'int32', shape, values);
    return [sub, { ...n, inputs: [as8, n.inputs[1], bName], engineNote: 'array: uint8 activation offset by 128, corrected in the bias' }];
  }
}
