import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { fuseRequant } from '../../frontend/passes/fuse-requant.js';
import { lowerNpuPass, type NpuFallback } from '../../frontend/passes/lower-npu.js';
import { sinkTransposes } from '../../frontend/passes/sink-transposes.js';
import { GenError } from '../../errors.js';
import { neurekaKernel } from '../../kernels/neureka.js';
import { CORE_KERNELS } from '../kernel-table.js';
import type { Platform } from '../types.js';

/** What runs the layers of a Siracusa firmware (gen firmware --engines, --weights-in, --cores). */
export interface EngineOptions {
  /** 'cluster': the cores only; 'cluster+npu': N-EUREKA where it is estimated faster; 'npu': wherever it can. */
  engines: 'cluster' | 'cluster+npu' | 'npu';
  /** Where N-EUREKA weights live: the neural memory (read in place) or L2 (moved to L1 with the tiles). */
  weightsIn: 'nms' | 'l2';
  /** Cluster cores to use, 1..8. */
  cores?: number;
  /** Layers to keep on the cluster after a failed attempt, and the record of what the NPU lowering rewrote. */
  fallback?: NpuFallback;
}

export const ENGINE_CHOICES = ['cluster', 'cluster+npu', 'npu'] as const;

/** The Siracusa platform configured for a set of engines: the lowering and the kernels change, the chip does not. */
export function siracusaWith(base: Platform, o: EngineOptions): Platform {
  const cores = o.cores ?? base.cores;
  if (!Number.isInteger(cores) || cores < 1 || cores > base.cores) {
    throw new GenError('input', `--cores ${o.cores}: ${base.name} has 1..${base.cores} cluster cores`);
  }
  const p: Platform = { ...base, cores };
  if (o.engines === 'cluster') return p;
  const lower = lowerNpuPass({ engines: o.engines, weightsIn: o.weightsIn, cores, costs: base.costs, fallback: o.fallback });
  return {
    ...p,
    passes: [foldTrueIntegerDivPass, foldBiasAdd, fuseRequant, lower, fuseElementwise, sinkTransposes],
    kernels: [neurekaKernel, ...CORE_KERNELS],
  };
}
