import { attrInt } from '../../ir/attrs.js';
import { isIntType, rangeOf, type DType, type IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import { ndarray, sizeOf, type NDArray } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import { roundHalfEven } from '../exact.js';
import { floatArray, modelError, need, unsupported, type OpSpec, type Operands, type TensorInfo } from '../op-spec.js';

/*
 * QuantizeLinear / DequantizeLinear as ONNX Runtime computes them in float32:
 *   Q:  y = saturate(round_half_even(x / scale) + zero_point)     (a float32 division, as MLAS does)
 *   DQ: y = (x - zero_point) * scale                               (integer subtraction, one float32 product)
 * A 1-D scale with more than one element is per-axis along `axis` (default 1).
 */

const f32 = Math.fround;

/** The element type a quantizing op produces: its zero point's declared type, uint8 when there is none. */
export function quantType(zp: NDArray | TensorInfo | undefined): DType {
  if (!zp) return 'uint8';
  // Inference sees a constant's declared type in its data; the interpreter gets the array itself.
  const d = zp.data;
  return d && !(d instanceof Float64Array) ? d.dtype : zp.dtype;
}

export function quantRange(node: Node, t: DType): IntRange {
  if (!isIntType(t) || t === 'int64') throw unsupported(node, `quantized type ${t}`);
  return rangeOf(t);
}

/** For every element of `shape`, the index of its scale/zero point (0 for per-tensor parameters). */
export function paramIndex(node: Node, shape: readonly number[], paramLen: number): (i: number) => number {
  if (paramLen <= 1) return () => 0;
  const axis = normAxis(attrInt(node, 'axis', 1), shape.length);
  if (shape[axis] !== paramLen) throw modelError(node, `${paramLen} per-axis parameters for axis ${axis} of size ${shape[axis]}`);
  const inner = sizeOf(shape.slice(axis + 1));
  return (i) => Math.floor(i / inner) % paramLen;
}

/** saturate(round_half_even(x / scale) + zp) in float32. */
export function quantizeValue(x: number, scale: number, zp: number, r: IntRange): number {
  const q = roundHalfEven(f32(f32(x) / scale)) + zp;
  return q < r.min ? r.min : q > r.max ? r.max : q;
}

export const quantizeLinearOp: OpSpec = {
  ops: ['QuantizeLinear'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  dtype: (node, inputs) => [quantType(inputs[2])],
  range: (node, inputs) => [quantRange(node, quantType(inputs[2]))],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const scale = need(node, inputs, 1, 'y_scale');
    const zp = inputs[2];
    const t = quantType(zp);
    const r = quantRange(node, t);
    const si = paramIndex(node, x.shape, scale.data.length);
    const out = ndarray(t, x.shape);
    for (let i = 0; i < x.data.length; i++) {
      const k = si(i);
      out.data[i] = quantizeValue(x.data[i], f32(scale.data[k]), zp ? zp.data[k] : 0, r);
    }
    return [out];
  },
};

export function dequantizeValue(x: number, scale: number, zp: number): number {
  return f32(f32(x - zp) * scale);
}

export const dequantizeLinearOp: OpSpec = {
  ops: ['DequantizeLinear'],
  shape: (node, inputs: Operands<TensorInfo>) => [[...need(node, inputs, 0).shape]],
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const scale = need(node, inputs, 1, 'x_scale');
    const zp = inputs[2];
    const si = paramIndex(node, x.shape, scale.data.length);
    const out = floatArray(x.shape);
    for (let i = 0; i < x.data.length; i++) {
      const k = si(i);
      out.data[i] = dequantizeValue(x.data[i], f32(scale.data[k]), zp ? zp.data[k] : 0);
    }
    return [out];
  },
};
