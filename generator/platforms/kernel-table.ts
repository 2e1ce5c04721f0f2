import { argMaxKernel } from '../kernels/argmax.js';
import { cacheWriteKernel, positionMaskKernel } from '../kernels/cache.js';
import { convKernel } from '../kernels/conv.js';
import { elementwiseKernel } from '../kernels/elementwise.js';
import { gatherKernel } from '../kernels/gather.js';
import { gemmKernel } from '../kernels/gemm.js';
import { copyKernel } from '../kernels/movement.js';
import { iLayerNormKernel, iRMSNormKernel } from '../kernels/norm.js';
import { maxPoolKernel } from '../kernels/pool.js';
import { reduceKernel } from '../kernels/reduce.js';
import { iSoftmaxKernel, itaMaxKernel, itaPartialMaxKernel } from '../kernels/softmax.js';
import { tableSoftmaxKernel } from '../kernels/table-softmax.js';
import { qLayerNormKernel } from '../kernels/qlayernorm.js';
import type { KernelDef } from '../kernels/types.js';

/** The kernels every core-based target (generic, the Siracusa cluster) runs; platforms list them in preference order. */
export const CORE_KERNELS: KernelDef[] = [
  convKernel, gemmKernel, elementwiseKernel, gatherKernel, copyKernel, maxPoolKernel, reduceKernel,
  iSoftmaxKernel, itaMaxKernel, itaPartialMaxKernel, iRMSNormKernel, iLayerNormKernel, cacheWriteKernel, positionMaskKernel, argMaxKernel,
  tableSoftmaxKernel, qLayerNormKernel,
];
