import { attrInt, attrNumber } from '../../ir/attrs.js';
import { normAxis } from '../broadcast.js';
import { floatArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * Float LayerNormalization (opset 17) along the last axis, for the float ops of a QDQ model the lowering reads
 * (frontend/passes/quantized/layernorm.ts) and shape inference: mean, variance, (x - mean) / sqrt(var + eps) * scale
 * + bias, each step rounded to float32. Other axes are refused.
 */

const f32 = Math.fround;

export const layerNormalizationOp: OpSpec = {
  ops: ['LayerNormalization'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const scale = need(node, inputs, 1, 'the scale');
    const bias = inputs[2];
    if (!isFloatType(x.dtype)) throw modelError(node, 'LayerNormalization needs a float input');
    const rank = x.shape.length;
    if (normAxis(attrInt(node, 'axis', -1), rank) !== rank - 1) throw modelError(node, 'LayerNormalization along another axis than the last');
    const eps = f32(attrNumber(node, 'epsilon', 1e-5));
    const N = x.shape[rank - 1];
    const out = floatArray(x.shape);
    for (let r = 0; r * N < x.data.length; r++) {
      const row = x.data.subarray(r * N, (r + 1) * N);
      let sum = 0;
      for (const v of row) sum = f32(sum + v);
      const mean = f32(sum / N);
      let sq = 0;
      for (const v of row) sq = f32(sq + f32(f32(v - mean) * f32(v - mean)));
      const std = f32(Math.sqrt(f32(f32(sq / N) + eps)));
      for (let j = 0; j < N; j++) {
        const z = f32(f32(row[j] - mean) / std);
        out.data[r * N + j] = f32(f32(z * scale.data[scale.data.length > 1 ? j : 0]) + (bias ? bias.data[bias.data.length > 1 ? j : 0] : 0));
      }
    }
    return [out];
  },
};
