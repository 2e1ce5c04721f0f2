import type { OpSpec } from './op-spec.js';
import { iGeluOp, iHardswishOp } from './ops/activations.js';
import { analogMatmulOp } from './ops/analog-matmul.js';
import { im2colOp } from './ops/im2col.js';
import { convOp } from './ops/conv.js';
import { concatOp, gatherOp, padOp, sliceOp } from './ops/data-movement.js';
import { addOp, clipOp, divOp, mulOp, reluOp, roundOp, subOp } from './ops/elementwise.js';
import { argMaxOp } from './ops/argmax.js';
import { cacheWriteOp, positionMaskOp } from './ops/cache.js';
import { castOp, erfOp, expOp, negOp, powOp, reciprocalOp, sigmoidOp, sqrtOp, tanhOp, whereOp } from './ops/float-math.js';
import { gemmOp } from './ops/gemm.js';
import { integerDivOp } from './ops/integer-div.js';
import { matmulOp } from './ops/matmul.js';
import { iLayerNormOp, iNoNormOp, iRMSNormOp } from './ops/norm.js';
import { averagePoolOp, globalAveragePoolOp, maxPoolOp } from './ops/pool.js';
import { qlinearAddOp, qlinearMulOp } from './ops/qlinear-binary.js';
import { convIntegerOp, matMulIntegerOp, qgemmOp, qlinearConvOp, qlinearMatMulOp } from './ops/qlinear.js';
import { dequantizeLinearOp, quantizeLinearOp } from './ops/quantize.js';
import { reduceMeanOp, reduceSumOp } from './ops/reduce.js';
import { requantShiftOp } from './ops/requant-shift.js';
import { flattenOp, identityOp, reshapeOp, squeezeOp, transposeOp, unsqueezeOp } from './ops/reshape.js';
import { iSoftmaxOp, itaMaxOp, itaPartialMaxOp } from './ops/softmax.js';
import { softmaxOp } from './ops/softmax-float.js';
import { tableSoftmaxOp } from './ops/table-softmax.js';
import { layerNormalizationOp } from './ops/layernorm-float.js';
import { qLayerNormOp } from './ops/qlayernorm.js';
import { trueIntegerDivOp } from './ops/true-integer-div.js';

/** Every op the reference interpreter and inference know, by ONNX op type (the domain does not matter). */
const SPECS: OpSpec[] = [
  requantShiftOp, trueIntegerDivOp, convOp, gemmOp, matmulOp, addOp, subOp, mulOp, divOp, reluOp, clipOp, roundOp,
  maxPoolOp, averagePoolOp, globalAveragePoolOp, padOp, concatOp, sliceOp, gatherOp, transposeOp, reshapeOp, flattenOp,
  squeezeOp, unsqueezeOp, identityOp, reduceSumOp, reduceMeanOp, iSoftmaxOp, itaMaxOp, itaPartialMaxOp, iLayerNormOp,
  iRMSNormOp, iNoNormOp, iGeluOp, iHardswishOp, integerDivOp, quantizeLinearOp, dequantizeLinearOp, qlinearMatMulOp,
  qlinearConvOp, qgemmOp, matMulIntegerOp, convIntegerOp, qlinearAddOp, qlinearMulOp, softmaxOp,
  sqrtOp, erfOp, reciprocalOp, sigmoidOp, tanhOp, expOp, negOp, powOp, whereOp, castOp, cacheWriteOp, positionMaskOp, argMaxOp,
  analogMatmulOp, im2colOp, tableSoftmaxOp, layerNormalizationOp, qLayerNormOp,
];

const BY_OP = new Map<string, OpSpec>();
for (const s of SPECS) {
  for (const op of s.ops) {
    if (BY_OP.has(op)) throw new Error(`op ${op} registered twice`);
    BY_OP.set(op, s);
  }
}

export function opSpec(op: string): OpSpec | undefined {
  return BY_OP.get(op);
}

export function supportedOps(): string[] {
  return [...BY_OP.keys()].sort();
}
