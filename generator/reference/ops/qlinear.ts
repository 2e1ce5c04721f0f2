import { attrInt, attrNumber } from '../../ir/attrs.js';
import type { IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, ndarray, type NDArray } from '../../ir/ndarray.js';
import { broadcastIndex } from '../broadcast.js';
import { roundHalfEven } from '../exact.js';
import {
  floatArray, INT32_RANGE, intArray, modelError, mulRange, need, rangeOfInfo, scaleRange, type OpSpec, type Operands,
  type TensorInfo,
} from '../op-spec.js';
import { convGeometry, convolve } from './conv.js';
import { transpose2D } from './gemm.js';
import { matmulDims, matmulInto } from './matmul.js';
import { quantRange, quantType } from './quantize.js';
import { windowOutputShape } from './window.js';

/*
 * QOperator ops: an exact integer accumulation of (a - za)(b - zb), then ORT's float requantization
 * (MlasRequantizeOutput): y = saturate(round_half_even(float32(acc) * M) + zy) with the float32 multiplier
 * M = (sa * sb) / sy computed in that order. MatMulInteger / ConvInteger stop at the accumulator.
 */

const f32 = Math.fround;

export function requantizeFloat(acc: number, m: number, zp: number, r: IntRange): number {
  const q = roundHalfEven(f32(f32(acc) * m)) + zp;
  return q < r.min ? r.min : q > r.max ? r.max : q;
}

/** Values minus a zero point that is per-tensor, or per index along the axis chosen by `index`. */
function shifted(x: NDArray, zp: NDArray | undefined, index: (i: number) => number): Float64Array {
  if (!zp) return x.data;
  if (zp.data.length <= 1) {
    const z = zp.data[0] ?? 0;
    return x.data.map((v) => v - z);
  }
  return x.data.map((v, i) => v - zp.data[index(i)]);
}

/** Per-tensor or per-column (length N) parameter lookup. */
const perColumn = (p: NDArray, n: number): number => (p.data.length > 1 ? p.data[n] : p.data[0]);

/** The integer product of a (.., M, K) and b (.., K, N) with zero points; b's zero point may be per column. */
function integerMatMul(node: Node, a: NDArray, za: NDArray | undefined, b: NDArray, zb: NDArray | undefined): { out: NDArray; N: number } {
  const d = matmulDims(node, a.shape, b.shape);
  const aRow = (i: number) => Math.floor(i / d.K) % d.M; // MatMulInteger allows a per-row a zero point
  const out = intArray(d.out);
  matmulInto(d, shifted(a, za, aRow), shifted(b, zb, (i) => i % d.N), false, out.data);
  return { out, N: d.N };
}

function requantOutput(node: Node, acc: NDArray, scaleOf: (i: number) => number, zp: NDArray | undefined): NDArray {
  const t = quantType(zp);
  const r = quantRange(node, t);
  const z = zp ? zp.data[0] : 0;
  const out = ndarray(t, acc.shape);
  for (let i = 0; i < acc.data.length; i++) out.data[i] = requantizeFloat(acc.data[i], scaleOf(i), z, r);
  return out;
}

const shape0 = (node: Node, inputs: Operands<TensorInfo>, ia: number, ib: number) =>
  [matmulDims(node, need(node, inputs, ia).shape, need(node, inputs, ib).shape).out];

/** Interval of a sum of K products of zero-point-shifted operands. */
function shiftedDotRange(a: TensorInfo, za: TensorInfo | undefined, b: TensorInfo, zb: TensorInfo | undefined, K: number): IntRange {
  const shift = (x: TensorInfo, z: TensorInfo | undefined): IntRange => {
    const r = rangeOfInfo(x);
    const zr = z ? rangeOfInfo(z) : { min: 0, max: 0 };
    return { min: r.min - zr.max, max: r.max - zr.min };
  };
  return scaleRange(mulRange(shift(a, za), shift(b, zb)), K);
}

export const qlinearMatMulOp: OpSpec = {
  ops: ['QLinearMatMul'],
  shape: (node, inputs) => shape0(node, inputs, 0, 3),
  dtype: (node, inputs) => [quantType(inputs[7])],
  range: (node, inputs) => [quantRange(node, quantType(inputs[7]))],
  evaluate(node, inputs) {
    const { out: acc, N } = integerMatMul(node, need(node, inputs, 0), inputs[2], need(node, inputs, 3), inputs[5]);
    const sA = f32(need(node, inputs, 1, 'a_scale').data[0]);
    const sB = need(node, inputs, 4, 'b_scale');
    const sY = f32(need(node, inputs, 6, 'y_scale').data[0]);
    const ms = Array.from({ length: N }, (_, n) => f32(f32(sA * f32(perColumn(sB, n))) / sY));
    return [requantOutput(node, acc, (i) => ms[i % N], inputs[7])];
  },
};

export const matMulIntegerOp: OpSpec = {
  ops: ['MatMulInteger'],
  shape: (node, inputs) => shape0(node, inputs, 0, 1),
  range(node, inputs) {
    const a = need(node, inputs, 0);
    const b = need(node, inputs, 1);
    return [shiftedDotRange(a, inputs[2], b, inputs[3], matmulDims(node, a.shape, b.shape).K)];
  },
  evaluate: (node, inputs) => [integerMatMul(node, need(node, inputs, 0), inputs[2], need(node, inputs, 1), inputs[3]).out],
};

/** Integer convolution of (x - zx) and (w - zw[o]) plus an optional int32 bias; padding reads x's zero point. */
function integerConv(node: Node, x: NDArray, zx: NDArray | undefined, w: NDArray, zw: NDArray | undefined, bias?: NDArray): NDArray {
  const geo = convGeometry(node, x.shape, w.shape);
  const perOut = w.data.length / geo.O;
  if (bias && bias.data.length !== geo.O) throw modelError(node, `bias ${formatShape(bias.shape)} for ${geo.O} channels`);
  const out = intArray(windowOutputShape(geo.g, geo.O));
  convolve(geo, shifted(x, zx, () => 0), shifted(w, zw, (i) => Math.floor(i / perOut)), bias?.data, false, out.data);
  return out;
}

function convShape(node: Node, inputs: Operands<TensorInfo>, ix: number, iw: number): number[][] {
  const geo = convGeometry(node, need(node, inputs, ix).shape, need(node, inputs, iw).shape);
  return [windowOutputShape(geo.g, geo.O)];
}

export const qlinearConvOp: OpSpec = {
  ops: ['QLinearConv'],
  shape: (node, inputs) => convShape(node, inputs, 0, 3),
  dtype: (node, inputs) => [quantType(inputs[7])],
  range: (node, inputs) => [quantRange(node, quantType(inputs[7]))],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const w = need(node, inputs, 3);
    const acc = integerConv(node, x, inputs[2], w, inputs[5], inputs[8]);
    const sX = f32(need(node, inputs, 1, 'x_scale').data[0]);
    const sY = f32(need(node, inputs, 6, 'y_scale').data[0]);
    const sW = need(node, inputs, 4, 'w_scale');
    const O = w.shape[0];
    const ms = Array.from({ length: O }, (_, o) => f32(f32(sX * f32(perColumn(sW, o))) / sY));
    const plane = acc.data.length / (acc.shape[0] * O);
    return [requantOutput(node, acc, (i) => ms[Math.floor(i / plane) % O], inputs[7])];
  },
};

export const convIntegerOp: OpSpec = {
  ops: ['ConvInteger'],
  shape: (node, inputs) => convShape(node, inputs, 0, 1),
  range(node, inputs) {
    const w = need(node, inputs, 1);
    const taps = w.shape.slice(1).reduce((p, d) => p * d, 1);
    return [shiftedDotRange(need(node, inputs, 0), inputs[2], w, inputs[3], taps)];
  },
  evaluate: (node, inputs) => [integerConv(node, need(node, inputs, 0), inputs[2], need(node, inputs, 1), inputs[3])],
};

/**
 * QGemm (com.microsoft): acc = C + sum (a - za)(b - zb) on A' and B' (transA/transB), scale per column
 * alpha*sa*sb[n] (/ sy). With y_zero_point the result is requantized; without, it is float32 acc * scale.
 */
export const qgemmOp: OpSpec = {
  ops: ['QGemm'],
  shape(node, inputs) {
    const t = (s: number[], tr: string) => (attrInt(node, tr, 0) ? [s[1], s[0]] : s);
    return [matmulDims(node, t(need(node, inputs, 0).shape, 'transA'), t(need(node, inputs, 3).shape, 'transB')).out];
  },
  dtype: (node, inputs) => [inputs[8] ? quantType(inputs[8]) : 'float32'],
  range: (node, inputs) => [inputs[8] ? quantRange(node, quantType(inputs[8])) : INT32_RANGE],
  evaluate(node, inputs) {
    let a = need(node, inputs, 0);
    let b = need(node, inputs, 3);
    if (attrInt(node, 'transA', 0)) a = transpose2D(a);
    if (attrInt(node, 'transB', 0)) b = transpose2D(b);
    const { out: acc, N } = integerMatMul(node, a, inputs[2], b, inputs[5]);
    const c = inputs[6];
    if (c) {
      const cm = broadcastIndex(c.shape, acc.shape);
      for (let i = 0; i < acc.data.length; i++) acc.data[i] += c.data[cm[i]];
    }
    const alpha = f32(attrNumber(node, 'alpha', 1));
    const sA = f32(need(node, inputs, 1, 'a_scale').data[0]);
    const sB = need(node, inputs, 4, 'b_scale');
    const sY = inputs[7];
    const ms = Array.from({ length: N }, (_, n) => {
      const s = f32(f32(alpha * sA) * f32(perColumn(sB, n)));
      return sY ? f32(s / f32(sY.data[0])) : s;
    });
    if (!inputs[8]) {
      const out = floatArray(acc.shape);
      for (let i = 0; i < acc.data.length; i++) out.data[i] = f32(f32(acc.data[i]) * ms[i % N]);
      return [out];
    }
    return [requantOutput(node, acc, (i) => ms[i % N], inputs[8])];
  },
};
