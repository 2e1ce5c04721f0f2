import { attrInt, attrInts, attrNumber, hasAttr } from '../../../ir/attrs.js';
import type { Node } from '../../../ir/graph.js';
import { normAxis } from '../../../reference/broadcast.js';
import { clipBounds } from '../../../reference/ops/elementwise.js';
import { dequantizeValue, quantizeValue, quantType } from '../../../reference/ops/quantize.js';
import { checkMatrix, unsupported, type LoweringContext, type Pending, type Value } from './context.js';
import { biasToAccumulator, siteOf, typeRange, type QConst, type QParams, type QTensor } from './emit.js';
import { emitDivide } from './divide.js';
import { emitLayerNorm, layerNormOp } from './layernorm.js';
import { layerNormChainStep } from './layernorm-chain.js';
import { emitSoftmax, softmaxOp } from './softmax.js';
import { emitTable, tableOp } from './table.js';

/*
 * QDQ: float ops between DequantizeLinear and QuantizeLinear. A float op on dequantized values either moves them
 * (MaxPool and data movement: the same op on the integer tensor, same scale and zero point: max and copies commute
 * with the monotone dequantization) or computes (Conv, Gemm, MatMul, Add, Mul, GlobalAveragePool, Relu, Clip): then
 * it is pending until the QuantizeLinear that names its output's quantization, and emitPending() writes it.
 */

const f32 = Math.fround;
/** Ops that move quantized values without arithmetic. */
export const MOVEMENT = new Set(['MaxPool', 'Reshape', 'Flatten', 'Transpose', 'Squeeze', 'Unsqueeze', 'Identity', 'Slice', 'Gather', 'Concat', 'Pad']);

/** A float op reading dequantized values, pending or moved. */
export function lowerFloatOp(ctx: LoweringContext, n: Node): void {
  const ins = n.inputs.map((i) => ctx.valueOf(i));
  const site = siteOf(n);
  const out = n.outputs[0];
  /** Operand i as an integer tensor with its quantization (a per-tensor dequantized constant is written out). */
  const fq = (i: number): QTensor => {
    const v = ins[i];
    if (v?.k === 'fq') return v.t;
    if (v?.k === 'wq' && v.w.scales.length === 1) {
      const t = quantType(v.w.data);
      if (t !== 'int8' && t !== 'uint8') throw unsupported(site, `a dequantized ${t} constant as an activation operand (int8 and uint8 are lowered)`);
      const q: QParams = { scale: v.w.scales[0], zp: v.w.zps[0] ?? 0, dtype: t };
      return { name: ctx.materialize(n, v.w.data, q.dtype), ...q };
    }
    if (v?.k === 'pend') throw unsupported(site, `reads the float result of node '${v.p.node.name}', which no QuantizeLinear requantizes`);
    throw unsupported(site, `input ${i} is not a dequantized tensor (float arithmetic is not lowered)`);
  };
  const pend = (p: Pending): void => void ctx.values.set(out, { k: 'pend', p, lo: -Infinity, hi: Infinity });
  const table = tableOp(n, ins);
  if (table) return pend(table);
  const chain = layerNormChainStep(ctx, n, ins);
  if (chain) return pend(chain);
  switch (n.op) {
    case 'Conv':
    case 'Gemm':
    case 'MatMul': {
      const x = fq(0);
      const wv = ins[1];
      if (n.op === 'MatMul' && wv?.k === 'fq') return pend({ kind: 'matmul', node: n, a: x, b: wv.t });
      if (wv?.k !== 'wq') throw unsupported(site, 'weights that are not a dequantized integer constant');
      if (n.op === 'Gemm' && attrInt(n, 'transA', 0)) throw unsupported(site, 'Gemm with transA');
      const transB = n.op === 'Gemm' && attrInt(n, 'transB', 0) !== 0;
      const outAxis = n.op === 'Conv' || transB ? 0 : 1;
      if (n.op !== 'Conv') checkMatrix(n, wv.w);
      if (wv.w.scales.length > 1 && wv.w.axis !== outAxis) throw unsupported(site, `per-axis weight scales along axis ${wv.w.axis}, not the output channels`);
      const attrs = { ...n.attrs };
      delete attrs.alpha; // folded into the multiplier and the bias
      delete attrs.beta;
      const bias = n.op === 'MatMul' ? undefined : ins[2];
      return pend({ kind: 'linear', node: n, op: n.op, x, w: wv.w, outAxis, bias, alpha: f32(attrNumber(n, 'alpha', 1)), beta: f32(attrNumber(n, 'beta', 1)), attrs });
    }
    case 'Add': {
      // A constant added after a MatMul/Conv/Gemm without bias is its bias (the QDQ form of a Gemm); otherwise two
      // activations.
      const pv = ins.findIndex((v) => v?.k === 'pend');
      const p = pv >= 0 ? ins[pv] : undefined;
      const other = ins[1 - pv];
      if (p?.k === 'pend' && p.p.kind === 'linear' && !p.p.bias && p.lo === -Infinity && p.hi === Infinity && (other?.k === 'const' || other?.k === 'wq')) {
        return pend({ ...p.p, bias: other });
      }
      return pend({ kind: 'add', node: n, a: fq(0), b: fq(1) });
    }
    case 'Mul':
      return pend({ kind: 'mul', node: n, a: fq(0), b: fq(1) });
    // Of two different tensors (a function of one tensor and a scalar is a table, above).
    case 'Sub':
      return pend({ kind: 'sub', node: n, a: fq(0), b: fq(1) });
    case 'Div':
      return pend({ kind: 'div', node: n, a: fq(0), b: fq(1) });
    case 'ReduceMean':
      return pend(meanOf(ctx, n, fq(0)));
    case 'Softmax':
      return pend(softmaxOp(ctx, n, fq(0)));
    case 'LayerNormalization':
      return pend(layerNormOp(ctx, n, fq(0)));
    case 'GlobalAveragePool':
      return pend({ kind: 'gap', node: n, x: fq(0), shape: ctx.shapeOf(n.inputs[0]) });
    case 'AveragePool':
      checkAveragePool(n);
      return pend({ kind: 'avgpool', node: n, x: fq(0), shape: ctx.shapeOf(n.inputs[0]) });
    case 'Pad':
      return padQuantized(ctx, n, fq(0));
    case 'Relu':
    case 'Clip': {
      const v = ins[0];
      const { lo, hi } = n.op === 'Relu' ? { lo: 0, hi: Infinity } : clipBounds(n, (i) => {
        if (!n.inputs[i]) return undefined;
        const c = ctx.valueOf(n.inputs[i]);
        return c?.k === 'const' ? c.data.data : null;
      });
      if (v?.k === 'pend') return void ctx.values.set(out, { k: 'pend', p: v.p, lo: Math.max(v.lo, lo), hi: Math.min(v.hi, hi) });
      return void ctx.values.set(out, { k: 'pend', p: { kind: 'rescale', node: n, x: fq(0) }, lo, hi });
    }
    default:
      break;
  }
  if (!MOVEMENT.has(n.op)) {
    throw unsupported(site, `float ${n.op} on dequantized values is not lowered (integer lowerings exist for Conv, Gemm, MatMul, Add, Sub, Mul, `
      + 'Div, ReduceMean, Softmax, LayerNormalization, AveragePool, GlobalAveragePool, Relu, Clip, MaxPool, Pad and data movement, and tables for chains of Erf, '
      + 'Sigmoid, Tanh, Exp, Sqrt, Neg, Abs, Add, Sub, Mul, Div, Pow of one 8-bit tensor and scalar constants); end the model at the DequantizeLinear before it');
  }
  const data = n.op === 'Concat' ? n.inputs.map((_, i) => fq(i)) : [fq(0)];
  const same = data.every((t) => t.scale === data[0].scale && t.zp === data[0].zp && t.dtype === data[0].dtype);
  if (!same) return pend({ kind: 'concat', node: n, parts: data });
  const inputs = n.inputs.map((name, i) => {
    if (n.op === 'Concat' || i === 0) return data[i].name;
    if (!name) return name;
    if (ctx.valueOf(name)?.k !== 'const') throw unsupported(site, `operand ${i} must be a constant`);
    return ctx.copyConstant(name);
  });
  ctx.w.b.tensor(out, data[0].dtype, ctx.shapeOf(out));
  ctx.w.b.node(n.op, n.name, inputs, [out], { ...n.attrs });
  ctx.values.set(out, { k: 'fq', t: { ...data[0], name: out } });
}

/** Writes a pending float computation as integer ops producing y (clip: y's integer range after Relu/Clip). */
export function emitPending(ctx: LoweringContext, p: Pending, y: QTensor, clip: [number, number]): void {
  const { w } = ctx;
  const site = siteOf(p.node);
  const base = p.node.name;
  const rank = ctx.shapeOf(p.node.outputs[0]).length;
  switch (p.kind) {
    case 'linear': {
      const bias = p.bias ? linearBias(p, p.bias) : undefined;
      w.linear({ site, base, op: p.op, x: p.x, weights: { w: p.w, outAxis: p.outAxis }, bias, attrs: p.attrs, alpha: p.alpha }, y, clip, rank);
      return;
    }
    case 'matmul':
      w.matmul(site, base, p.a, p.b, y, clip, rank, ctx.innerDim(p.node));
      return;
    case 'add':
    case 'sub':
      w.add(site, base, p.a, p.b, y, clip, p.kind === 'sub' ? 'Sub' : 'Add');
      return;
    case 'div':
      emitDivide(ctx, { ...p, kind: 'div' }, y, clip);
      return;
    case 'mean':
      w.mean(site, base, p.x, p.shape, p.axes, p.keep, y, clip);
      return;
    case 'mul':
      w.mul(site, base, p.a, p.b, y, clip);
      return;
    case 'gap':
      w.globalAverage(site, base, p.x, p.shape, y, clip);
      return;
    case 'avgpool':
      w.averagePool(site, base, p.x, p.shape[1], p.node.attrs, y, clip);
      return;
    case 'table':
      emitTable(ctx, p, y, clip);
      return;
    case 'softmax':
      emitSoftmax(ctx, p, y, clip);
      return;
    case 'layernorm':
      emitLayerNorm(ctx, p, y, clip);
      return;
    case 'lnchain':
      throw unsupported(site, `the ${p.stage} stage of a LayerNorm chain quantized alone (its ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div are lowered whole, or each quantized)`);
    case 'rescale':
      if (p.x.scale === y.scale && p.x.zp === y.zp && p.x.dtype === y.dtype) {
        // Only the clip: RequantShift with mul 1, shift 0 and no zero-point term (zy is already in x).
        w.requantizeBy(site, base, p.x.name, { mul: [1], shift: 0 }, undefined, 0, y, clip, -y.zp);
      } else w.rescale(site, base, p.x, y, clip);
      return;
    case 'concat': {
      if (clip[0] > typeRange(y.dtype)[0] || clip[1] < typeRange(y.dtype)[1]) {
        throw unsupported(site, 'a Relu/Clip after a Concat of differently quantized inputs');
      }
      // Each input requantized to the output's scale and zero point, then concatenated.
      const parts = p.parts.map((x, i) => {
        if (x.scale === y.scale && x.zp === y.zp && x.dtype === y.dtype) return x.name;
        const t: QTensor = { ...y, name: w.fresh(`${base}_in${i}`) };
        w.rescale(site, `${base}_in${i}`, x, t, typeRange(y.dtype));
        return t.name;
      });
      w.b.tensor(y.name, y.dtype, []);
      w.node('Concat', base, parts, [y.name], { ...p.node.attrs });
    }
  }
}

/** ReduceMean's axes (attribute up to opset 17, input from 18; none: every axis) and keepdims. */
function meanOf(ctx: LoweringContext, n: Node, x: QTensor): Pending {
  const site = siteOf(n);
  const shape = ctx.shapeOf(n.inputs[0]);
  const given = n.inputs[1] ? Array.from(ctx.constant(n, 1, 'the reduction axes')!.data) : hasAttr(n, 'axes') ? attrInts(n, 'axes') : [];
  if (given.length === 0 && attrInt(n, 'noop_with_empty_axes', 0) !== 0) throw unsupported(site, 'ReduceMean with noop_with_empty_axes');
  const axes = given.length === 0 ? shape.map((_, i) => i) : [...new Set(given.map((a) => normAxis(a, shape.length)))].sort((p, q) => p - q);
  return { kind: 'mean', node: n, x, shape, axes, keep: attrInt(n, 'keepdims', 1) !== 0 };
}

/** AveragePool with one divisor everywhere: the window size (no padding, or padding counted). */
function checkAveragePool(n: Node): void {
  const site = siteOf(n);
  if (attrInt(n, 'ceil_mode', 0) !== 0) throw unsupported(site, 'AveragePool with ceil_mode');
  const autoPad = n.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET' && autoPad.value !== 'VALID') throw unsupported(site, `AveragePool auto_pad ${autoPad.value}`);
  if (hasAttr(n, 'dilations') && attrInts(n, 'dilations').some((d) => d !== 1)) throw unsupported(site, 'a dilated AveragePool');
  const pads = hasAttr(n, 'pads') ? attrInts(n, 'pads') : [];
  if (pads.some((p) => p !== 0) && attrInt(n, 'count_include_pad', 0) === 0) {
    throw unsupported(site, 'a padded AveragePool without count_include_pad divides edges by fewer taps (no single integer multiplier)');
  }
}

/**
 * Pad on dequantized values: the same Pad on the integer tensor, with the pad value's quantization as the value,
 * when that quantization is exact (0 always is: it is the zero point).
 */
function padQuantized(ctx: LoweringContext, n: Node, x: QTensor): void {
  const site = siteOf(n);
  const mode = n.attrs.mode?.kind === 'string' ? n.attrs.mode.value : 'constant';
  if (mode !== 'constant') throw unsupported(site, `Pad mode '${mode}'`);
  if (n.inputs[3]) throw unsupported(site, 'Pad with axes');
  const pads = n.inputs[1] ? ctx.constant(n, 1, 'pads') : undefined;
  const valueInput = n.inputs[2] ? ctx.constant(n, 2, 'the pad value') : undefined;
  const value = f32(valueInput ? valueInput.data[0] : hasAttr(n, 'value') ? attrNumber(n, 'value') : 0);
  const [lo, hi] = typeRange(x.dtype);
  const q = quantizeValue(value, f32(x.scale), x.zp, { min: lo, max: hi });
  if (dequantizeValue(q, f32(x.scale), x.zp) !== value) throw unsupported(site, `pad value ${value} is not on the quantization grid`);
  const out = n.outputs[0];
  ctx.w.b.tensor(out, x.dtype, ctx.shapeOf(out));
  ctx.w.b.node('Pad', n.name, [x.name], [out], { pads: { kind: 'ints', value: pads ? Array.from(pads.data) : attrInts(n, 'pads') }, value: { kind: 'int', value: q }, mode: { kind: 'string', value: 'constant' } });
  ctx.values.set(out, { k: 'fq', t: { ...x, name: out } });
}

/**
 * A linear op's bias in accumulator units. In real terms the op adds beta*C; in accumulator units that is
 * beta*C / (alpha*sx*sw_j): an int32 bias stored with the scale sx*sw_j (what the quantization tools write) is taken
 * as it is, anything else rounded.
 */
function linearBias(p: Extract<Pending, { kind: 'linear' }>, bv: Value): number[] {
  const site = siteOf(p.node);
  const O = p.w.data.shape[p.outAxis];
  if (bv.k !== 'wq' && bv.k !== 'const') throw unsupported(site, 'a bias that is not constant');
  const data = bv.k === 'wq' ? bv.w.data : bv.data;
  if (data.data.length !== O && data.data.length !== 1) throw unsupported(site, 'a bias that is not one value per output channel');
  if (bv.k === 'wq' && p.beta === 1) return biasToAccumulator(data.data, bv.w.scales, bv.w.zps, p.x.scale, p.w.scales, p.alpha, O);
  const real = bv.k === 'wq' ? dequantized(bv.w) : Array.from(data.data, f32);
  return biasToAccumulator(real.map((v) => f32(v * p.beta)), undefined, undefined, p.x.scale, p.w.scales, p.alpha, O);
}

/** The real values of a dequantized 1-D constant (a bias). */
function dequantized(c: QConst): number[] {
  const at = (a: number[], i: number): number => (a.length > 1 ? a[i] : a[0] ?? 0);
  return Array.from(c.data.data, (v, i) => f32(f32(v - at(c.zps, i)) * f32(at(c.scales, i))));
}
