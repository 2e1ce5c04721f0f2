import { foldBiasAdd } from '../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../frontend/passes/fuse-elementwise.js';
import { fuseRequant } from '../frontend/passes/fuse-requant.js';
import type { Pass } from './types.js';

/** The lowering every core-based target uses: fusions of SEMANTICS.md section 1. */
export const CORE_PASSES: Pass[] = [foldTrueIntegerDivPass, foldBiasAdd, fuseRequant, fuseElementwise];
