import type { Compiled, CompileOptions } from '../../generator/pipeline.js';
import { integerFolders } from './deeploy.js';
import { TINY_MODEL_NAMES, writeTinyModel } from './tiny-models.js';

/**
 * The planner's figures that must never get worse (issue 15): recorded by scripts/record-plan-baseline.ts and
 * checked by test/midend/plan-baseline.test.ts.
 */
export interface PlanFigures {
  /** Home memory (L2 on Siracusa): bytes used (constants + activation peak) and the live-set lower bound. */
  used: number;
  lowerBound: number;
  /** The far memory (L3), when tensors were moved there. */
  farUsed?: number;
  /** Tiled layers by node name: estimated cycles (the search's cost model) and L1 bytes. */
  tiles?: Record<string, { cycles: number; l1: number }>;
}

export interface PlanConfig {
  name: string;
  opts: Omit<CompileOptions, 'model'>;
  /** Folders this configuration runs on (default: every integer folder). */
  only?: string[];
}

/** The configurations held: the bench's (Siracusa L1 64000), Siracusa's defaults, generic, and small L2s (L3 staging). */
export const PLAN_CONFIGS: PlanConfig[] = [
  { name: 'siracusa-l1-64000', opts: { platform: 'siracusa', l1: 64000 } },
  { name: 'siracusa', opts: { platform: 'siracusa' } },
  { name: 'siracusa-single', opts: { platform: 'siracusa', buffering: 'single' } },
  { name: 'generic', opts: { platform: 'generic' } },
  { name: 'siracusa-l2-100000', opts: { platform: 'siracusa', l2: 100000 }, only: ['Models/CNN_Linear2'] },
  { name: 'siracusa-l2-90000', opts: { platform: 'siracusa', l2: 90000 }, only: ['Models/CNN_Linear1'] },
  { name: 'siracusa-l2-10000', opts: { platform: 'siracusa', l2: 10000 }, only: ['Models/miniMobileNetv2'] },
  { name: 'siracusa-l2-6000', opts: { platform: 'siracusa', l2: 6000 }, only: ['Models/miniMobileNet'] },
  { name: 'siracusa-l2-30000', opts: { platform: 'siracusa', l2: 30000 }, only: ['Kernels/Integer/Attention'] },
];

export function planFigures(c: Compiled): PlanFigures {
  const out: PlanFigures = { used: c.plan.used, lowerBound: c.plan.lowerBound };
  if (c.plan.far) out.farUsed = c.plan.far.used;
  if (c.tiling) {
    out.tiles = {};
    for (const tl of [...c.tiling.layers.values()].sort((a, b) => a.node.name.localeCompare(b.node.name))) {
      out.tiles[tl.node.name] = { cycles: Math.round(tl.choice.cycles), l1: tl.choice.l1Bytes };
    }
  }
  return out;
}

/** Every integer folder of the test vectors, then the MLPerf-Tiny-class models (tiny-models.ts), built into `dir`. */
export function planModels(dir: string): { name: string; model: string }[] {
  return [
    ...integerFolders().map((f) => ({ name: f.name, model: f.model })),
    ...TINY_MODEL_NAMES.map((name) => ({ name: `MLPerf/${name}`, model: writeTinyModel(name, dir) })),
  ];
}
