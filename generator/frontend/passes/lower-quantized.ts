import { GenError } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { isIntType, rangeOf, type IntRange, type IntType } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { inferGraph } from '../../ir/infer.js';
import { normAxis } from '../../reference/broadcast.js';
import { LoweringContext, unsupported } from './quantized/context.js';
import { quantizedClip, siteOf, typeRange, type QType } from './quantized/emit.js';
import { emitPending, lowerFloatOp, MOVEMENT } from './quantized/qdq.js';
import { lowerQOperator } from './quantized/qoperator.js';

/*
 * Standard quantized ONNX (SEMANTICS.md section 2) lowered to the integer dialect (section 1), for every platform.
 * Two formats, one walk over the nodes in order, tracking what each original tensor is in the lowered graph
 * (quantized/context.ts):
 *   - QDQ (quantized/qdq.ts): QuantizeLinear/DequantizeLinear around float ops. A DequantizeLinear output is a float
 *     view of an integer tensor; a float Conv/Gemm/MatMul/Add/Mul/GlobalAveragePool (or Relu/Clip) on such views is
 *     a pending computation, written as integer ops when the QuantizeLinear that ends it names the output's scale
 *     and zero point (a Relu/Clip between them narrows the output clip: QuantizeLinear is monotone, so
 *     Q(clip(v, lo, hi)) = clip(Q(v), Q(lo), Q(hi)) exactly). MaxPool and data movement run on the integer tensor.
 *   - QOperator (quantized/qoperator.ts): QLinearConv/QLinearMatMul/QGemm/QLinearAdd/QLinearMul,
 *     MatMulInteger/ConvInteger read and write integer tensors; integer MaxPool/Reshape/... between them are kept.
 * Both write through quantized/emit.ts, which says how zero points and multipliers become exact integer terms.
 * Graph inputs read only by QuantizeLinear become that QuantizeLinear's integer output (the firmware takes quantized
 * inputs); graph outputs written by DequantizeLinear become its integer input. lowerQuantized() also says which
 * scale and zero point each has (quantized/sidecar.ts writes them beside the firmware).
 * A graph without any of these ops passes through untouched.
 */

const QUANT_OPS = new Set(['QuantizeLinear', 'DequantizeLinear', 'QLinearConv', 'QLinearMatMul', 'QGemm', 'QLinearAdd', 'QLinearMul',
  'MatMulInteger', 'ConvInteger', 'DynamicQuantizeLinear']);

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

export function lowerQuantized(g: Graph): LoweredQuantized {
  const ctx = new LoweringContext(g);
  const { w, values } = ctx;
  /** Graph inputs in the lowered graph, by original name. */
  const inputs = new Map<string, QuantBoundary>();
  for (const name of g.inputs) {
    const t = g.tensors.get(name)!;
    if (t.dtype === 'float32') {
      values.set(name, { k: 'input' });
      continue;
    }
    // An integer input (a QOperator model may take uint8 directly): kept; its readers give it a scale.
    values.set(name, { k: 'int', name });
    w.b.tensor(name, t.dtype, t.shape);
    const r = t.range ?? rangeOf(t.dtype as IntType);
    inputs.set(name, { name, of: name, dtype: t.dtype as IntType, scale: 1, zeroPoint: 0, range: [r.min, r.max] });
  }

  for (const n of g.nodes) {
    if (n.op === 'QuantizeLinear') quantizeLinear(n);
    else if (n.op === 'DequantizeLinear') dequantizeLinear(n);
    else if (lowerQOperator(ctx, n)) continue;
    else if (n.op === 'DynamicQuantizeLinear') {
      throw unsupported(siteOf(n), 'dynamic quantization (scales computed at run time): the firmware needs static scales (quantize_static, QDQ or QOperator)');
    } else if (n.op.startsWith('QLinear')) {
      throw unsupported(siteOf(n), `${n.op} is not lowered (supported: QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearMul)`);
    } else otherOp(n);
  }

  function quantizeLinear(n: Node): void {
    const x = ctx.valueOf(n.inputs[0]);
    const out = n.outputs[0];
    const site = siteOf(n);
    if (x?.k === 'const') return ctx.fold(n);
    const q = ctx.actParams(n, 1, 2);
    if (x?.k === 'input') {
      // The firmware's input: the quantized tensor itself.
      const src = n.inputs[0];
      const prior = inputs.get(src);
      if (prior) {
        if (prior.scale !== q.scale || prior.zeroPoint !== q.zp || prior.dtype !== q.dtype) {
          throw unsupported(site, 'a graph input quantized twice with different parameters');
        }
        values.set(out, { k: 'int', name: prior.name, q });
        return;
      }
      w.b.tensor(out, q.dtype, ctx.shapeOf(out));
      inputs.set(src, { name: out, of: src, dtype: q.dtype, scale: q.scale, zeroPoint: q.zp, range: typeRange(q.dtype) });
      ctx.setInt(out, q);
      return;
    }
    if (x?.k === 'fq') {
      // Dequantize then quantize: the same tensor when the parameters agree, else one RequantShift.
      if (x.t.scale === q.scale && x.t.zp === q.zp && x.t.dtype === q.dtype) values.set(out, { k: 'int', name: x.t.name, q });
      else w.rescale(site, n.name, x.t, ctx.setInt(out, q), typeRange(q.dtype));
      return;
    }
    if (x?.k === 'pend') return emitPending(ctx, x.p, ctx.setInt(out, q), quantizedClip(q, x.lo, x.hi));
    throw unsupported(site, 'QuantizeLinear of a value that is neither a float graph input nor a dequantized or computed float tensor');
  }

  function dequantizeLinear(n: Node): void {
    const x = ctx.valueOf(n.inputs[0]);
    const out = n.outputs[0];
    const site = siteOf(n);
    if (x?.k === 'const') {
      // Weights or a bias: kept as integers with their scales and zero points along `axis`.
      if (attrInt(n, 'block_size', 0) !== 0) throw unsupported(site, 'blocked quantization (block_size)');
      const s = ctx.constant(n, 1, 'the scale')!;
      const z = ctx.constant(n, 2, 'the zero point');
      // ONNX ignores axis for a per-tensor scale (its default 1 is out of range for a 1-D bias, a legal model).
      const axis = s.data.length === 1 && (!z || z.data.length === 1) ? 0 : normAxis(attrInt(n, 'axis', 1), x.data.shape.length);
      values.set(out, { k: 'wq', w: { data: x.data, scales: Array.from(s.data, Math.fround), zps: z ? Array.from(z.data) : [0], axis } });
      return;
    }
    if (x?.k !== 'int') throw unsupported(site, 'DequantizeLinear of a tensor that is not integer');
    values.set(out, { k: 'fq', t: { name: x.name, ...ctx.actParams(n, 1, 2) } });
  }

  function otherOp(n: Node): void {
    const ins = n.inputs.map((i) => ctx.valueOf(i));
    if (ins.every((v) => v === undefined || v.k === 'const')) return ctx.fold(n);
    if (ins.some((v) => v?.k === 'input')) {
      throw unsupported(siteOf(n), 'reads a float graph input directly; the firmware takes quantized inputs (a QuantizeLinear must come first)');
    }
    if (ins.some((v) => v?.k === 'fq' || v?.k === 'pend' || v?.k === 'wq')) return lowerFloatOp(ctx, n);
    // An integer op between QOperator ops (MaxPool, Reshape, ... on uint8): kept as it is.
    for (const i of n.inputs) if (i && values.get(i)?.k === 'const') ctx.copyConstant(i);
    const x0 = ins[0]?.k === 'int' ? ins[0] : undefined;
    const renamed = n.inputs.map((i) => {
      const v = ctx.valueOf(i);
      return v?.k === 'int' ? v.name : i;
    });
    w.b.node(n.op, n.name, renamed, [...n.outputs], { ...n.attrs });
    for (const o of n.outputs) {
      values.set(o, { k: 'int', name: o, q: MOVEMENT.has(n.op) ? x0?.q : undefined });
      w.b.tensor(o, 'int32', []);
    }
  }

  // Outputs: the integer tensor behind each (a DequantizeLinear's input, or an integer output as it is).
  const outputs: QuantBoundary[] = g.outputs.map((o) => {
    const v = values.get(o);
    if (v?.k === 'fq') return { name: v.t.name, of: o, dtype: v.t.dtype, scale: v.t.scale, zeroPoint: v.t.zp, range: typeRange(v.t.dtype) };
    if (v?.k === 'int') {
      // An integer output without a quantization of its own (an accumulator): scale 1, int32.
      if (!v.q) return { name: v.name, of: o, dtype: 'int32', scale: 1, zeroPoint: 0, range: typeRange('int32') };
      return { name: v.name, of: o, dtype: v.q.dtype as QType, scale: v.q.scale, zeroPoint: v.q.zp, range: typeRange(v.q.dtype) };
    }
    throw new GenError('unsupported', 'graph output is not quantized: end it with QuantizeLinear (and DequantizeLinear) so the firmware computes it in integers', { tensor: o });
  });
  const ordered = g.inputs.map((name) => {
    const b = inputs.get(name);
    if (!b) throw new GenError('unsupported', 'float graph input read by no QuantizeLinear', { tensor: name });
    return b;
  });
  const lowered = w.b.graph(ordered.map((b) => b.name), outputs.map((b) => b.name));
  const ranges = new Map<string, IntRange>(ordered.map((b) => [b.name, { min: b.range[0], max: b.range[1] }]));
  for (const b of ordered) {
    const t = lowered.tensors.get(b.name)!;
    if (!isIntType(t.dtype)) t.dtype = b.dtype;
  }
  return { graph: inferGraph(lowered, ranges), inputs: ordered, outputs };
}
