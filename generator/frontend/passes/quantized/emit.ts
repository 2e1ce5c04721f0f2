import { GenError, type ErrorSite } from '../../../errors.js';
import { rangeOf, type DType, type IntType } from '../../../ir/dtype.js';
import type { AttrValue, Node } from '../../../ir/graph.js';
import { ndarray, type NDArray } from '../../../ir/ndarray.js';
import { GraphBuilder, int, ints } from '../../../quantize/builder.js';
import { addMulShift, FINE_MAX_SHIFT, fineMulShift, type MulShift } from '../../../quantize/fixed-point.js';
import { quantizeValue } from '../../../reference/ops/quantize.js';
import { roundHalfEven } from '../../../reference/exact.js';

/*
 * Writers of the integer dialect (SEMANTICS.md section 1) for the standard quantized ops (section 2). Every real
 * multiplier M becomes an integer (mul, shift) pair (quantize/fixed-point.ts), and every zero point becomes an exact
 * integer term:
 *   Σ (x - zx)(w - zw) = Σ x·w'  - zx·Σ w'          with w' = w - zw (a constant, stored as int8)
 * so the weights' zero point is subtracted from the constant weights, and zx·Σ w' (one number per output channel)
 * is subtracted from the int32 bias. A convolution whose padding would read x's zero point pads explicitly with zx
 * (a Pad node) so that every window is complete and the bias term is the same at every position.
 * The output zero point zy enters the RequantShift's add term as zy·2^shift, which is exact:
 *   floor((acc·mul + zy·2^s + 2^(s-1)) / 2^s) = floor((acc·mul + 2^(s-1)) / 2^s) + zy,
 * then the clip to the output type's range (narrowed by a fused Relu/Clip) is the saturation of QuantizeLinear.
 */

const f32 = Math.fround;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

export type QType = 'int8' | 'uint8';

/** Per-tensor quantization parameters of an activation. */
export interface QParams {
  scale: number;
  zp: number;
  dtype: QType;
}

/** What a RequantShift writes: a quantized tensor, or the int16 one before its zero point is added. */
type RequantTarget = Pick<QTensor, 'name' | 'zp'> & { dtype: QType | 'int16' };

/** An integer tensor of the lowered graph with its quantization. */
export interface QTensor extends QParams {
  name: string;
}

/** A constant read through DequantizeLinear (weights, biases): integer values, scales and zero points along `axis`. */
export interface QConst {
  data: NDArray;
  scales: number[];
  zps: number[];
  axis: number;
}

export function typeRange(t: QType | IntType): [number, number] {
  const r = rangeOf(t);
  return [r.min, r.max];
}

/** The integer clip range a real interval [lo, hi] becomes after QuantizeLinear with `y` (monotone, so exact). */
export function quantizedClip(y: QParams, lo: number, hi: number): [number, number] {
  const [tl, th] = typeRange(y.dtype);
  const r = { min: tl, max: th };
  const qlo = Number.isFinite(lo) ? quantizeValue(lo, f32(y.scale), y.zp, r) : tl;
  const qhi = Number.isFinite(hi) ? quantizeValue(hi, f32(y.scale), y.zp, r) : th;
  return [qlo, Math.max(qlo, qhi)];
}

/** n_levels/signed of RequantShift giving exactly [lo, hi], when one does. */
function levelsFor(lo: number, hi: number): { n: number; signed: number } | undefined {
  if (lo === 0) return { n: hi + 1, signed: 0 };
  if (lo === -(hi + 1)) return { n: 2 * (hi + 1), signed: 1 };
  return undefined;
}

/** The largest shift that keeps |zy| * 2^shift plus a margin for the other add terms inside int32. */
function maxShiftFor(zy: number): number {
  return zy === 0 ? FINE_MAX_SHIFT : Math.min(FINE_MAX_SHIFT, 30 - Math.ceil(Math.log2(Math.abs(zy) + 1)));
}

function fitsInt32(v: number): boolean {
  return Number.isSafeInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
}

function checkInt32(v: number, what: string, site: ErrorSite): number {
  if (!Number.isSafeInteger(v) || v < INT32_MIN || v > INT32_MAX) {
    throw new GenError('unsupported', `${what} (${v}) does not fit int32: no exact integer lowering`, site);
  }
  return v;
}

/** Weights of a linear op: layout facts the zero-point folding needs. */
export interface LinearWeights {
  w: QConst;
  /** Axis of w that indexes output channels. */
  outAxis: number;
}

export interface LinearSpec {
  site: ErrorSite;
  /** Name base for the nodes written. */
  base: string;
  op: 'Conv' | 'Gemm' | 'MatMul';
  x: QTensor;
  weights: LinearWeights;
  /** Bias per output channel in accumulator units (Σ (x-zx)(w-zw)), or none. */
  bias?: number[];
  /** Conv/Gemm attributes (Gemm alpha/beta already folded out by the caller). */
  attrs: Record<string, AttrValue>;
  /** Real factor of the product besides sx*sw (Gemm's alpha). */
  alpha: number;
}

/** The lowered graph under construction, with fresh names that never meet the original graph's. */
export class IntegerWriter {
  readonly b: GraphBuilder;
  private readonly taken: Set<string>;

  constructor(name: string, source: string, taken: Iterable<string>) {
    this.b = new GraphBuilder(name, source);
    this.taken = new Set(taken);
  }

  fresh(base: string): string {
    let name = base;
    for (let k = 1; this.taken.has(name); k++) name = `${base}_${k}`;
    this.taken.add(name);
    return name;
  }

  constant(base: string, dtype: DType, shape: readonly number[], values: ArrayLike<number>): string {
    return this.b.constant(this.fresh(base), dtype, shape, values);
  }

  node(op: string, base: string, inputs: string[], outputs: string[], attrs: Record<string, AttrValue> = {}): void {
    this.b.node(op, this.fresh(base), inputs, outputs, attrs);
  }

  /**
   * RequantShift(acc) -> y: mul per channel along `axis` of the output (rank `rank`) or one for all, add =
   * zy*2^shift + `extra`(mul), and the clip [lo, hi] (a Clip node after it when RequantShift's levels cannot say it).
   */
  requantize(site: ErrorSite, base: string, acc: string, mults: number[], axis: number | undefined, rank: number, y: QTensor,
    clip: [number, number], extra: (ms: MulShift) => number = () => 0): void {
    for (const m of mults) {
      if (!(m > 0) || !Number.isFinite(m)) throw new GenError('unsupported', `requantization multiplier ${m}: scales must be positive`, site);
    }
    // The largest shift whose add term (zy*2^shift plus the zero-point terms times mul) fits int32.
    // Multipliers of up to 24 bits (fixed-point.ts fineMulShift), the shift lowered until the add term fits.
    let ms = fineMulShift(mults, maxShiftFor(y.zp));
    while (ms.shift > 0 && !fitsInt32(y.zp * 2 ** ms.shift + extra(ms))) ms = fineMulShift(mults, ms.shift - 1);
    // When zy*2^shift cost the multiplier bits, zy is added after the shift instead (the same integers, see zeroPointAfter).
    const best = fineMulShift(mults);
    if (y.zp !== 0 && best.shift > ms.shift && fitsInt32(extra(best))) return this.zeroPointAfter(site, base, acc, best, axis, rank, y, clip, extra(best));
    this.requantizeBy(site, base, acc, ms, axis, rank, y, clip, extra(ms));
  }

  /**
   * RequantShift without zy (into int16), then + zy and the clip: floor((v + zy·2^s + 2^(s-1)) / 2^s) =
   * floor((v + 2^(s-1)) / 2^s) + zy, and the int16 clip first changes nothing, as |zy| <= 255 and [lo, hi] lies in
   * [-128, 255]. Three elementwise nodes the fusion joins into one pass.
   */
  private zeroPointAfter(site: ErrorSite, base: string, acc: string, ms: MulShift, axis: number | undefined, rank: number, y: QTensor,
    clip: [number, number], extra: number): void {
    const wide = this.fresh(`${base}_nozp`);
    this.requantizeBy(site, base, acc, ms, axis, rank, { name: wide, zp: 0, dtype: 'int16' }, [-32768, 32767], extra);
    const z = this.constant(`${base}_zy`, 'int32', [1], [y.zp]);
    const shifted = this.b.tensor(this.fresh(`${base}_zpadd`), 'int32', []);
    this.node('Add', `${base}_zp`, [wide, z], [shifted]);
    const [tl, th] = typeRange(y.dtype);
    const cl = this.constant(`${base}_lo`, 'int32', [], [Math.max(tl, clip[0])]);
    const ch = this.constant(`${base}_hi`, 'int32', [], [Math.min(th, clip[1])]);
    this.b.tensor(y.name, y.dtype, []);
    this.node('Clip', `${base}_clip`, [shifted, cl, ch], [y.name]);
  }

  /** RequantShift with a given (mul, shift); `extra` is added to the add term besides zy*2^shift. */
  requantizeBy(site: ErrorSite, base: string, acc: string, ms: MulShift, axis: number | undefined, rank: number, y: RequantTarget,
    clip: [number, number], extra: number): void {
    for (const m of ms.mul) checkInt32(m, 'requantization multiplier', site);
    const perChannel = ms.mul.some((m) => m !== ms.mul[0]);
    const mulShape = perChannel && axis !== undefined ? (axis === rank - 1 ? [ms.mul.length] : Array.from({ length: rank }, (_, i) => (i === axis ? ms.mul.length : 1))) : [1];
    const mul = this.constant(`${base}_mul`, 'int32', mulShape, perChannel ? ms.mul : [ms.mul[0]]);
    const addValue = checkInt32(y.zp * 2 ** ms.shift + extra, 'requantization add term', site);
    const add = this.constant(`${base}_add`, 'int32', [1], [addValue]);
    const [tl, th] = typeRange(y.dtype);
    const [lo, hi] = [Math.max(tl, clip[0]), Math.min(th, clip[1])];
    const levels = levelsFor(lo, hi);
    const attrs = (l: { n: number; signed: number }) => ({ div: int(2 ** ms.shift), n_levels: int(l.n), signed: int(l.signed) });
    if (levels) {
      this.b.tensor(y.name, y.dtype, []);
      this.node('RequantShift', `${base}_requant`, [acc, mul, add], [y.name], attrs(levels));
      return;
    }
    const wide = this.b.tensor(this.fresh(`${base}_rq`), y.dtype, []);
    this.node('RequantShift', `${base}_requant`, [acc, mul, add], [wide], attrs(levelsFor(tl, th)!));
    const cl = this.constant(`${base}_lo`, 'int32', [], [lo]);
    const ch = this.constant(`${base}_hi`, 'int32', [], [hi]);
    this.b.tensor(y.name, y.dtype, []);
    this.node('Clip', `${base}_clip`, [wide, cl, ch], [y.name]);
  }

  /**
   * Conv / Gemm / MatMul with constant weights: the int32 accumulator Σ (x - zx)(w - zw) + bias, exactly (see the
   * file comment), returned as a tensor name. `requant` then makes it y.
   */
  linearAccumulator(s: LinearSpec): string {
    const { w, outAxis } = s.weights;
    const shape = w.data.shape;
    const O = shape[outAxis];
    const inner = shape.slice(outAxis + 1).reduce((p, d) => p * d, 1);
    const channel = (i: number): number => Math.floor(i / inner) % O;
    const zw = (j: number): number => (w.zps.length > 1 ? w.zps[j] : w.zps[0] ?? 0);
    const shifted = new Float64Array(w.data.data.length);
    const sums = new Array<number>(O).fill(0);
    for (let i = 0; i < shifted.length; i++) {
      const j = channel(i);
      const v = w.data.data[i] - zw(j);
      if (v < -128 || v > 127) {
        throw new GenError('unsupported', `weight minus its zero point (${v}) is outside int8: the integer kernels take int8 weights`, s.site);
      }
      shifted[i] = v;
      sums[j] += v;
    }
    const bias = Array.from({ length: O }, (_, j) => checkInt32((s.bias?.[j] ?? 0) - s.x.zp * sums[j], 'bias with the input zero point folded in', s.site));
    const wName = this.constant(`${s.base}_w`, 'int8', shape, shifted);
    const biasName = bias.some((v) => v !== 0) ? this.constant(`${s.base}_b`, 'int32', [O], bias) : undefined;
    const acc = this.b.tensor(this.fresh(`${s.base}_acc`), 'int32', []);
    let x = s.x.name;
    const attrs = { ...s.attrs };
    if (s.op === 'Conv' && s.x.zp !== 0) x = this.padWithZeroPoint(s, attrs, shape.length - 2);
    if (s.op === 'MatMul') {
      const mm = biasName ? this.b.tensor(this.fresh(`${s.base}_mm`), 'int32', []) : acc;
      this.node('MatMul', s.base, [x, wName], [mm]);
      if (biasName) this.node('Add', `${s.base}_bias`, [mm, biasName], [acc]);
    } else {
      this.node(s.op, s.base, [x, wName, ...(biasName ? [biasName] : [])], [acc], attrs);
    }
    return acc;
  }

  /** An explicit Pad with x's zero point (the real 0) in place of the convolution's own zero padding. */
  private padWithZeroPoint(s: LinearSpec, attrs: Record<string, AttrValue>, spatial: number): string {
    const autoPad = attrs.auto_pad?.kind === 'string' ? attrs.auto_pad.value : 'NOTSET';
    if (autoPad !== 'NOTSET' && autoPad !== 'VALID') {
      throw new GenError('unsupported', `auto_pad ${autoPad} with a non-zero input zero point (give explicit pads)`, s.site);
    }
    const pads = attrs.pads?.kind === 'ints' ? attrs.pads.value : [];
    delete attrs.pads;
    if (!pads.some((p) => p !== 0)) return s.x.name;
    const full = [0, 0, ...pads.slice(0, spatial), 0, 0, ...pads.slice(spatial)];
    const padded = this.b.tensor(this.fresh(`${s.base}_padded`), s.x.dtype, []);
    this.node('Pad', `${s.base}_pad`, [s.x.name], [padded], { pads: ints(full), value: int(s.x.zp), mode: { kind: 'string', value: 'constant' } });
    return padded;
  }

  /** A linear op end to end: accumulator, then requantization with M_j = alpha*sx*sw_j / sy (ORT's order). */
  linear(s: LinearSpec, y: QTensor, clip: [number, number], rank: number): void {
    const acc = this.linearAccumulator(s);
    const O = s.weights.w.data.shape[s.weights.outAxis];
    const sw = (j: number): number => f32(s.weights.w.scales.length > 1 ? s.weights.w.scales[j] : s.weights.w.scales[0]);
    const mults = Array.from({ length: s.weights.w.scales.length > 1 ? O : 1 }, (_, j) => f32(f32(f32(f32(s.alpha) * f32(s.x.scale)) * sw(j)) / f32(y.scale)));
    this.requantize(s.site, s.base, acc, mults, s.op === 'Conv' ? 1 : rank - 1, rank, y, clip);
  }

  /** (x - zx) * sx/sy + zy with a clip: one RequantShift (the zero points in its add term). */
  rescale(site: ErrorSite, base: string, x: QTensor, y: QTensor, clip: [number, number]): void {
    const m = f32(f32(x.scale) / f32(y.scale));
    this.requantize(site, base, x.name, [m], undefined, 0, y, clip, (ms) => -x.zp * ms.mul[0]);
  }

  /**
   * QLinearAdd: each operand scaled by its own integer multiplier, summed, requantized (quantizer's lowering); with
   * `op` Sub, the difference (a Sub of two dequantized tensors: the second term subtracted, its zero-point term added).
   */
  add(site: ErrorSite, base: string, a: QTensor, c: QTensor, y: QTensor, clip: [number, number], op: 'Add' | 'Sub' = 'Add'): void {
    const ma = f32(f32(a.scale) / f32(y.scale));
    const mc = f32(f32(c.scale) / f32(y.scale));
    // The largest shift whose scaled operands, their sum and the add term stay in int32 (Mul and Add are int32 ops).
    const [A, C] = [a, c].map((x) => Math.max(...typeRange(x.dtype).map(Math.abs)));
    const sign = op === 'Sub' ? -1 : 1;
    const offsetOf = (m: MulShift): number => -(a.zp * m.mul[0] + sign * c.zp * m.mul[1]);
    const ms = addMulShift(ma, mc, A, C, maxShiftFor(y.zp), (m) => fitsInt32(y.zp * 2 ** m.shift + offsetOf(m)));
    for (const m of ms.mul) checkInt32(m, 'requantization multiplier', site);
    const terms = [a, c].map((x, i) => {
      const k = this.constant(`${base}_m${i}`, 'int32', [1], [ms.mul[i]]);
      const t = this.b.tensor(this.fresh(`${base}_t${i}`), 'int32', []);
      this.node('Mul', `${base}_scale${i}`, [x.name, k], [t]);
      return t;
    });
    const sum = this.b.tensor(this.fresh(`${base}_sum`), 'int32', []);
    this.node(op, base, terms, [sum]);
    // The sum carries a.zp*mul_a ± c.zp*mul_c too many: the add term removes it. mul 1 keeps the shift's meaning.
    const offset = offsetOf(ms);
    this.requantizeBy(site, base, sum, { mul: [1], shift: ms.shift }, undefined, 0, y, clip, offset);
  }

  /** QLinearMul: (a - za)(c - zc) in int32, requantized by sa*sc/sy. */
  mul(site: ErrorSite, base: string, a: QTensor, c: QTensor, y: QTensor, clip: [number, number]): void {
    const centred = [a, c].map((x, i) => {
      if (x.zp === 0) return x.name;
      const z = this.constant(`${base}_z${i}`, 'int32', [1], [x.zp]);
      const t = this.b.tensor(this.fresh(`${base}_c${i}`), 'int32', []);
      this.node('Sub', `${base}_centre${i}`, [x.name, z], [t]);
      return t;
    });
    const prod = this.b.tensor(this.fresh(`${base}_prod`), 'int32', []);
    this.node('Mul', base, centred, [prod]);
    const m = f32(f32(f32(a.scale) * f32(c.scale)) / f32(y.scale));
    this.requantize(site, base, prod, [m], undefined, 0, y, clip);
  }

  /**
   * Product of two activations: Σ_k (a - za)(c - zc) = Σ a·c - zc·Σ_k a - za·Σ_k c + K·za·zc, the row sums of a and
   * the column sums of c by ReduceSum (broadcast over the other axis). Without y: the int32 accumulator
   * (MatMulInteger).
   */
  matmul(site: ErrorSite, base: string, a: QTensor, c: QTensor, y: QTensor | undefined, clip: [number, number], rank: number, K: number): string {
    const noZero = a.zp === 0 && c.zp === 0;
    const mm = this.b.tensor(y || !noZero ? this.fresh(`${base}_mm`) : base, 'int32', []);
    this.node('MatMul', base, [a.name, c.name], [mm]);
    let acc = mm;
    const correct = (x: string, axis: number, factor: number, tag: string): void => {
      const axes = this.constant(`${base}_${tag}_axes`, 'int64', [1], [axis]);
      const sum = this.b.tensor(this.fresh(`${base}_${tag}_sum`), 'int32', []);
      this.node('ReduceSum', `${base}_${tag}_sum`, [x, axes], [sum], { keepdims: int(1) });
      const k = this.constant(`${base}_${tag}_zp`, 'int32', [1], [factor]);
      const term = this.b.tensor(this.fresh(`${base}_${tag}_term`), 'int32', []);
      this.node('Mul', `${base}_${tag}_scale`, [sum, k], [term]);
      const next = this.b.tensor(this.fresh(`${base}_${tag}_acc`), 'int32', []);
      this.node('Add', `${base}_${tag}_add`, [acc, term], [next]);
      acc = next;
    };
    if (c.zp !== 0) correct(a.name, -1, -c.zp, 'rows');
    if (a.zp !== 0) correct(c.name, -2, -a.zp, 'cols');
    // The constant term goes into the accumulator (an Add the elementwise fusion absorbs): times the multiplier
    // it would overflow the requant's int32 add term for uint8 zero points.
    const constant = K * a.zp * c.zp;
    if (constant !== 0) {
      const k = this.constant(`${base}_zz`, 'int32', [1], [checkInt32(constant, 'zero-point product term', site)]);
      const out = this.b.tensor(y ? this.fresh(`${base}_acc`) : base, 'int32', []);
      this.node('Add', `${base}_zz_add`, [acc, k], [out]);
      acc = out;
    }
    if (y) this.requantize(site, base, acc, [f32(f32(f32(a.scale) * f32(c.scale)) / f32(y.scale))], undefined, rank, y, clip);
    return acc;
  }

  /**
   * AveragePool (one divisor: the window's taps) as the quantizer lowers it: a depthwise convolution with weights 1
   * (its accumulator Σ (x - zx), the zero point folded and padded as for any convolution), requantized by
   * sx/(taps*sy).
   */
  averagePool(site: ErrorSite, base: string, x: QTensor, channels: number, nodeAttrs: Record<string, AttrValue>, y: QTensor, clip: [number, number]): void {
    const k = nodeAttrs.kernel_shape?.kind === 'ints' ? nodeAttrs.kernel_shape.value : [];
    const taps = k.reduce((p, d) => p * d, 1);
    const attrs: Record<string, AttrValue> = { kernel_shape: ints(k), group: int(channels) };
    for (const a of ['pads', 'strides'] as const) if (nodeAttrs[a]) attrs[a] = nodeAttrs[a];
    const ones: QConst = { data: ndarray('int8', [channels, 1, ...k], new Array<number>(channels * taps).fill(1)), scales: [1], zps: [0], axis: 0 };
    const acc = this.linearAccumulator({ site, base, op: 'Conv', x, weights: { w: ones, outAxis: 0 }, attrs, alpha: 1 });
    this.requantize(site, base, acc, [f32(f32(f32(x.scale) / taps) / f32(y.scale))], undefined, 0, y, clip);
  }

  /** GlobalAveragePool: the mean over the plane (axes 2 and on, kept). */
  globalAverage(site: ErrorSite, base: string, x: QTensor, xShape: number[], y: QTensor, clip: [number, number]): void {
    this.mean(site, base, x, xShape, xShape.slice(2).map((_, i) => i + 2), true, y, clip);
  }

  /** ReduceMean over `axes` (GlobalAveragePool's plane): Σx (ReduceSum), then (Σx - count*zx) * sx/(count*sy) + zy. */
  mean(site: ErrorSite, base: string, x: QTensor, xShape: number[], axes: number[], keep: boolean, y: QTensor, clip: [number, number]): void {
    const count = axes.reduce((p, a) => p * xShape[a], 1);
    const ax = this.constant(`${base}_axes`, 'int64', [axes.length], axes);
    const sum = this.b.tensor(this.fresh(`${base}_sum`), 'int32', []);
    this.node('ReduceSum', base, [x.name, ax], [sum], { keepdims: int(keep ? 1 : 0) });
    // Σ (x - zx) = Σx - count*zx: the constant added to the sum (an Add the elementwise fusion absorbs), where
    // times the multiplier it could leave the requant's int32 add term on a large plane.
    let acc = sum;
    if (x.zp !== 0) {
      const k = this.constant(`${base}_zx`, 'int32', [1], [checkInt32(-count * x.zp, 'zero-point sum term', site)]);
      acc = this.b.tensor(this.fresh(`${base}_centred`), 'int32', []);
      this.node('Add', `${base}_centre`, [sum, k], [acc]);
    }
    this.requantize(site, base, acc, [f32(f32(f32(x.scale) / count) / f32(y.scale))], undefined, 0, y, clip);
  }
}

/** Bias values in accumulator units: b / (alpha * sx * sw_j), exact when b was stored with that scale. */
export function biasToAccumulator(b: ArrayLike<number>, bScales: number[] | undefined, bZps: number[] | undefined, sx: number, sw: number[], alpha: number,
  channels: number): number[] {
  return Array.from({ length: channels }, (_, j) => {
    const v = b[b.length > 1 ? j : 0];
    const accScale = f32(f32(f32(alpha) * f32(sx)) * f32(sw.length > 1 ? sw[j] : sw[0]));
    if (!bScales) return roundHalfEven(v / accScale);
    const bs = f32(bScales.length > 1 ? bScales[j] : bScales[0]);
    const q = v - (bZps ? bZps[bZps.length > 1 ? j : 0] : 0);
    return bs === accScale ? q : roundHalfEven((q * bs) / accScale);
  });
}

/** A node's site for errors. */
export function siteOf(n: Node): ErrorSite {
  return { node: n.name, op: n.op };
}
