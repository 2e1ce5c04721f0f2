/**
 * The L1 bank replay's start skew, measured (Siracusa; docs/timing.md "L1 bank conflicts"). The per-unit classes are
 * fitted on one core, where no bank is shared; on the whole team the AS replays the cores' declared loops against
 * the banks, and how far apart the cores start their loops decides how many conflicts the replay finds. The C's
 * cores on the ISS are not in lockstep, so the skew is taken from them: the calibration layers run once on the ISS
 * with the platform's team, and the AS with each candidate skew; the skew whose AS cycles are closest to the ISS's
 * (least squares on log ratios, the smaller skew on a tie) is the chip's.
 */
import { runFirmware } from '../../runtime/node/run.js';
import type { TeamRun } from './team.js';

/** Skews tried, in cycles: up to a little over the longest declared loop period (20). */
export const SKEWS: readonly number[] = Array.from({ length: 25 }, (_, i) => i);

export interface SkewFit {
  skew: number;
  /** Per layer: ISS cycles and the AS cycles at the chosen skew. */
  rows: { name: string; iss: number; as: number }[];
  /** Per skew tried: the sum of squared log ratios. */
  score: Map<number, number>;
  /** Per layer: the AS cycles at every skew tried. */
  runs: { name: string; iss: number; as: Map<number, number> }[];
}

/** The start of the skew and table's alternation (scripts/fit-costs.ts): no skew, the cores in lockstep. */
export const START_SKEW = 0;

/** The fit's figures at skew `skew` (the rows' AS cycles there). */
function at(fit: Omit<SkewFit, 'skew' | 'rows'>, skew: number): SkewFit {
  return { ...fit, skew, rows: fit.runs.map((r) => ({ name: r.name, iss: r.iss, as: r.as.get(skew)! })) };
}

/**
 * `team`: the calibration layers on the platform's whole team (measure.ts measureTeam: ISS once, outputs checked);
 * `costs`: the table the AS runs charge (COST_CLASSES order), the one fitted beside the skew (scripts/fit-costs.ts
 * iterates the two); the one built into the emulator where absent.
 */
export async function fitSkew(team: TeamRun[], costs?: readonly number[]): Promise<SkewFit> {
  const runs: SkewFit['runs'] = [];
  for (const t of team) {
    const as = new Map<number, number>();
    for (const s of SKEWS) as.set(s, (await runFirmware(t.out, t.inputs, { bankSkew: s, costs, builtCode: true })).cycles);
    runs.push({ name: t.name, iss: t.issCycles, as });
  }
  const score = new Map(SKEWS.map((s) => [s, runs.reduce((sum, r) => sum + Math.log(r.as.get(s)! / r.iss) ** 2, 0)]));
  const skew = SKEWS.reduce((best, s) => (score.get(s)! < score.get(best)! - 1e-12 ? s : best), SKEWS[0]);
  return at({ score, runs }, skew);
}

/**
 * The table and skew that belong together, from the alternation's steps (`tried`: per skew a table was fitted at,
 * that table and the skew sweep under it). A skew whose table's sweep picks it again is the fixed point; where the
 * alternation ends in a cycle instead (a -> b -> a: the scores are flat near their least), the cycle's pair whose
 * table scores least at its own skew.
 */
export function settleSkew<F>(tried: Map<number, { fit: F; skew: SkewFit }>): { fit: F; skew: SkewFit } {
  const fixed = [...tried].find(([s, t]) => t.skew.skew === s);
  if (fixed) return tried.get(fixed[0])!;
  // The cycle: the skews reached again from the last step.
  const steps = [...tried.keys()];
  const cycle = steps.slice(steps.indexOf([...tried.values()].at(-1)!.skew.skew));
  const best = cycle.reduce((b, s) => (tried.get(s)!.skew.score.get(s)! < tried.get(b)!.skew.score.get(b)! - 1e-12 ? s : b), cycle[0]);
  const t = tried.get(best)!;
  return { fit: t.fit, skew: at(t.skew, best) };
}
