import { attrInt, attrNumber } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, ndarray, type NDArray } from '../../ir/ndarray.js';
import { broadcastIndex, broadcastShapes } from '../broadcast.js';
import * as X from '../exact.js';
import {
  addRange, floatArray, intArray, isFloatType, modelError, need, rangeOfInfo, scaleRange, unsupported, type OpSpec,
  type TensorInfo,
} from '../op-spec.js';
import { dotRange, matmulDims, matmulInto, transposedConstantDotRange } from './matmul.js';

/*
 * Gemm: alpha * A' B' + beta * C with A' = transA ? A^T : A, B' likewise, C broadcast to (M, N). In the integer
 * dialect alpha and beta are integers and the result is exact; with float operands it is ORT's float32 SGEMM.
 */

const f32 = Math.fround;

export function transpose2D(a: NDArray): NDArray {
  const [r, c] = a.shape;
  const out = ndarray(a.dtype, [c, r]);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out.data[j * r + i] = a.data[i * c + j];
  return out;
}

function transposedShape(node: Node, s: readonly number[], trans: boolean, what: string): number[] {
  if (s.length !== 2) throw modelError(node, `Gemm ${what} must be 2-D, got ${formatShape(s)}`);
  return trans ? [s[1], s[0]] : [...s];
}

function gemmDims(node: Node, a: readonly number[], b: readonly number[]) {
  const at = transposedShape(node, a, attrInt(node, 'transA', 0) !== 0, 'A');
  const bt = transposedShape(node, b, attrInt(node, 'transB', 0) !== 0, 'B');
  return { at, bt, d: matmulDims(node, at, bt) };
}

function checkBias(node: Node, c: readonly number[], out: readonly number[]): void {
  const s = broadcastShapes(c, out);
  if (!s || s[0] !== out[0] || s[1] !== out[1] || s.length !== 2) {
    throw modelError(node, `C ${formatShape(c)} does not broadcast to ${formatShape(out)}`);
  }
}

export const gemmOp: OpSpec = {
  ops: ['Gemm'],
  shape(node, inputs) {
    const { d } = gemmDims(node, need(node, inputs, 0).shape, need(node, inputs, 1).shape);
    if (inputs[2]) checkBias(node, inputs[2].shape, d.out);
    return [d.out];
  },
  range(node, inputs) {
    const a = need(node, inputs, 0);
    const b = need(node, inputs, 1);
    const { d } = gemmDims(node, a.shape, b.shape);
    const tA = attrInt(node, 'transA', 0) !== 0;
    const tB = attrInt(node, 'transB', 0) !== 0;
    // dotRange reads constant operands in (M, K) / (K, N) layout; the one it reads (b if constant, else a), when
    // stored transposed, is read as stored where the exact sums apply (no transposed copy per range query).
    const view = (t: TensorInfo, trans: boolean): TensorInfo =>
      trans && t.data ? { ...t, shape: [t.shape[1], t.shape[0]], data: transpose2D(t.data) } : t;
    const readTransposed = b.data ? tB : a.data !== undefined && tA;
    const dots = (readTransposed ? transposedConstantDotRange(a, b, d) : undefined) ?? dotRange(view(a, tA), view(b, tB), d);
    let r = scaleRange(dots, attrNumber(node, 'alpha', 1));
    if (inputs[2]) r = addRange(r, scaleRange(rangeOfInfo(inputs[2]), attrNumber(node, 'beta', 1)));
    return [r];
  },
  evaluate(node, inputs) {
    let a = need(node, inputs, 0);
    let b = need(node, inputs, 1);
    const c = inputs[2];
    const alpha = attrNumber(node, 'alpha', 1);
    const beta = attrNumber(node, 'beta', 1);
    const { d } = gemmDims(node, a.shape, b.shape);
    if (attrInt(node, 'transA', 0) !== 0) a = transpose2D(a);
    if (attrInt(node, 'transB', 0) !== 0) b = transpose2D(b);
    const float = isFloatType(a.dtype) || isFloatType(b.dtype) || (c !== undefined && isFloatType(c.dtype));
    if (!float && (!Number.isInteger(alpha) || !Number.isInteger(beta))) {
      throw unsupported(node, `integer Gemm needs integer alpha and beta (got ${alpha}, ${beta})`);
    }
    const out = float ? floatArray(d.out) : intArray(d.out);
    const cm = c ? (checkBias(node, c.shape, d.out), broadcastIndex(c.shape, d.out)) : undefined;
    const cv = (i: number): number => (c && cm ? c.data[cm[i]] : 0);
    if (float) {
      // ORT lays beta*C into the output first (scaling only when beta is not 1); SGEMM then adds alpha*A'B'.
      const fb = f32(beta);
      const laid = (i: number): number => (beta === 1 ? f32(cv(i)) : f32(fb * f32(cv(i))));
      const init = c && beta !== 0 ? Float64Array.from({ length: out.data.length }, (_, i) => laid(i)) : undefined;
      matmulInto(d, a.data, b.data, true, out.data, f32(alpha), init);
      return [out];
    }
    matmulInto(d, a.data, b.data, false, out.data);
    for (let i = 0; i < out.data.length; i++) out.data[i] = X.toNumber(X.add(X.mul(alpha, out.data[i]), X.mul(beta, cv(i))));
    return [out];
  },
};
