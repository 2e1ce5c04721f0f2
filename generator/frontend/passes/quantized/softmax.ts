import { attrInt } from '../../../ir/attrs.js';
import type { Node } from '../../../ir/graph.js';
import { int } from '../../../quantize/builder.js';
import { normAxis } from '../../../reference/broadcast.js';
import { unsupported, type LoweringContext, type Pending } from './context.js';
import { siteOf, typeRange, type QTensor } from './emit.js';

/*
 * Softmax between DequantizeLinear and QuantizeLinear (onnxruntime computes it in float32), as TableSoftmax
 * (SEMANTICS.md section 1). The row's largest code m gives the largest real value, and every other entry's exponent
 * is exp(-(m - x)·sx) with m - x an integer in [0, 255]: a 256-entry table T[d] = round(2^F·exp(-d·sx)) holds them
 * all. The probability e/S times 1/sy is then one exact division, e·mul / (S·2^shift) with mul/2^shift = 1/sy held to
 * 25 bits, rounded half up (QuantizeLinear rounds half to even: the two differ only at exact ties). The table's
 * rounding moves a probability by at most L·2^-(F+1) (the row's largest entry is 1): with F = 22 and rows of 16, about
 * 2^-11 of an output step for sy = 1/256.
 */

/** Fraction bits of the exponent table at most (fewer for long rows and small output scales, below). */
const TABLE_BITS = 24;
/** The output multiplier 1/sy as mul / 2^shift with mul below this. */
const MUL_LIMIT = 2 ** 25;

export type SoftmaxPending = Extract<Pending, { kind: 'softmax' }>;

/** The pending softmax of a dequantized tensor along its last axis. */
export function softmaxOp(ctx: LoweringContext, n: Node, x: QTensor): SoftmaxPending {
  const rank = ctx.shapeOf(n.inputs[0]).length;
  const axis = normAxis(attrInt(n, 'axis', -1), rank);
  if (axis !== rank - 1) throw unsupported(siteOf(n), `Softmax along axis ${axis} of a rank-${rank} tensor (the last axis is lowered)`);
  return { kind: 'softmax', node: n, x };
}

/** TableSoftmax writing y (clip: y's integer range after a Relu/Clip). */
export function emitSoftmax(ctx: LoweringContext, p: SoftmaxPending, y: QTensor, clip: [number, number]): void {
  const site = siteOf(p.node);
  const shape = ctx.shapeOf(p.node.inputs[0]);
  const L = shape[shape.length - 1];
  // 1/sy as mul/2^shift, mul in [2^24, 2^25) (exact division by sy's reciprocal in double, then one rounding).
  let shift = 62;
  while (shift > 0 && Math.round(2 ** shift / y.scale) >= MUL_LIMIT) shift--;
  const mul = Math.round(2 ** shift / y.scale);
  if (mul >= MUL_LIMIT || mul < 1) throw unsupported(site, `output scale ${y.scale}: 1/scale is not held by a 25-bit multiplier`);
  // The row's sum times 2^shift, and an entry times mul, stay below 2^62; down to 16 bits, the sum and an entry's
  // quotient before the division by the sum (about 2^bits/sy) also stay below 2^32, so a 32-bit core divides in 32 bits.
  let bits = TABLE_BITS;
  while (bits > 8 && L * 2 ** (bits + shift) >= 2 ** 62) bits--;
  while (bits > 16 && (L * 2 ** bits >= 2 ** 32 || 2 ** bits / y.scale + L >= 2 ** 32)) bits--;
  if (L * 2 ** (bits + shift) >= 2 ** 62) throw unsupported(site, `a row of ${L} entries: the exact division would pass 64 bits`);
  const table = Array.from({ length: 256 }, (_, d) => Math.round(2 ** bits * Math.exp(-d * p.x.scale)));
  const [tl, th] = typeRange(y.dtype);
  const t = ctx.w.constant(`${p.node.name}_exp`, 'int32', [256], table);
  ctx.w.b.tensor(y.name, y.dtype, []);
  ctx.w.node('TableSoftmax', p.node.name, [p.x.name, t], [y.name], {
    mul: int(mul), shift: int(shift), zero_point: int(y.zp), lo: int(Math.max(tl, clip[0])), hi: int(Math.min(th, clip[1])),
  });
}
