import { GenError } from '../errors.js';
import { roundHalfEven } from '../reference/exact.js';
import { int } from './builder.js';
import { scaleFor, toMulShift, WEIGHT_MAX } from './fixed-point.js';
import type { LowerCtx } from './lower.js';
import type { AddConstUnit, CenterUnit, EmbedUnit, LutUnit, MulConstUnit, RmsNormUnit, Unit } from './types.js';

/*
 * Integer forms of the transformer units (SEMANTICS.md section 1 ops only):
 *   rmsnorm   Mul(x, 2^p) -> iRMSNorm(., w) with w = round(gain * D / s_y), D = 2^k. RMSNorm is scale-free in x,
 *             so x's scale drops out; the pre-shift 2^p makes isqrt's truncation small (an int8 row of RMS 20 has
 *             std in [20, 21): up to 5% off; times 2^p it is 2^-p of that), as far as the sum of squares stays in
 *             int32. k is the largest that keeps every |w| below 2^15.
 *   center    N*x - ReduceSum(x) (exact in int32) -> RequantShift(s_x / (N s_y)): x - mean(x) over the last axis.
 *   lut       Gather(table, x): table[i] = f(code(i) * s_x) / s_y rounded and clipped, code(i) = i, or i - 256 for
 *             i >= 128 when x is signed (Gather reads a negative index from the end).
 *   mul       Mul(a, b) -> RequantShift(s_a s_b / s_y).
 *   mulconst  Mul(x, c_q) -> RequantShift(s_x s_c / s_y), c_q = c / s_c in int8 (s_c = 1 when c is small integers).
 *   addconst  mask: Add(x, 0 | -2^(bits+1)) -> RequantShift(1, 0) with x's range (masked entries land on the
 *             bottom); else Mul(x, m) + round(c * 2^shift / s_y) -> RequantShift(1, shift), m / 2^shift = s_x / s_y.
 *   scale     Identity: the integers are unchanged, the scale carries the factor.
 *   embed     Gather(int8 table, ids), table scale max|T| / 127.
 *   cache     CacheWrite as is: the cache input takes the written value's grid (params.ts).
 *   posmask   Identity when an iSoftmax follows (it takes the position operand and spans entries 0..pos only),
 *             else PositionMask with fill = the bottom of x's integer range.
 */

const f32 = Math.fround;
const INT32_LIMIT = 2 ** 30;

export function lowerTransformerUnit(u: Unit, c: LowerCtx): void {
  switch (u.kind) {
    case 'rmsnorm': return rmsnorm(u, c);
    case 'center': return center(u, c);
    case 'lut': return lut(u, c);
    case 'mul': {
      const a = c.acc(u.name, c.shapeOf(u.out));
      c.b.node('Mul', u.name, [u.a, u.b], [a]);
      return c.requantize(u.name, a, u.out, toMulShift([f32(f32(c.q(u.a).scale * c.q(u.b).scale) / c.q(u.out).scale)]));
    }
    case 'mulconst': return mulconst(u, c);
    case 'addconst': return addconst(u, c);
    case 'scale':
      c.declare(u.out);
      c.b.node('Identity', u.name, [u.x], [u.out]);
      return;
    case 'embed': return embed(u, c);
    case 'cache': {
      c.declare(u.out);
      const [cache, x, position] = u.node.inputs;
      const at = u.row === undefined ? position : c.b.constant(`${u.name}_row`, 'int32', [1], [u.row]);
      c.b.node('CacheWrite', u.name, [cache, x, at], [u.out], { ...u.node.attrs });
      return;
    }
    case 'posmask':
      c.declare(u.out);
      // The iSoftmax that follows takes the position and ignores the entries past it (lower.ts): no op of its own.
      if (c.feedsSoftmax(u.out)) c.b.node('Identity', u.name, [u.x], [u.out]);
      else c.b.node('PositionMask', u.name, [...u.node.inputs], [u.out], { fill: int(rangeOf(c, u.out)[0]) });
      return;
    default: throw new GenError('internal', `no transformer lowering for a ${u.kind} unit`);
  }
}

/** Largest k <= limit with round(top * 2^k) < 2^15. */
function fracBits(top: number, limit: number): number {
  let k = 0;
  while (k < limit && Math.round(top * 2 ** (k + 1)) < 2 ** 15) k++;
  return k;
}

function rmsnorm(u: RmsNormUnit, c: LowerCtx): void {
  const xq = c.q(u.x);
  const shape = c.shapeOf(u.x);
  const width = shape[shape.length - 1];
  // Pre-shift: width * (qmax * 2^p)^2 < 2^31.
  const xmax = xq.qmax + 1;
  let p = 0;
  while (width * (xmax * 2 ** (p + 1)) ** 2 < 2 ** 31) p++;
  let x = u.x;
  if (p > 0) {
    c.b.constant(`${u.name}_pre`, 'int32', [1], [2 ** p]);
    x = c.b.tensor(`${u.name}_x`, 'int32', shape);
    c.b.node('Mul', `${u.name}_preshift`, [u.x, `${u.name}_pre`], [x]);
  }
  const sy = c.q(u.out).scale;
  const ratio = Array.from(u.gain, (g) => g / sy);
  const top = Math.max(...ratio.map(Math.abs));
  if (!(top > 0)) throw new GenError('unsupported', 'RMSNorm with an all-zero gain', { node: u.name });
  if (Math.round(top) >= 2 ** 15) throw new GenError('unsupported', `RMSNorm gain / output scale ${top.toFixed(0)} does not fit 15 bits`, { node: u.name });
  const k = fracBits(top, 24);
  c.b.constant(`${u.name}_w`, 'int32', [width], ratio.map((r) => roundHalfEven(r * 2 ** k)));
  c.declare(u.out);
  c.b.node('iRMSNorm', u.name, [x, `${u.name}_w`], [u.out], { D: int(2 ** k), n_levels: int(256) });
}

function center(u: CenterUnit, c: LowerCtx): void {
  const shape = c.shapeOf(u.x);
  const rank = shape.length;
  const n = shape[rank - 1];
  c.b.constant(`${u.name}_axes`, 'int64', [1], [rank - 1]);
  const sum = c.b.tensor(`${u.name}_sum`, 'int32', [...shape.slice(0, -1), 1]);
  c.b.node('ReduceSum', `${u.name}_sum`, [u.x, `${u.name}_axes`], [sum], { keepdims: int(1) });
  c.b.constant(`${u.name}_n`, 'int32', [1], [n]);
  const xn = c.b.tensor(`${u.name}_xn`, 'int32', shape);
  c.b.node('Mul', `${u.name}_times_n`, [u.x, `${u.name}_n`], [xn]);
  const a = c.acc(u.name, shape);
  c.b.node('Sub', u.name, [xn, sum], [a]);
  c.requantize(u.name, a, u.out, toMulShift([f32(f32(c.q(u.x).scale / n) / c.q(u.out).scale)]));
}

/** The integer range of an activation quantization: [-(qmax+1), qmax] signed (the type's saturation), [0, qmax]. */
function rangeOf(c: LowerCtx, t: string): [number, number] {
  const q = c.q(t);
  return q.signed ? [-(q.qmax + 1), q.qmax] : [0, q.qmax];
}

function lut(u: LutUnit, c: LowerCtx): void {
  const xq = c.q(u.x);
  if (xq.bits !== 8) throw new GenError('unsupported', `${u.what} of a ${xq.bits}-bit tensor: a table needs an 8-bit input`, { node: u.name });
  const sy = c.q(u.out).scale;
  const [lo, hi] = rangeOf(c, u.out);
  const table = Array.from({ length: 256 }, (_, i) => {
    const code = xq.signed && i >= 128 ? i - 256 : i;
    return Math.min(hi, Math.max(lo, roundHalfEven(u.fn(code * xq.scale) / sy)));
  });
  const outT = c.b.tensors.get(c.declare(u.out))!;
  c.b.constant(`${u.name}_table`, outT.dtype, [256], table);
  c.b.node('Gather', u.name, [`${u.name}_table`, u.x], [u.out], { axis: int(0) });
}

/** A constant in int8: small integers as they are (scale 1), else symmetric with scale max|c| / 127. */
function int8Constant(values: Float64Array, given?: number): { q: number[]; scale: number } {
  if (given === undefined && values.every((v) => Number.isInteger(v) && Math.abs(v) <= WEIGHT_MAX)) return { q: Array.from(values), scale: 1 };
  const scale = given ?? scaleFor(values.reduce((m, v) => Math.max(m, Math.abs(v)), 0), WEIGHT_MAX, false);
  return { q: Array.from(values, (v) => Math.max(-WEIGHT_MAX, Math.min(WEIGHT_MAX, roundHalfEven(v / scale)))), scale };
}

function mulconst(u: MulConstUnit, c: LowerCtx): void {
  const k = int8Constant(u.c, u.cScale);
  c.b.constant(`${u.name}_c`, 'int8', u.cShape, k.q);
  const a = c.acc(u.name, c.shapeOf(u.out));
  c.b.node('Mul', u.name, [u.x, `${u.name}_c`], [a]);
  c.requantize(u.name, a, u.out, toMulShift([f32(f32(c.q(u.x).scale * k.scale) / c.q(u.out).scale)]));
}

function addconst(u: AddConstUnit, c: LowerCtx): void {
  const a = c.acc(u.name, c.shapeOf(u.out));
  if (u.mask) {
    const [lo] = rangeOf(c, u.out);
    c.b.constant(`${u.name}_mask`, 'int32', u.cShape, Array.from(u.c, (v) => (v === 0 ? 0 : 2 * lo)));
    c.b.node('Add', u.name, [u.x, `${u.name}_mask`], [a]);
    return c.requantize(u.name, a, u.out, { mul: [1], shift: 0 });
  }
  const sy = c.q(u.out).scale;
  const ms = toMulShift([f32(c.q(u.x).scale / sy)], 20);
  c.b.constant(`${u.name}_m`, 'int32', [1], ms.mul);
  const t = c.b.tensor(`${u.name}_t`, 'int32', c.shapeOf(u.x));
  c.b.node('Mul', `${u.name}_scale`, [u.x, `${u.name}_m`], [t]);
  const cq = Array.from(u.c, (v) => Math.max(-INT32_LIMIT, Math.min(INT32_LIMIT, roundHalfEven((v / sy) * 2 ** ms.shift))));
  c.b.constant(`${u.name}_c`, 'int32', u.cShape, cq);
  c.b.node('Add', u.name, [t, `${u.name}_c`], [a]);
  c.requantize(u.name, a, u.out, { mul: [1], shift: ms.shift });
}

function embed(u: EmbedUnit, c: LowerCtx): void {
  const s = c.q(u.out).scale;
  c.b.constant(`${u.name}_table`, 'int8', u.tableShape, Array.from(u.table, (v) => Math.max(-WEIGHT_MAX, Math.min(WEIGHT_MAX, roundHalfEven(v / s)))));
  c.declare(u.out);
  c.b.node('Gather', u.name, [`${u.name}_table`, u.indices], [u.out], { ...u.node.attrs });
}
