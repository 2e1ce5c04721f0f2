/**
 * The platforms whose AS cost tables are measured on their C (scripts/fit-costs.ts): the rv32 ELF `gen build` makes
 * for them runs on the ISS with the timing of the core they have. Each names its hand counts (what stands where the
 * calibration does not reach, and what the calibration layers are planned with), its calibration options and the
 * files the fit writes.
 */
import { HAND_COUNTS as SIRACUSA_HAND } from '../../generator/platforms/siracusa/hand-costs.js';
import { SCALAR_CORE_COSTS } from '../../generator/platforms/generic/platform.js';
import type { CoreCosts, CostClass } from '../../generator/platforms/types.js';

export interface FitTarget {
  platform: string;
  hand: CoreCosts;
  /** Generation options of the calibration runs (one core on a cluster: every unit on the critical path). */
  options: Record<string, unknown>;
  generatorFile: string;
  emulatorFile: string;
  /** The AS constant the emulator file defines. */
  emulatorConst: string;
  /** The AS constant of the L1 bank replay's start skew, for a chip with a bank model (scripts/cost-fit/skew.ts). */
  bankSkewConst?: string;
  /** The C's clamp branches when it clips (no p.clip): the AS counts those values (CLIP_TAKEN) and a layer measures them. */
  clipBranches?: boolean;
  /** The fixed costs measured on the few-output layers run on the whole team (cost-fit/team.ts), a cluster's. */
  fixedOnTeam?: boolean;
  /** Fixed costs the calibration is planned with in place of the hand counts' (measure.ts planCostsOf). */
  planFixed?: Partial<CoreCosts>;
  /** Classes this target's fit leaves at their hand count (why: beside the target). */
  held?: CostClass[];
  /** The chip has an NPU (`--engines npu`): its driver's code is measured (layers.ts npuGemm). */
  npu?: boolean;
}

export const FIT_TARGETS: FitTarget[] = [
  {
    platform: 'siracusa',
    hand: SIRACUSA_HAND,
    options: { cores: 1 },
    generatorFile: 'generator/platforms/siracusa/measured-costs.ts',
    emulatorFile: 'emulator/assembly/chips/siracusa-measured.ts',
    emulatorConst: 'SIRACUSA_MEASURED_64THS',
    bankSkewConst: 'SIRACUSA_BANK_SKEW',
    fixedOnTeam: true,
    planFixed: { LAYER: 100, CALL: 200, TILE: 200, TRANSFER: 45 },
    // The share bounds and the reductions' outputs, which the generic core's fit separated, stay at 0 here: a refit
    // with them (2026-11-30) moved this table and put three more layers past 10 % of the ISS (MobileNetV1's Conv_0
    // and Conv_4, its pool's requantization); left. A misaligned load's cycle is CV32E40P's rule, not a fit.
    held: ['SHARE', 'REDUCE_OUT', 'MISALIGNED'],
    npu: true,
  },
  {
    platform: 'generic',
    hand: SCALAR_CORE_COSTS,
    options: {},
    generatorFile: 'generator/platforms/generic/measured-costs.ts',
    emulatorFile: 'emulator/assembly/chips/generic-measured.ts',
    emulatorConst: 'GENERIC_MEASURED_64THS',
    clipBranches: true,
  },
];

export function fitTarget(platform: string): FitTarget {
  const t = FIT_TARGETS.find((x) => x.platform === platform);
  if (!t) throw new Error(`no measured cost table for platform '${platform}' (${FIT_TARGETS.map((x) => x.platform).join(', ')})`);
  return t;
}
