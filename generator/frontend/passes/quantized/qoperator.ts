import { attrInt, attrNumber } from '../../../ir/attrs.js';
import type { Node } from '../../../ir/graph.js';
import { quantType } from '../../../reference/ops/quantize.js';
import { checkMatrix, unsupported, type LoweringContext } from './context.js';
import { siteOf, typeRange, type QConst, type QParams, type QType } from './emit.js';

/*
 * QOperator ops (onnxruntime's QOperator format, com.microsoft's QGemm/QLinearAdd/QLinearMul): integer tensors in
 * and out, scales and zero points as the op's own constant operands (SEMANTICS.md section 2). Each becomes the
 * exact integer accumulation and one requantization (emit.ts). Returns false for any other op.
 */

const f32 = Math.fround;

export function lowerQOperator(ctx: LoweringContext, n: Node): boolean {
  const { w } = ctx;
  const site = siteOf(n);
  const out = n.outputs[0];
  const rank = ctx.shapeOf(out).length;
  const full = (q: QParams): [number, number] => typeRange(q.dtype);
  switch (n.op) {
    case 'QLinearConv': {
      const x = ctx.intOperand(n, 0, ctx.actParams(n, 1, 2));
      const wt = ctx.weightOperand(n, 3, 4, 5, 0);
      const y = ctx.setInt(out, ctx.actParams(n, 6, 7));
      const O = wt.data.shape[0];
      const b = ctx.constant(n, 8, 'the bias');
      if (b && b.data.length !== O) throw unsupported(site, 'a bias that is not one value per output channel');
      const bias = b ? Array.from(b.data) : undefined;
      w.linear({ site, base: n.name, op: 'Conv', x, weights: { w: wt, outAxis: 0 }, bias, attrs: { ...n.attrs }, alpha: 1 }, y, full(y), rank);
      return true;
    }
    case 'QLinearMatMul': {
      const a = ctx.intOperand(n, 0, ctx.actParams(n, 1, 2));
      const yq = ctx.actParams(n, 6, 7);
      if (ctx.valueOf(n.inputs[3])?.k === 'const') {
        const wt = ctx.weightOperand(n, 3, 4, 5, 1);
        checkMatrix(n, wt);
        w.linear({ site, base: n.name, op: 'MatMul', x: a, weights: { w: wt, outAxis: 1 }, attrs: {}, alpha: 1 }, ctx.setInt(out, yq), full(yq), rank);
      } else {
        const b = ctx.intOperand(n, 3, ctx.actParams(n, 4, 5));
        w.matmul(site, n.name, a, b, ctx.setInt(out, yq), full(yq), rank, ctx.innerDim(n));
      }
      return true;
    }
    case 'QGemm': {
      const a = ctx.intOperand(n, 0, ctx.actParams(n, 1, 2));
      if (attrInt(n, 'transA', 0)) throw unsupported(site, 'QGemm with transA');
      if (!n.inputs[7] || !n.inputs[8]) throw unsupported(site, 'QGemm without y_scale and y_zero_point writes float; only the requantized form is lowered');
      const transB = attrInt(n, 'transB', 0);
      const outAxis = transB ? 0 : 1;
      const wt = ctx.weightOperand(n, 3, 4, 5, outAxis);
      checkMatrix(n, wt);
      const O = wt.data.shape[outAxis];
      // C is added to the accumulator as it is (int32, accumulator units).
      const c = ctx.constant(n, 6, 'C');
      if (c && c.data.length !== O && c.data.length !== 1) throw unsupported(site, 'a C that is not one value per output column');
      const bias = c ? Array.from({ length: O }, (_, j) => c.data[c.data.length > 1 ? j : 0]) : undefined;
      const y = ctx.setInt(out, ctx.actParams(n, 7, 8));
      const alpha = f32(attrNumber(n, 'alpha', 1));
      w.linear({ site, base: n.name, op: 'Gemm', x: a, weights: { w: wt, outAxis }, bias, attrs: { transB: { kind: 'int', value: transB } }, alpha }, y, full(y), rank);
      return true;
    }
    case 'QLinearAdd':
    case 'QLinearMul': {
      const a = ctx.intOperand(n, 0, ctx.actParams(n, 1, 2));
      const b = ctx.intOperand(n, 3, ctx.actParams(n, 4, 5));
      const y = ctx.setInt(out, ctx.actParams(n, 6, 7));
      if (n.op === 'QLinearAdd') w.add(site, n.name, a, b, y, full(y));
      else w.mul(site, n.name, a, b, y, full(y));
      return true;
    }
    case 'MatMulInteger':
    case 'ConvInteger':
      lowerInteger(ctx, n);
      return true;
    default:
      return false;
  }
}

/** MatMulInteger / ConvInteger: the exact int32 accumulator Σ (x - zx)(w - zw), no requantization. */
function lowerInteger(ctx: LoweringContext, n: Node): void {
  const { w } = ctx;
  const site = siteOf(n);
  const out = n.outputs[0];
  const rank = ctx.shapeOf(out).length;
  const zx = ctx.constant(n, 2, 'the input zero point');
  if (zx && zx.data.length !== 1) throw unsupported(site, 'a per-row input zero point');
  // Scales do not enter an accumulator: 1 stands in for them.
  const x = ctx.intOperand(n, 0, { scale: 1, zp: zx ? zx.data[0] : 0, dtype: quantType(zx) as QType });
  const conv = n.op === 'ConvInteger';
  if (ctx.valueOf(n.inputs[1])?.k !== 'const') {
    if (conv) throw unsupported(site, 'ConvInteger with non-constant weights');
    const zb = ctx.constant(n, 3, 'the zero point');
    if (zb && zb.data.length !== 1) throw unsupported(site, 'a per-column zero point of a non-constant B');
    const b = ctx.intOperand(n, 1, { scale: 1, zp: zb ? zb.data[0] : 0, dtype: quantType(zb) as QType });
    ctx.values.set(out, { k: 'int', name: w.matmul(site, out, x, b, undefined, [0, 0], rank, ctx.innerDim(n)) });
    return;
  }
  const data = ctx.constant(n, 1, 'the weight')!;
  const zw = ctx.constant(n, 3, 'the weight zero point');
  const wt: QConst = { data, scales: [1], zps: zw ? Array.from(zw.data) : [0], axis: conv ? 0 : 1 };
  if (!conv) checkMatrix(n, wt);
  const acc = w.linearAccumulator({ site, base: n.name, op: conv ? 'Conv' : 'MatMul', x, weights: { w: wt, outAxis: conv ? 0 : 1 }, attrs: { ...n.attrs }, alpha: 1 });
  ctx.values.set(out, { k: 'int', name: acc });
}
