import { attrNumber, hasAttr } from '../../ir/attrs.js';
import type { IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import { broadcastIndex, broadcastShapes, describeShapes } from '../broadcast.js';
import * as X from '../exact.js';
import {
  addRange, floatArray, intArray, isFloatType, modelError, mulRange, need, rangeOfInfo, type OpSpec, type Operands,
  type TensorInfo,
} from '../op-spec.js';

/*
 * Elementwise ops with numpy broadcasting. Integer operands compute exactly (the Deeploy dialect); as soon as one
 * operand is float the op is the float32 op of ONNX Runtime: each result rounded to float32 (a single IEEE
 * operation on float32 values computed in float64 and rounded once is exactly the float32 operation).
 */

const f32 = Math.fround;

function broadcastShape(node: Node, a: readonly number[], b: readonly number[]): number[] {
  const s = broadcastShapes(a, b);
  if (!s) throw modelError(node, `cannot broadcast ${describeShapes([a, b])}`);
  return s;
}

function binary(
  node: Node, inputs: Operands<NDArray>, intFn: (a: number, b: number) => number, floatFn: (a: number, b: number) => number,
): NDArray {
  const a = need(node, inputs, 0);
  const b = need(node, inputs, 1);
  const shape = broadcastShape(node, a.shape, b.shape);
  const isFloat = isFloatType(a.dtype) || isFloatType(b.dtype);
  const out = isFloat ? floatArray(shape) : intArray(shape);
  const am = broadcastIndex(a.shape, shape);
  const bm = broadcastIndex(b.shape, shape);
  const o = out.data;
  const ad = a.data;
  const bd = b.data;
  if (isFloat) for (let i = 0; i < o.length; i++) o[i] = f32(floatFn(f32(ad[am[i]]), f32(bd[bm[i]])));
  else for (let i = 0; i < o.length; i++) o[i] = intFn(ad[am[i]], bd[bm[i]]);
  return out;
}

function binaryShape(node: Node, inputs: Operands<TensorInfo>): number[][] {
  return [broadcastShape(node, need(node, inputs, 0).shape, need(node, inputs, 1).shape)];
}

export const addOp: OpSpec = {
  ops: ['Add'],
  shape: binaryShape,
  range: (node, inputs) => [addRange(rangeOfInfo(inputs[0]), rangeOfInfo(inputs[1]))],
  evaluate: (node, inputs) => [binary(node, inputs, (a, b) => a + b, (a, b) => a + b)],
};

export const subOp: OpSpec = {
  ops: ['Sub'],
  shape: binaryShape,
  range(node, inputs) {
    const a = rangeOfInfo(inputs[0]);
    const b = rangeOfInfo(inputs[1]);
    return [{ min: a.min - b.max, max: a.max - b.min }];
  },
  evaluate: (node, inputs) => [binary(node, inputs, (a, b) => a - b, (a, b) => a - b)],
};

export const mulOp: OpSpec = {
  ops: ['Mul'],
  shape: binaryShape,
  range: (node, inputs) => [mulRange(rangeOfInfo(inputs[0]), rangeOfInfo(inputs[1]))],
  // An integer product beyond 2^53 comes back rounded; the interpreter's range check reports it.
  evaluate: (node, inputs) => [binary(node, inputs, (a, b) => X.toNumber(X.mul(a, b)), (a, b) => a * b)],
};

export const divOp: OpSpec = {
  ops: ['Div'],
  shape: binaryShape,
  range(node, inputs) {
    const a = rangeOfInfo(inputs[0]);
    const m = Math.max(Math.abs(a.min), Math.abs(a.max));
    return [{ min: -m, max: m }];
  },
  // ONNX integer Div truncates (C semantics); float Div is IEEE division.
  evaluate: (node, inputs) => [binary(node, inputs, (a, b) => X.toNumber(X.tdiv(a, b)), (a, b) => a / b)],
};

function unary(node: Node, x: NDArray, intFn: (v: number) => number, floatFn: (v: number) => number): NDArray {
  const isFloat = isFloatType(x.dtype);
  const out = isFloat ? floatArray(x.shape) : { ...intArray(x.shape), dtype: x.dtype };
  const o = out.data;
  if (isFloat) for (let i = 0; i < o.length; i++) o[i] = f32(floatFn(f32(x.data[i])));
  else for (let i = 0; i < o.length; i++) o[i] = intFn(x.data[i]);
  return out;
}

export const reluOp: OpSpec = {
  ops: ['Relu'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range(node, inputs) {
    const r = rangeOfInfo(inputs[0]);
    return [{ min: Math.max(0, r.min), max: Math.max(0, r.max) }];
  },
  evaluate: (node, inputs) => [unary(node, need(node, inputs, 0), (v) => (v > 0 ? v : 0), (v) => (v > 0 ? v : 0))],
};

/**
 * Clip bounds: inputs 1 and 2 (opset 11+) or attributes min/max (opset 6). `values(i)` gives an operand's values,
 * null when the operand exists but is not a constant, undefined when it is omitted.
 */
export function clipBounds(node: Node, values: (i: number) => ArrayLike<number> | null | undefined): { lo: number; hi: number } {
  const bound = (i: number, attr: string, fallback: number): number => {
    const v = values(i);
    if (v === null) throw modelError(node, `Clip ${attr} must be a constant`);
    if (v !== undefined) return v[0];
    return hasAttr(node, attr) ? attrNumber(node, attr) : fallback;
  };
  return { lo: bound(1, 'min', -Infinity), hi: bound(2, 'max', Infinity) };
}

export const clipOp: OpSpec = {
  ops: ['Clip'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range(node, inputs) {
    const r: IntRange = rangeOfInfo(inputs[0]);
    const { lo, hi } = clipBounds(node, (i) => (inputs[i] ? inputs[i]?.data?.data ?? null : undefined));
    const min = Math.min(Math.max(r.min, Math.ceil(lo)), Math.floor(hi));
    const max = Math.max(Math.min(r.max, Math.floor(hi)), Math.ceil(lo));
    return [{ min: Math.min(min, max), max: Math.max(min, max) }];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const { lo, hi } = clipBounds(node, (i) => inputs[i]?.data);
    const flo = f32(lo);
    const fhi = f32(hi);
    // ONNX Clip is min(max(x, lo), hi): hi wins when lo > hi.
    return [unary(node, x, (v) => Math.min(Math.max(v, lo), hi), (v) => Math.min(Math.max(v, flo), fhi))];
  },
};

export const roundOp: OpSpec = {
  ops: ['Round'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node, inputs) => [rangeOfInfo(inputs[0])],
  evaluate: (node, inputs) => [unary(node, need(node, inputs, 0), (v) => v, X.roundHalfEven)],
};
