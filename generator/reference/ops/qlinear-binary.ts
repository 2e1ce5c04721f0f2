import type { Node } from '../../ir/graph.js';
import { ndarray, type NDArray } from '../../ir/ndarray.js';
import { broadcastIndex, broadcastShapes, describeShapes } from '../broadcast.js';
import { roundHalfEven } from '../exact.js';
import { modelError, need, type OpSpec, type Operands, type TensorInfo } from '../op-spec.js';
import { requantizeFloat } from './qlinear.js';
import { quantRange, quantType } from './quantize.js';

/*
 * QLinearAdd / QLinearMul (com.microsoft), inputs A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp.
 * Add is dequantize-add-quantize in float32 (MLAS's scalar kernel): round((sa*(a-za) + sb*(b-zb)) / sc) + zc.
 * Mul is the integer product requantized by M = sa*sb/sc (SEMANTICS.md section 2, and MLAS's ScaleRatio).
 * MLAS's vector kernels round differently in places (fixed-point Add, zero point added before rounding in Mul):
 * at most 1 LSB apart, measured in test/reference/ort.test.ts.
 */

const f32 = Math.fround;

function shapeOf(node: Node, inputs: Operands<TensorInfo>): number[][] {
  const a = need(node, inputs, 0).shape;
  const b = need(node, inputs, 3).shape;
  const s = broadcastShapes(a, b);
  if (!s) throw modelError(node, `cannot broadcast ${describeShapes([a, b])}`);
  return [s];
}

function binary(node: Node, inputs: Operands<NDArray>, fn: (a: number, b: number) => number): NDArray {
  const a = need(node, inputs, 0);
  const b = need(node, inputs, 3);
  const shape = broadcastShapes(a.shape, b.shape);
  if (!shape) throw modelError(node, `cannot broadcast ${describeShapes([a.shape, b.shape])}`);
  const za = inputs[2]?.data[0] ?? 0;
  const zb = inputs[5]?.data[0] ?? 0;
  const am = broadcastIndex(a.shape, shape);
  const bm = broadcastIndex(b.shape, shape);
  const out = ndarray(quantType(inputs[7]), shape);
  for (let i = 0; i < out.data.length; i++) out.data[i] = fn(a.data[am[i]] - za, b.data[bm[i]] - zb);
  return out;
}

function scales(node: Node, inputs: Operands<NDArray>): number[] {
  return ([[1, 'A_scale'], [4, 'B_scale'], [6, 'C_scale']] as const).map(([i, what]) => f32(need(node, inputs, i, what).data[0]));
}

export const qlinearAddOp: OpSpec = {
  ops: ['QLinearAdd'],
  shape: shapeOf,
  dtype: (node, inputs) => [quantType(inputs[7])],
  range: (node, inputs) => [quantRange(node, quantType(inputs[7]))],
  evaluate(node, inputs) {
    const [sa, sb, sc] = scales(node, inputs);
    const zc = inputs[7]?.data[0] ?? 0;
    const r = quantRange(node, quantType(inputs[7]));
    return [binary(node, inputs, (a, b) => {
      const q = roundHalfEven(f32(f32(f32(sa * a) + f32(sb * b)) / sc)) + zc;
      return q < r.min ? r.min : q > r.max ? r.max : q;
    })];
  },
};

export const qlinearMulOp: OpSpec = {
  ops: ['QLinearMul'],
  shape: shapeOf,
  dtype: (node, inputs) => [quantType(inputs[7])],
  range: (node, inputs) => [quantRange(node, quantType(inputs[7]))],
  evaluate(node, inputs) {
    const [sa, sb, sc] = scales(node, inputs);
    const m = f32(f32(sa * sb) / sc);
    const zc = inputs[7]?.data[0] ?? 0;
    const r = quantRange(node, quantType(inputs[7]));
    return [binary(node, inputs, (a, b) => requantizeFloat(a * b, m, zc, r))];
  },
};
