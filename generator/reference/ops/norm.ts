import { attrLog2, attrNumber } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import { broadcastAll, broadcastIndex, describeShapes } from '../broadcast.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, need, type OpSpec, type Operands, type TensorInfo } from '../op-spec.js';

/*
 * Integer normalisations (SEMANTICS.md section 1). Statistics are per row of the last axis; weights and biases
 * broadcast against x as numpy does. iLayerNorm and iNoNorm wrap to int8 (a C (int8_t) cast, no clamp); iRMSNorm
 * clamps. Every product goes through the exact helpers, so 64-bit intermediates stay exact.
 */

const INT8 = { min: -128, max: 127 };

function params(node: Node, x: NDArray, others: NDArray[]): Int32Array[] {
  if (isFloatType(x.dtype)) throw modelError(node, `${node.op} needs an integer input`);
  const shape = broadcastAll([x.shape, ...others.map((o) => o.shape)]);
  if (!shape || shape.length !== x.shape.length || shape.some((d, i) => d !== x.shape[i])) {
    throw modelError(node, `parameters ${describeShapes(others.map((o) => o.shape))} do not broadcast to x ${describeShapes([x.shape])}`);
  }
  return others.map((o) => broadcastIndex(o.shape, x.shape));
}

function sameShape(node: Node, inputs: Operands<TensorInfo>): number[][] {
  return [[...need(node, inputs, 0).shape]];
}

export const iLayerNormOp: OpSpec = {
  ops: ['iLayerNorm'],
  shape: sameShape,
  range: () => [INT8],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const w = need(node, inputs, 1, 'weight');
    const b = need(node, inputs, 2, 'bias');
    const [wm, bm] = params(node, x, [w, b]);
    const log2D = attrLog2(node, 'D');
    const N = x.shape[x.shape.length - 1];
    const out = intArray(x.shape);
    for (let r = 0; r < x.data.length; r += N) {
      let sum: X.Exact = 0;
      for (let j = 0; j < N; j++) sum = X.add(sum, x.data[r + j]);
      const mean = X.tdiv(sum, N);
      let sq: X.Exact = 0;
      for (let j = 0; j < N; j++) {
        const t = X.sub(x.data[r + j], mean);
        sq = X.add(sq, X.mul(t, t));
      }
      const std = X.isqrt(X.add(X.tdiv(sq, N), 1));
      for (let j = 0; j < N; j++) {
        const i = r + j;
        const t = X.sub(x.data[i], mean);
        const y = X.shr(X.add(X.tdiv(X.mul(t, w.data[wm[i]]), std), b.data[bm[i]]), log2D);
        out.data[i] = X.wrap8(y);
      }
    }
    return [out];
  },
};

export const iRMSNormOp: OpSpec = {
  ops: ['iRMSNorm'],
  shape: sameShape,
  range: () => [INT8],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const w = need(node, inputs, 1, 'weight');
    const [wm] = params(node, x, [w]);
    const log2D = attrLog2(node, 'D');
    const N = x.shape[x.shape.length - 1];
    const out = intArray(x.shape);
    for (let r = 0; r < x.data.length; r += N) {
      let sq: X.Exact = 0;
      for (let j = 0; j < N; j++) sq = X.add(sq, X.mul(x.data[r + j], x.data[r + j]));
      const std = X.isqrt(X.add(X.tdiv(sq, N), 1));
      for (let j = 0; j < N; j++) {
        const i = r + j;
        out.data[i] = X.clipExact(X.shr(X.tdiv(X.mul(x.data[i], w.data[wm[i]]), std), log2D), INT8.min, INT8.max);
      }
    }
    return [out];
  },
};

export const iNoNormOp: OpSpec = {
  ops: ['iNoNorm'],
  shape(node, inputs) {
    const shapes = [0, 1, 2].map((i) => need(node, inputs, i).shape);
    const s = broadcastAll(shapes);
    if (!s) throw modelError(node, `cannot broadcast ${describeShapes(shapes)}`);
    return [s];
  },
  range: () => [INT8],
  evaluate(node, inputs) {
    const ops = [0, 1, 2].map((i) => need(node, inputs, i));
    if (isFloatType(ops[0].dtype)) throw modelError(node, 'iNoNorm needs an integer input');
    const shape = broadcastAll(ops.map((o) => o.shape));
    if (!shape) throw modelError(node, `cannot broadcast ${describeShapes(ops.map((o) => o.shape))}`);
    const [xm, wm, bm] = ops.map((o) => broadcastIndex(o.shape, shape));
    const [x, w, b] = ops.map((o) => o.data);
    const m = Math.trunc(attrNumber(node, 'mul')); // the spec reads it as an integer
    const log2D = attrLog2(node, 'D');
    const out = intArray(shape);
    for (let i = 0; i < out.data.length; i++) {
      const t = X.add(X.mul(x[xm[i]], w[wm[i]]), b[bm[i]]);
      out.data[i] = X.wrap8(X.shr(X.mul(t, m), log2D));
    }
    return [out];
  },
};
