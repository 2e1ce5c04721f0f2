import { foldBiasAdd } from '../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../frontend/passes/fuse-elementwise.js';
import { fuseRequant } from '../frontend/passes/fuse-requant.js';
import { lowerQuantizedPass } from '../frontend/passes/lower-quantized.js';
import type { Pass } from './types.js';

/**
 * The lowering every core-based target uses: standard quantized ONNX (QDQ, QOperator) to the integer dialect first,
 * then the fusions of SEMANTICS.md section 1.
 */
export const CORE_PASSES: Pass[] = [lowerQuantizedPass, foldTrueIntegerDivPass, foldBiasAdd, fuseRequant, fuseElementwise];
