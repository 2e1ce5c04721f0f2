import { boundByPosition } from '../../frontend/passes/bound-by-position.js';
import { foldBiasAdd } from '../../frontend/passes/fold-bias-add.js';
import { foldTrueIntegerDivPass } from '../../frontend/passes/fold-true-integer-div.js';
import { fuseElementwise } from '../../frontend/passes/fuse-elementwise.js';
import { fuseRequant } from '../../frontend/passes/fuse-requant.js';
import { lowerQuantizedPass } from '../../frontend/passes/lower-quantized.js';
import { lowerNpuPass, npuOriginOf, type NpuFallback } from './passes/lower-npu.js';
import { sanitizeComment } from '../../backend/sanitize.js';
import { nMajorWeights } from '../../frontend/passes/n-major-weights.js';
import { sinkTransposes } from './passes/sink-transposes.js';
import { GenError } from '../../errors.js';
import { planNms } from './npu/nms.js';
import { neurekaKernel } from './npu/kernel.js';
import { CORE_KERNELS } from '../kernel-table.js';
import { oneOf, wholeNumber, type ConfigureContext } from '../options.js';
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

/** gen firmware --engines, --weights-in, --cores: Siracusa's options (generator/platforms/options.ts). */
/** Siracusa as its options configure it: unchanged when none is given. */
export function configureSiracusa(self: Platform, given: Record<string, unknown>, context: ConfigureContext): Platform {
  if (given.engines === undefined && given.weightsIn === undefined && given.cores === undefined) return self;
  const engines = given.engines === undefined ? 'cluster' : oneOf('--engines', given.engines, ENGINE_CHOICES);
  const weightsIn = given.weightsIn === undefined ? 'nms' : oneOf('--weights-in', given.weightsIn, ['nms', 'l2'] as const);
  const cores = given.cores === undefined ? undefined : wholeNumber('--cores', given.cores, 1, self.cores, `${self.name} has 1..${self.cores} cluster cores`);
  if (engines !== 'cluster' && context.untiled) throw new GenError('input', '--untiled cannot run N-EUREKA layers: the engine reads L1 only');
  return siracusaWith(self, { engines, weightsIn, cores });
}

/** The Siracusa platform configured for a set of engines: the lowering and the kernels change, the chip does not. */
export function siracusaWith(base: Platform, o: EngineOptions): Platform {
  const cores = o.cores ?? base.cores;
  if (!Number.isInteger(cores) || cores < 1 || cores > base.cores) {
    throw new GenError('input', `--cores ${o.cores}: ${base.name} has 1..${base.cores} cluster cores`);
  }
  const p: Platform = { ...base, cores };
  if (o.engines === 'cluster') return p;
  // A fresh record per attempt: the lowering notes which layers it rewrote, so a failure can be traced to one.
  const fallback: NpuFallback = { keep: o.fallback?.keep ?? new Map(), lowered: new Set() };
  const lower = lowerNpuPass({ engines: o.engines, weightsIn: o.weightsIn, cores, costs: base.costs, fallback });
  return {
    ...p,
    // The cluster's passes with the NPU's lowering: the attention stops at the position as on the cluster alone.
    passes: [lowerQuantizedPass, foldTrueIntegerDivPass, foldBiasAdd, fuseRequant, lower, fuseElementwise, sinkTransposes, boundByPosition, nMajorWeights],
    kernels: [neurekaKernel, ...CORE_KERNELS],
    placeElsewhere: planNms,
    // An engine option never turns a runnable model into a rejected one: the failing NPU layer stays on the cluster.
    retryWithout(e) {
      const origin = e.site.node === undefined ? undefined : npuOriginOf(fallback, e.site.node);
      if (!origin || fallback.keep.has(origin)) return undefined;
      const keep = new Map(fallback.keep).set(origin, `its N-EUREKA version failed (${e.kind}: ${sanitizeComment(e.reason)})`);
      return siracusaWith(base, { ...o, cores, fallback: { keep, lowered: new Set() } });
    },
  };
}
