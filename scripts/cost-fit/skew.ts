/**
 * The L1 bank replay's start skew, measured (Siracusa; docs/timing.md "L1 bank conflicts"). The per-unit classes are
 * fitted on one core, where no bank is shared; on the whole team the AS replays the cores' declared loops against
 * the banks, and how far apart the cores start their loops decides how many conflicts the replay finds. The C's
 * cores on the ISS are not in lockstep, so the skew is taken from them: the calibration layers run once on the ISS
 * with the platform's team, and the AS with each candidate skew; the skew whose AS cycles are closest to the ISS's
 * (least squares on log ratios, the smaller skew on a tie) is the chip's.
 */
import { join } from 'node:path';
import { generateFirmware } from '../../generator/pipeline.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runInputs, type CalibrationLayer } from './layers.js';
import { checkSameOutputs, writeLayer } from './measure.js';
import type { FitTarget } from './targets.js';

/** Skews tried, in cycles: up to a little over the longest declared loop period (20). */
export const SKEWS: readonly number[] = Array.from({ length: 25 }, (_, i) => i);

export interface SkewFit {
  skew: number;
  /** Per layer: ISS cycles and the AS cycles at the chosen skew. */
  rows: { name: string; iss: number; as: number }[];
  /** Per skew tried: the sum of squared log ratios. */
  score: Map<number, number>;
}

export async function fitSkew(layers: CalibrationLayer[], work: string, target: FitTarget): Promise<SkewFit> {
  const runs: { name: string; iss: number; as: Map<number, number> }[] = [];
  for (const [i, l] of layers.entries()) {
    const { model, sample, out } = writeLayer(l, join(work, `team${i}`));
    // The platform's whole team, planned with the hand counts like the one-core runs (tiles do not follow the fit).
    generateFirmware({ model, platform: target.platform, out, ...l.options, sampleInputs: sample, planCosts: target.hand });
    const inputs = runInputs(l);
    const iss = await runIss(out, inputs);
    const as = new Map<number, number>();
    for (const s of SKEWS) {
      const r = await runFirmware(out, inputs, { bankSkew: s });
      if (s === 0) checkSameOutputs(l, r.outputs, iss.outputs, ' (whole team)');
      as.set(s, r.cycles);
    }
    runs.push({ name: l.name, iss: iss.networkCycles, as });
  }
  const score = new Map(SKEWS.map((s) => [s, runs.reduce((sum, r) => sum + Math.log(r.as.get(s)! / r.iss) ** 2, 0)]));
  const skew = SKEWS.reduce((best, s) => (score.get(s)! < score.get(best)! - 1e-12 ? s : best), SKEWS[0]);
  return { skew, rows: runs.map((r) => ({ name: r.name, iss: r.iss, as: r.as.get(skew)! })), score };
}
