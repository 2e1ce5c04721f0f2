import { GenError, type ErrorSite } from '../../errors.js';
import { attrInt, attrNumber } from '../../ir/attrs.js';
import { isIntType, rangeOf, type IntRange, type IntType } from '../../ir/dtype.js';
import type { AttrValue, Graph, Node } from '../../ir/graph.js';
import { inferGraph } from '../../ir/infer.js';
import type { NDArray } from '../../ir/ndarray.js';
import { normAxis } from '../../reference/broadcast.js';
import { clipBounds } from '../../reference/ops/elementwise.js';
import { quantType } from '../../reference/ops/quantize.js';
import { opSpec } from '../../reference/registry.js';
import { biasToAccumulator, IntegerWriter, quantizedClip, siteOf, typeRange, type QConst, type QParams, type QTensor, type QType } from './quantized/emit.js';

/*
 * Standard quantized ONNX (SEMANTICS.md section 2) lowered to the integer dialect (section 1), for every platform.
 * Two formats, one walk over the nodes in order, tracking what each original tensor is in the lowered graph:
 *   - QDQ: QuantizeLinear/DequantizeLinear around float ops. A DequantizeLinear output is a float view of an integer
 *     tensor ('fq'); a float Conv/Gemm/MatMul/Add/Mul/GlobalAveragePool (or Relu/Clip) on such views is a pending
 *     computation, written as integer ops when the QuantizeLinear that ends it names the output's scale and zero
 *     point (a Relu/Clip between them narrows the output clip: QuantizeLinear is monotone, so
 *     Q(clip(v, lo, hi)) = clip(Q(v), Q(lo), Q(hi)) exactly). MaxPool and data movement run on the integer tensor
 *     itself (max and copies commute with the monotone dequantization).
 *   - QOperator: QLinearConv/QLinearMatMul/QGemm/QLinearAdd/QLinearMul, MatMulInteger/ConvInteger read and write
 *     integer tensors; integer MaxPool/Reshape/... between them are kept as they are.
 * Graph inputs read only by QuantizeLinear become that QuantizeLinear's integer output (the firmware takes quantized
 * inputs); graph outputs written by DequantizeLinear become its integer input. lowerQuantized() also says which
 * scale and zero point each has (quantized/sidecar.ts writes them beside the firmware).
 * A graph without any of these ops passes through untouched.
 */

const QUANT_OPS = new Set(['QuantizeLinear', 'DequantizeLinear', 'QLinearConv', 'QLinearMatMul', 'QGemm', 'QLinearAdd', 'QLinearMul',
  'MatMulInteger', 'ConvInteger', 'DynamicQuantizeLinear']);
/** Ops that move quantized values without arithmetic: run on the integer tensor with the same scale and zero point. */
const MOVEMENT = new Set(['MaxPool', 'Reshape', 'Flatten', 'Transpose', 'Squeeze', 'Unsqueeze', 'Identity', 'Slice', 'Gather', 'Concat']);
const f32 = Math.fround;

type Pending =
  | { kind: 'linear'; node: Node; op: 'Conv' | 'Gemm' | 'MatMul'; x: QTensor; w: QConst; outAxis: number; bias?: Value; alpha: number; beta: number; attrs: Record<string, AttrValue> }
  | { kind: 'matmul' | 'add' | 'mul'; node: Node; a: QTensor; b: QTensor }
  | { kind: 'gap'; node: Node; x: QTensor; shape: number[] }
  | { kind: 'concat'; node: Node; parts: QTensor[] }
  | { kind: 'rescale'; node: Node; x: QTensor };

type Value =
  | { k: 'input' }
  | { k: 'int'; name: string; q?: QParams }
  | { k: 'fq'; t: QTensor }
  | { k: 'const'; data: NDArray }
  | { k: 'wq'; w: QConst }
  | { k: 'pend'; p: Pending; lo: number; hi: number };

/** One graph input or output of the lowered graph: its integer tensor and how it maps to real values. */
export interface QuantBoundary {
  /** The tensor of the firmware (the quantized one). */
  name: string;
  /** The float tensor of the original model it stands for. */
  of: string;
  dtype: IntType;
  scale: number;
  zeroPoint: number;
  range: [number, number];
}

export interface LoweredQuantized {
  graph: Graph;
  inputs: QuantBoundary[];
  outputs: QuantBoundary[];
}

export function isQuantizedModel(g: Graph): boolean {
  return g.nodes.some((n) => QUANT_OPS.has(n.op) || n.op.startsWith('QLinear'));
}

/** The pass: the lowered, re-inferred integer graph (unchanged when the model has no standard quantized ops). */
export function lowerQuantizedPass(g: Graph): Graph {
  return isQuantizedModel(g) ? lowerQuantized(g).graph : g;
}

function unsupported(site: ErrorSite, reason: string): GenError {
  return new GenError('unsupported', reason, site);
}

export function lowerQuantized(g: Graph): LoweredQuantized {
  const w = new IntegerWriter(g.name, g.source, [...g.tensors.keys(), ...g.nodes.map((n) => n.name)]);
  const values = new Map<string, Value>();
  const shapeOf = (t: string): number[] => g.tensors.get(t)?.shape ?? [];
  const newInputs: QuantBoundary[] = [];

  for (const t of g.tensors.values()) if (t.data) values.set(t.name, { k: 'const', data: t.data });
  for (const name of g.inputs) {
    const t = g.tensors.get(name)!;
    if (t.dtype === 'float32') values.set(name, { k: 'input' });
    else {
      // An integer input (a QOperator model may take uint8 directly): kept, its scale is its readers' business.
      values.set(name, { k: 'int', name });
      w.b.tensor(name, t.dtype, t.shape);
      const r = t.range ?? rangeOf(t.dtype as IntType);
      newInputs.push({ name, of: name, dtype: t.dtype as IntType, scale: 1, zeroPoint: 0, range: [r.min, r.max] });
    }
  }
  const inputOrder = [...g.inputs];
  const quantizedInputs = new Map<string, QuantBoundary>();

  const valueOf = (name: string): Value | undefined => (name ? values.get(name) : undefined);
  /** A constant operand (scale, zero point) as numbers. */
  const constant = (n: Node, i: number, what: string): NDArray | undefined => {
    const name = n.inputs[i];
    if (!name) return undefined;
    const v = values.get(name);
    if (v?.k !== 'const') throw unsupported(siteOf(n), `${what} must be a constant`);
    return v.data;
  };
  /** Per-tensor activation parameters from a node's (scale, zero point) operands. */
  const actParams = (n: Node, si: number, zi: number): QParams => {
    const s = constant(n, si, 'the scale');
    const z = zi >= 0 ? constant(n, zi, 'the zero point') : undefined;
    if (!s || s.data.length !== 1 || (z && z.data.length !== 1)) {
      throw unsupported(siteOf(n), 'per-axis quantization of an activation (only weights may have per-channel scales)');
    }
    // Opset 21: blocked scales and a type named by attribute instead of a zero point are not lowered (the type
    // would otherwise be read as uint8).
    if (attrInt(n, 'block_size', 0) !== 0) throw unsupported(siteOf(n), 'blocked quantization (block_size)');
    if (!z && n.attrs.output_dtype) throw unsupported(siteOf(n), 'a quantized type given by output_dtype without a zero point');
    const dtype = quantType(z);
    if (dtype !== 'int8' && dtype !== 'uint8') throw unsupported(siteOf(n), `quantized type ${dtype} (int8 and uint8 are lowered)`);
    if (!(s.data[0] > 0)) throw unsupported(siteOf(n), `scale ${s.data[0]} (scales must be positive)`);
    return { scale: f32(s.data[0]), zp: z ? z.data[0] : 0, dtype };
  };
  /** An integer activation operand. */
  const intOperand = (n: Node, i: number, q: QParams): QTensor => {
    const v = valueOf(n.inputs[i]);
    if (v?.k === 'int') return { name: v.name, ...q };
    if (v?.k === 'const') return { name: materialize(n, v.data, q.dtype), ...q };
    throw unsupported(siteOf(n), `input ${i} is not an integer tensor`);
  };
  /** A quantized constant operand of a QOperator op: integer data with the node's scale and zero point. */
  const weightOperand = (n: Node, di: number, si: number, zi: number, axis: number): QConst => {
    const data = constant(n, di, 'the weight')!;
    const s = constant(n, si, 'the weight scale')!;
    const z = zi >= 0 ? constant(n, zi, 'the weight zero point') : undefined;
    return { data, scales: Array.from(s.data, f32), zps: z ? Array.from(z.data) : [0], axis };
  };
  const materialize = (n: Node, data: NDArray, dtype: IntType): string => {
    const [lo, hi] = typeRange(dtype);
    if (Array.from(data.data).some((v) => !Number.isInteger(v) || v < lo || v > hi)) {
      throw unsupported(siteOf(n), `a constant operand outside ${dtype}`);
    }
    return w.constant(`${n.name}_const`, dtype, data.shape, data.data);
  };

  for (const n of g.nodes) {
    const ins = n.inputs.map(valueOf);
    const site = siteOf(n);
    const out = n.outputs[0];
    const rank = shapeOf(out).length;
    const setInt = (q: QParams): QTensor => {
      const t = { name: out, ...q };
      values.set(out, { k: 'int', name: out, q });
      return t;
    };
    const noClip = (q: QParams): [number, number] => typeRange(q.dtype);

    switch (n.op) {
      case 'QuantizeLinear': {
        const x = ins[0];
        if (x?.k === 'const') {
          fold(n);
          continue;
        }
        const q = actParams(n, 1, 2);
        if (x?.k === 'input') {
          // The firmware's input: the quantized tensor itself.
          const src = n.inputs[0];
          const prior = quantizedInputs.get(src);
          if (prior) {
            if (prior.scale !== q.scale || prior.zeroPoint !== q.zp || prior.dtype !== q.dtype) {
              throw unsupported(site, 'a graph input quantized twice with different parameters');
            }
            values.set(out, { k: 'int', name: prior.name, q });
            continue;
          }
          w.b.tensor(out, q.dtype, shapeOf(out));
          const [lo, hi] = typeRange(q.dtype);
          const bnd = { name: out, of: src, dtype: q.dtype, scale: q.scale, zeroPoint: q.zp, range: [lo, hi] as [number, number] };
          quantizedInputs.set(src, bnd);
          newInputs.push(bnd);
          setInt(q);
          continue;
        }
        if (x?.k === 'fq') {
          if (x.t.scale === q.scale && x.t.zp === q.zp && x.t.dtype === q.dtype) values.set(out, { k: 'int', name: x.t.name, q });
          else w.rescale(site, n.name, x.t, setInt(q), noClip(q));
          continue;
        }
        if (x?.k === 'pend') {
          emitPending(x.p, setInt(q), quantizedClip(q, x.lo, x.hi));
          continue;
        }
        throw unsupported(site, 'QuantizeLinear of a value that is neither a float graph input nor a dequantized or computed float tensor');
      }
      case 'DequantizeLinear': {
        const x = ins[0];
        if (x?.k === 'const') {
          if (attrInt(n, 'block_size', 0) !== 0) throw unsupported(site, 'blocked quantization (block_size)');
          const s = constant(n, 1, 'the scale')!;
          const z = constant(n, 2, 'the zero point');
          const axis = normAxis(attrInt(n, 'axis', 1), x.data.shape.length);
          values.set(out, { k: 'wq', w: { data: x.data, scales: Array.from(s.data, f32), zps: z ? Array.from(z.data) : [0], axis } });
          continue;
        }
        if (x?.k !== 'int') throw unsupported(site, 'DequantizeLinear of a tensor that is not integer');
        values.set(out, { k: 'fq', t: { name: x.name, ...actParams(n, 1, 2) } });
        continue;
      }
      case 'QLinearConv': {
        const x = intOperand(n, 0, actParams(n, 1, 2));
        const wt = weightOperand(n, 3, 4, 5, 0);
        const y = setInt(actParams(n, 6, 7));
        const O = wt.data.shape[0];
        const b = constant(n, 8, 'the bias');
        const bias = b ? Array.from({ length: O }, (_, j) => b.data[b.data.length > 1 ? j : 0]) : undefined;
        w.linear({ site, base: n.name, op: 'Conv', x, weights: { w: wt, outAxis: 0 }, bias, attrs: { ...n.attrs }, alpha: 1 }, y, noClip(y), rank);
        continue;
      }
      case 'QLinearMatMul': {
        const a = intOperand(n, 0, actParams(n, 1, 2));
        const yq = actParams(n, 6, 7);
        if (ins[3]?.k === 'const') {
          const wt = weightOperand(n, 3, 4, 5, 1);
          checkMatrix(n, wt);
          const y = setInt(yq);
          w.linear({ site, base: n.name, op: 'MatMul', x: a, weights: { w: wt, outAxis: 1 }, attrs: {}, alpha: 1 }, y, noClip(yq), rank);
        } else {
          const b = intOperand(n, 3, actParams(n, 4, 5));
          w.matmul(site, n.name, a, b, setInt(yq), noClip(yq), rank, innerDim(n));
        }
        continue;
      }
      case 'QGemm': {
        const a = intOperand(n, 0, actParams(n, 1, 2));
        if (attrInt(n, 'transA', 0)) throw unsupported(site, 'QGemm with transA');
        if (!n.inputs[7] || !n.inputs[8]) throw unsupported(site, 'QGemm without y_scale and y_zero_point writes float; only the requantized form is lowered');
        const transB = attrInt(n, 'transB', 0);
        const wt = weightOperand(n, 3, 4, 5, transB ? 0 : 1);
        checkMatrix(n, wt);
        const outAxis = transB ? 0 : 1;
        const O = wt.data.shape[outAxis];
        const c = constant(n, 6, 'C');
        if (c && c.data.length !== O && c.data.length !== 1) throw unsupported(site, 'a C that is not one value per output column');
        const bias = c ? Array.from({ length: O }, (_, j) => c.data[c.data.length > 1 ? j : 0]) : undefined;
        const y = setInt(actParams(n, 7, 8));
        const alpha = f32(attrNumber(n, 'alpha', 1));
        w.linear({ site, base: n.name, op: 'Gemm', x: a, weights: { w: wt, outAxis }, bias, attrs: { transB: { kind: 'int', value: transB } }, alpha }, y, noClip(y), rank);
        continue;
      }
      case 'QLinearAdd':
      case 'QLinearMul': {
        const a = intOperand(n, 0, actParams(n, 1, 2));
        const b = intOperand(n, 3, actParams(n, 4, 5));
        const y = setInt(actParams(n, 6, 7));
        if (n.op === 'QLinearAdd') w.add(site, n.name, a, b, y, noClip(y));
        else w.mul(site, n.name, a, b, y, noClip(y));
        continue;
      }
      case 'MatMulInteger':
      case 'ConvInteger': {
        const zx = constant(n, 2, 'the input zero point');
        if (zx && zx.data.length !== 1) throw unsupported(site, 'a per-row input zero point');
        const xq: QParams = { scale: 1, zp: zx ? zx.data[0] : 0, dtype: quantType(zx) as QType };
        const x = intOperand(n, 0, xq);
        const conv = n.op === 'ConvInteger';
        if (ins[1]?.k !== 'const') {
          if (conv) throw unsupported(site, 'ConvInteger with non-constant weights');
          const zb = constant(n, 3, 'the zero point');
          const b = intOperand(n, 1, { scale: 1, zp: zb ? zb.data[0] : 0, dtype: quantType(zb) as QType });
          values.set(out, { k: 'int', name: w.matmul(site, out, x, b, undefined, [0, 0], rank, innerDim(n)) });
          continue;
        }
        const data = constant(n, 1, 'the weight')!;
        const zw = constant(n, 3, 'the weight zero point');
        const wt: QConst = { data, scales: [1], zps: zw ? Array.from(zw.data) : [0], axis: conv ? 0 : 1 };
        if (!conv) checkMatrix(n, wt);
        const acc = w.linearAccumulator({ site, base: n.name, op: conv ? 'Conv' : 'MatMul', x, weights: { w: wt, outAxis: conv ? 0 : 1 }, attrs: { ...n.attrs }, alpha: 1 });
        values.set(out, { k: 'int', name: acc });
        continue;
      }
      case 'DynamicQuantizeLinear':
        throw unsupported(site, 'dynamic quantization (scales computed at run time): the firmware needs static scales (quantize_static, QDQ or QOperator)');
      default:
        break;
    }
    if (n.op.startsWith('QLinear')) throw unsupported(site, `${n.op} is not lowered (supported: QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul)`);
    if (ins.every((v) => v === undefined || v.k === 'const')) {
      fold(n);
      continue;
    }
    if (ins.some((v) => v?.k === 'input')) {
      throw unsupported(site, `reads float graph input directly; the firmware takes quantized inputs (a QuantizeLinear must come first)`);
    }
    if (ins.some((v) => v?.k === 'fq' || v?.k === 'pend' || v?.k === 'wq')) {
      floatOp(n, ins);
      continue;
    }
    // An integer op between QOperator ops (MaxPool, Reshape, ... on uint8): kept as it is.
    for (const i of n.inputs) if (i && values.get(i)?.k === 'const') copyConstant(i);
    const x0 = ins[0]?.k === 'int' ? ins[0] : undefined;
    w.b.node(n.op, n.name, n.inputs.map((i) => (i && values.get(i)?.k === 'int' ? (values.get(i) as { name: string }).name : i)), [...n.outputs], { ...n.attrs });
    for (const o of n.outputs) {
      values.set(o, { k: 'int', name: o, q: MOVEMENT.has(n.op) ? x0?.q : undefined });
      w.b.tensor(o, 'int32', []);
    }
  }

  /** A node on constants only (shape arithmetic, QuantizeLinear of float weights): evaluated now. */
  function fold(n: Node): void {
    const spec = opSpec(n.op);
    if (!spec) throw unsupported(siteOf(n), `op ${n.op} is not supported`);
    const res = spec.evaluate(n, n.inputs.map((i) => {
      const v = valueOf(i);
      return v?.k === 'const' ? v.data : undefined;
    }));
    n.outputs.forEach((o, i) => values.set(o, { k: 'const', data: res[i] }));
  }

  /** A constant of the original graph (or folded from it) in the lowered graph, under its own name. */
  function copyConstant(name: string): string {
    const v = values.get(name);
    if (v?.k !== 'const') throw new GenError('internal', `'${name}' is not a constant`);
    return w.b.tensors.has(name) ? name : w.b.constant(name, v.data.dtype, v.data.shape, v.data.data);
  }

  /** A float op on dequantized values. */
  function floatOp(n: Node, ins: (Value | undefined)[]): void {
    const site = siteOf(n);
    const out = n.outputs[0];
    const fq = (i: number): QTensor => {
      const v = ins[i];
      if (v?.k === 'fq') return v.t;
      if (v?.k === 'wq' && v.w.scales.length === 1) {
        const t = quantType(v.w.data);
        if (t !== 'int8' && t !== 'uint8') throw unsupported(site, `a dequantized ${t} constant as an activation operand (int8 and uint8 are lowered)`);
        const q: QParams = { scale: v.w.scales[0], zp: v.w.zps[0] ?? 0, dtype: t };
        return { name: materialize(n, v.w.data, q.dtype), ...q };
      }
      if (v?.k === 'pend') throw unsupported(site, `reads the float result of node '${v.p.node.name}', which no QuantizeLinear requantizes`);
      throw unsupported(site, `input ${i} is not a dequantized tensor (float arithmetic is not lowered)`);
    };
    const pend = (p: Pending): void => void values.set(out, { k: 'pend', p, lo: -Infinity, hi: Infinity });
    switch (n.op) {
      case 'Conv':
      case 'Gemm':
      case 'MatMul': {
        const x = fq(0);
        const wv = ins[1];
        if (n.op === 'MatMul' && wv?.k === 'fq') return pend({ kind: 'matmul', node: n, a: x, b: wv.t });
        if (wv?.k !== 'wq') throw unsupported(site, 'weights that are not a dequantized integer constant');
        const transB = n.op === 'Gemm' && attrInt(n, 'transB', 0) !== 0;
        if (n.op === 'Gemm' && attrInt(n, 'transA', 0)) throw unsupported(site, 'Gemm with transA');
        const outAxis = n.op === 'Conv' ? 0 : transB ? 0 : 1;
        if (n.op !== 'Conv') checkMatrix(n, wv.w);
        if (wv.w.scales.length > 1 && wv.w.axis !== outAxis) throw unsupported(site, `per-axis weight scales along axis ${wv.w.axis}, not the output channels`);
        const attrs = { ...n.attrs };
        delete attrs.alpha;
        delete attrs.beta;
        const bias = n.op === 'MatMul' ? undefined : ins[2];
        return pend({ kind: 'linear', node: n, op: n.op, x, w: wv.w, outAxis, bias, alpha: f32(attrNumber(n, 'alpha', 1)), beta: f32(attrNumber(n, 'beta', 1)), attrs });
      }
      case 'Add': {
        // A bias added after a MatMul (the QDQ form of Gemm), or two activations.
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
      case 'GlobalAveragePool':
        return pend({ kind: 'gap', node: n, x: fq(0), shape: shapeOf(n.inputs[0]) });
      case 'Relu':
      case 'Clip': {
        const v = ins[0];
        const { lo, hi } = n.op === 'Relu' ? { lo: 0, hi: Infinity } : clipBounds(n, (i) => {
          if (!n.inputs[i]) return undefined;
          const c = valueOf(n.inputs[i]);
          return c?.k === 'const' ? c.data.data : null;
        });
        if (v?.k === 'pend') return void values.set(out, { k: 'pend', p: v.p, lo: Math.max(v.lo, lo), hi: Math.min(v.hi, hi) });
        return void values.set(out, { k: 'pend', p: { kind: 'rescale', node: n, x: fq(0) }, lo, hi });
      }
      default:
        break;
    }
    if (MOVEMENT.has(n.op)) {
      const data = n.op === 'Concat' ? n.inputs.map((_, i) => fq(i)) : [fq(0)];
      const same = data.every((t) => t.scale === data[0].scale && t.zp === data[0].zp && t.dtype === data[0].dtype);
      if (!same) return pend({ kind: 'concat', node: n, parts: data });
      const inputs = n.inputs.map((name, i) => {
        if (n.op === 'Concat' || i === 0) return data[i].name;
        const v = valueOf(name);
        if (!name) return name;
        if (v?.k !== 'const') throw unsupported(site, `operand ${i} must be a constant`);
        return copyConstant(name);
      });
      w.b.tensor(out, data[0].dtype, shapeOf(out));
      w.b.node(n.op, n.name, inputs, [out], { ...n.attrs });
      values.set(out, { k: 'fq', t: { ...data[0], name: out } });
      return;
    }
    throw unsupported(site, `float ${n.op} on dequantized values is not lowered (integer lowerings exist for Conv, Gemm, MatMul, Add, Mul, GlobalAveragePool, Relu, Clip, MaxPool and data movement)`);
  }

  /** Writes a pending float computation as integer ops producing y (clip: y's integer range after Relu/Clip). */
  function emitPending(p: Pending, y: QTensor, clip: [number, number]): void {
    const site = siteOf(p.node);
    const rank = shapeOf(p.node.outputs[0]).length;
    switch (p.kind) {
      case 'linear': {
        const O = p.w.data.shape[p.outAxis];
        let bias: number[] | undefined;
        if (p.bias) {
          // In real terms the op adds beta * C; in accumulator units that is beta*C / (alpha*sx*sw_j): an int32
          // bias stored with the scale sx*sw_j (what the quantization tools write) is taken as it is.
          const bv = p.bias;
          if (bv.k !== 'wq' && bv.k !== 'const') throw unsupported(site, 'a bias that is not constant');
          const data = bv.k === 'wq' ? bv.w.data : bv.data;
          if (data.data.length !== O && data.data.length !== 1) throw unsupported(site, 'a bias that is not one value per output channel');
          if (bv.k === 'wq' && p.beta === 1) bias = biasToAccumulator(data.data, bv.w.scales, bv.w.zps, p.x.scale, p.w.scales, p.alpha, O);
          else {
            const real = bv.k === 'wq' ? dequantized(bv.w) : Array.from(data.data, f32);
            bias = biasToAccumulator(real.map((v) => f32(v * p.beta)), undefined, undefined, p.x.scale, p.w.scales, p.alpha, O);
          }
        }
        w.linear({ site, base: p.node.name, op: p.op, x: p.x, weights: { w: p.w, outAxis: p.outAxis }, bias, attrs: p.attrs, alpha: p.alpha }, y, clip, rank);
        return;
      }
      case 'matmul':
        w.matmul(site, p.node.name, p.a, p.b, y, clip, rank, innerDim(p.node));
        return;
      case 'add':
        w.add(site, p.node.name, p.a, p.b, y, clip);
        return;
      case 'mul':
        w.mul(site, p.node.name, p.a, p.b, y, clip);
        return;
      case 'gap':
        w.globalAverage(site, p.node.name, p.x, p.shape, y, clip);
        return;
      case 'rescale':
        if (p.x.scale === y.scale && p.x.zp === y.zp && p.x.dtype === y.dtype) {
          // Only the clip: RequantShift with mul 1, shift 0 and no zero-point term (zy is already in x).
          w.requantizeBy(site, p.node.name, p.x.name, { mul: [1], shift: 0 }, undefined, 0, y, clip, -y.zp);
        } else w.rescale(site, p.node.name, p.x, y, clip);
        return;
      case 'concat': {
        const parts = p.parts.map((x, i) => {
          if (x.scale === y.scale && x.zp === y.zp && x.dtype === y.dtype) return x.name;
          const t: QTensor = { ...y, name: w.fresh(`${p.node.name}_in${i}`) };
          w.rescale(site, `${p.node.name}_in${i}`, x, t, typeRange(y.dtype));
          return t.name;
        });
        const wide = clip[0] > typeRange(y.dtype)[0] || clip[1] < typeRange(y.dtype)[1];
        if (wide) throw unsupported(site, 'a Relu/Clip after a Concat of differently quantized inputs');
        w.b.tensor(y.name, y.dtype, []);
        w.node('Concat', p.node.name, parts, [y.name], { ...p.node.attrs });
        return;
      }
    }
  }

  // Outputs: the integer tensor behind each (a DequantizeLinear's input, or an integer output as it is).
  /** K of a MatMul: the last dimension of its first operand. */
  function innerDim(n: Node): number {
    const s = shapeOf(n.inputs[0]);
    return s[s.length - 1];
  }

  const outputs: QuantBoundary[] = g.outputs.map((o) => {
    const v = values.get(o);
    if (v?.k === 'fq') return { name: v.t.name, of: o, dtype: v.t.dtype, scale: v.t.scale, zeroPoint: v.t.zp, range: typeRange(v.t.dtype) };
    if (v?.k === 'int') {
      // An integer output without a quantization of its own (an accumulator): scale 1, its inferred type.
      if (!v.q) return { name: v.name, of: o, dtype: 'int32', scale: 1, zeroPoint: 0, range: [-2147483648, 2147483647] };
      return { name: v.name, of: o, dtype: v.q.dtype, scale: v.q.scale, zeroPoint: v.q.zp, range: typeRange(v.q.dtype) };
    }
    throw new GenError('unsupported', 'graph output is not quantized: end it with QuantizeLinear (and DequantizeLinear) so the firmware computes it in integers', { tensor: o });
  });
  for (const name of inputOrder) {
    if (values.get(name)?.k === 'input' && !quantizedInputs.has(name)) {
      throw new GenError('unsupported', 'float graph input read by no QuantizeLinear', { tensor: name });
    }
  }
  const ordered = inputOrder.map((name) => quantizedInputs.get(name) ?? newInputs.find((b) => b.of === name)!);
  const lowered = w.b.graph(ordered.map((b) => b.name), outputs.map((b) => b.name));
  const ranges = new Map<string, IntRange>(ordered.map((b) => [b.name, { min: b.range[0], max: b.range[1] }]));
  for (const b of ordered) {
    const t = lowered.tensors.get(b.name)!;
    if (!isIntType(t.dtype)) t.dtype = b.dtype;
  }
  return { graph: inferGraph(lowered, ranges), inputs: ordered, outputs };
}

/** The real values of a dequantized 1-D constant (a bias). */
function dequantized(c: QConst): number[] {
  const at = (a: number[], i: number): number => (a.length > 1 ? a[i] : a[0] ?? 0);
  return Array.from(c.data.data, (v, i) => f32(f32(v - at(c.zps, i)) * f32(at(c.scales, i))));
}

/** Weights of Gemm/MatMul: a 2-D constant. */
function checkMatrix(n: Node, w: QConst): void {
  if (w.data.shape.length !== 2) throw new GenError('unsupported', `weights of rank ${w.data.shape.length} (2-D weights are lowered)`, siteOf(n));
}
