/**
 * `npm run fit:costs`: derives the Siracusa cluster core's cost table (what the AS firmware charges per unit of work,
 * emulator/assembly/cost.ts) from the real C kernels measured on the ISS (scripts/cost-fit/). Prints every
 * calibration layer with the AS prediction under the fitted table over the ISS cycles, then the fitted cost of each
 * class beside its hand count (generator/platforms/siracusa/hand-costs.ts, the table the emulator still uses).
 * Options: --only <regex on layer names>, --keep <class,class> (classes held at their hand count).
 *
 * Not yet written back into the emulator: the classes are coarser than the C's paths (ELEMENT prices a MaxPool, a
 * Transpose and an Add with requantization alike, and the C spends ~2.5, ~12 and ~24 cycles on them), so the fit is
 * only as good as the class split (docs/timing.md, "Measured against the ISS").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { siracusa } from '../generator/platforms/siracusa/platform.js';
import { COST_CLASSES, type CostClass } from '../generator/platforms/types.js';
import { HAND_COUNTS } from '../generator/platforms/siracusa/hand-costs.js';
import { fitCosts } from './cost-fit/fit.js';
import { CALIBRATION } from './cost-fit/layers.js';
import { measure } from './cost-fit/measure.js';


const work = mkdtempSync(join(tmpdir(), 'firmgen-fit-costs-'));
try {
  const arg = (flag: string): string | undefined => {
    const i = process.argv.indexOf(flag);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const only = arg('--only') ? new RegExp(arg('--only')!) : undefined;
  const keep = (arg('--keep') ?? '').split(',').filter((c): c is CostClass => (COST_CLASSES as readonly string[]).includes(c));
  const rows = await measure(CALIBRATION.filter((l) => !only || only.test(l.name)), work, siracusa.costs);
  const fit = fitCosts(rows, HAND_COUNTS, keep);
  for (const r of fit.ratios) console.log(JSON.stringify(r));
  const w = Math.max(...fit.ratios.map((r) => r.name.length));
  console.log(['calibration layer'.padEnd(w), 'ISS'.padStart(9), 'AS fitted'.padStart(9), 'AS/ISS'.padStart(7)].join('  '));
  for (const r of fit.ratios) console.log([r.name.padEnd(w), String(r.iss).padStart(9), String(r.predicted).padStart(9), r.ratio.toFixed(2).padStart(7)].join('  '));
  for (const c of fit.fitted) console.log(`${c.padEnd(12)} ${fit.costs[c].toFixed(4)} (hand count ${HAND_COUNTS[c]})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
