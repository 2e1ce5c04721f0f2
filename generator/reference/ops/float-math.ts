import { attrInt } from '../../ir/attrs.js';
import type { DType } from '../../ir/dtype.js';
import { ndarray } from '../../ir/ndarray.js';
import { broadcastIndex, broadcastShapes, describeShapes } from '../broadcast.js';
import { floatArray, isFloatType, modelError, need, rangeOfInfo, unsupported, type OpSpec } from '../op-spec.js';

/*
 * The float ops a model exported from PyTorch uses around its quantizable layers (RMSNorm's Pow/Sqrt/Reciprocal, GELU's Erf,
 * SiLU's Sigmoid, rotary embeddings' Neg, masks' Where/Cast). The quantizer runs them on the float model only
 * (calibration and the float side of the report), so they are float32 results of float64 math rounded once: close to
 * ONNX Runtime's, not promised bit-equal to it (transcendental functions differ in the last bit between libraries).
 * Neg also takes integers (exact).
 */

const f32 = Math.fround;

function floatUnary(op: string, fn: (v: number) => number): OpSpec {
  return {
    ops: [op],
    shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
    evaluate(node, inputs) {
      const x = need(node, inputs, 0);
      if (!isFloatType(x.dtype)) throw unsupported(node, `${op} of an integer tensor`);
      const out = floatArray(x.shape);
      for (let i = 0; i < out.data.length; i++) out.data[i] = f32(fn(f32(x.data[i])));
      return [out];
    },
  };
}

/**
 * erf in float64 (JavaScript has none): the Maclaurin series below |x| = 3 (terms fall below 2^-60 of the sum; the
 * largest term at 3 is ~170, so ~1e-14 is lost to cancellation), erfc's continued fraction (60 terms, evaluated from
 * the tail) up to 6, and +-1 beyond (erfc(6) < 3e-17). Used by GELU's float form (calibration, its table).
 */
export function erf(x: number): number {
  const a = Math.abs(x);
  if (Number.isNaN(x)) return NaN;
  if (a >= 6) return Math.sign(x);
  if (a < 3) {
    let term = x;
    let sum = x;
    for (let n = 1; Math.abs(term) > 1e-18 * Math.abs(sum) && n < 200; n++) {
      term *= (-x * x) / n;
      sum += term / (2 * n + 1);
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = a;
  for (let k = 60; k >= 1; k--) f = a + k / 2 / f;
  const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

export const erfOp = floatUnary('Erf', erf);
export const sqrtOp = floatUnary('Sqrt', Math.sqrt);
export const reciprocalOp = floatUnary('Reciprocal', (v) => 1 / v);
export const sigmoidOp = floatUnary('Sigmoid', (v) => 1 / (1 + Math.exp(-v)));
export const tanhOp = floatUnary('Tanh', Math.tanh);
export const expOp = floatUnary('Exp', Math.exp);

export const negOp: OpSpec = {
  ops: ['Neg'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range(_node, inputs) {
    const r = rangeOfInfo(inputs[0]);
    return [{ min: -r.max, max: -r.min }];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const out = isFloatType(x.dtype) ? floatArray(x.shape) : ndarray('int64', x.shape);
    for (let i = 0; i < out.data.length; i++) out.data[i] = x.data[i] === 0 ? 0 : -x.data[i];
    return [out];
  },
};

function broadcastAll(node: Parameters<OpSpec['shape']>[0], shapes: number[][]): number[] {
  let s: number[] | null = shapes[0];
  for (const t of shapes.slice(1)) s = s && broadcastShapes(s, t);
  if (!s) throw modelError(node, `cannot broadcast ${describeShapes(shapes)}`);
  return s;
}

/** Pow with a float base: float64 power rounded once (an integer exponent 2, what RMSNorm uses, is exact). */
export const powOp: OpSpec = {
  ops: ['Pow'],
  shape: (node, inputs) => [broadcastAll(node, [need(node, inputs, 0).shape, need(node, inputs, 1).shape])],
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const a = need(node, inputs, 0);
    const b = need(node, inputs, 1);
    if (!isFloatType(a.dtype)) throw unsupported(node, 'Pow of an integer base');
    const shape = broadcastAll(node, [a.shape, b.shape]);
    const am = broadcastIndex(a.shape, shape);
    const bm = broadcastIndex(b.shape, shape);
    const out = floatArray(shape);
    for (let i = 0; i < out.data.length; i++) out.data[i] = f32(f32(a.data[am[i]]) ** b.data[bm[i]]);
    return [out];
  },
};

/** Where(cond, x, y): x where cond is non-zero, else y; the output takes x's element type. */
export const whereOp: OpSpec = {
  ops: ['Where'],
  shape: (node, inputs) => [broadcastAll(node, [0, 1, 2].map((i) => need(node, inputs, i).shape))],
  dtype: (node, inputs) => [isFloatType(need(node, inputs, 1).dtype) || isFloatType(need(node, inputs, 2).dtype) ? 'float32' : undefined],
  evaluate(node, inputs) {
    const [c, x, y] = [0, 1, 2].map((i) => need(node, inputs, i));
    const shape = broadcastAll(node, [c.shape, x.shape, y.shape]);
    const [cm, xm, ym] = [c, x, y].map((t) => broadcastIndex(t.shape, shape));
    const float = isFloatType(x.dtype) || isFloatType(y.dtype);
    const out = float ? floatArray(shape) : ndarray(x.dtype, shape);
    for (let i = 0; i < out.data.length; i++) out.data[i] = c.data[cm[i]] !== 0 ? x.data[xm[i]] : y.data[ym[i]];
    return [out];
  },
};

/** ONNX TensorProto element types Cast can produce here. */
const CAST_TO: Record<number, DType> = { 1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool', 11: 'float64' };

/** Cast: float to integer truncates toward zero (C semantics, as ONNX Runtime); to bool is "non-zero". */
export const castOp: OpSpec = {
  ops: ['Cast'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  dtype(node) {
    const to = CAST_TO[attrInt(node, 'to', 1)];
    if (!to) throw unsupported(node, `Cast to element type ${attrInt(node, 'to', 1)}`);
    return [to];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const to = CAST_TO[attrInt(node, 'to', 1)];
    if (!to) throw unsupported(node, `Cast to element type ${attrInt(node, 'to', 1)}`);
    const out = ndarray(to === 'float64' ? 'float32' : to, x.shape);
    for (let i = 0; i < out.data.length; i++) {
      const v = x.data[i];
      out.data[i] = to === 'bool' ? (v !== 0 ? 1 : 0) : isFloatType(to) ? f32(v) : Math.trunc(v);
    }
    return [out];
  },
};
