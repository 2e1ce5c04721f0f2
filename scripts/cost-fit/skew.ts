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
}

/** `team`: the calibration layers on the platform's whole team (measure.ts measureTeam: ISS once, outputs checked). */
export async function fitSkew(team: TeamRun[]): Promise<SkewFit> {
  const runs: { name: string; iss: number; as: Map<number, number> }[] = [];
  for (const t of team) {
    const as = new Map<number, number>();
    for (const s of SKEWS) as.set(s, (await runFirmware(t.out, t.inputs, { bankSkew: s })).cycles);
    runs.push({ name: t.name, iss: t.issCycles, as });
  }
  const score = new Map(SKEWS.map((s) => [s, runs.reduce((sum, r) => sum + Math.log(r.as.get(s)! / r.iss) ** 2, 0)]));
  const skew = SKEWS.reduce((best, s) => (score.get(s)! < score.get(best)! - 1e-12 ? s : best), SKEWS[0]);
  return { skew, rows: runs.map((r) => ({ name: r.name, iss: r.iss, as: r.as.get(skew)! })), score };
}
