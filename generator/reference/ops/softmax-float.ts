import { attrInt } from '../../ir/attrs.js';
import { sizeOf } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import { floatArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * Float Softmax (opset 13: along one axis) for the float models the quantizer calibrates. Per slice: subtract the
 * maximum, exp, sum, divide, each step rounded to float32 as ORT's kernel does; exp itself is JavaScript's (float64
 * rounded once), where ORT uses MLAS's vectorised exp, so the last bit can differ from onnxruntime.
 */

const f32 = Math.fround;

export const softmaxOp: OpSpec = {
  ops: ['Softmax'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    if (!isFloatType(x.dtype)) throw modelError(node, 'Softmax needs a float input (the integer form is iSoftmax)');
    const axis = normAxis(attrInt(node, 'axis', -1), x.shape.length);
    const L = x.shape[axis];
    const inner = sizeOf(x.shape.slice(axis + 1));
    const out = floatArray(x.shape);
    const e = new Float64Array(L);
    for (let outer = 0; outer < x.data.length / (L * inner); outer++) {
      for (let k = 0; k < inner; k++) {
        const at = (j: number): number => (outer * L + j) * inner + k;
        let m = -Infinity;
        for (let j = 0; j < L; j++) m = Math.max(m, x.data[at(j)]);
        let sum = 0;
        for (let j = 0; j < L; j++) {
          e[j] = f32(Math.exp(f32(x.data[at(j)] - m)));
          sum = f32(sum + e[j]);
        }
        for (let j = 0; j < L; j++) out.data[at(j)] = f32(e[j] / sum);
      }
    }
    return [out];
  },
};
