/**
 * `npm run fit:costs`: derives the cost tables of Siracusa's cluster core and of the generic core (what the AS firmware
 * charges per unit of work, emulator/assembly/cost.ts) from the real C kernels measured on the ISS (scripts/cost-fit/;
 * --platform <name> fits one). Prints every
 * calibration layer with the AS prediction under the fitted table over the ISS cycles, then the fitted cost of each
 * class beside its hand count. With --write: regenerates the measured table both sides read (per platform,
 * generator/platforms/<name>/measured-costs.ts and emulator/assembly/chips/<name>-measured.ts) and its rows in
 * docs/timing.md; then `npm run build` (the calibration is planned with a fixed table, cost-fit/measure.ts planCostsOf, and
 * run against the hand counts, and the bank skew is fitted beside the table from skew 0: a fit does not depend on the
 * table it replaces, and a second run gives the same table).
 * Options: --only <regex on layer names> (not with --write), --keep <class,class> (held at their hand count),
 * --no-skew (leave out the sweep of the L1 bank replay's start skew on the whole team, cost-fit/skew.ts).
 * FIRMGEN_FIT_TEAM_LOG=1 prints the few-output layers' AS/ISS on the team under the fixed costs found (cost-fit/team.ts).
 * CALL, one per kernel call and tile on each core, takes all the per-tile work of the C that the AS path does not
 * count elsewhere (the tile loop's bookkeeping, the DMA programming, the share computation, the barriers' own code).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COST_CLASSES, type CostClass } from '../generator/platforms/types.js';
import { codeImageFactor, codeRatiosOf, fitCosts, scaledRatios } from './cost-fit/fit.js';
import { calibrationFor, timed } from './cost-fit/layers.js';
import { measure, measureCode, measureFixedCostRuns, measureTeam } from './cost-fit/measure.js';
import { withNpuClasses } from './cost-fit/npu-job.js';
import { fitSkew, settleSkew, START_SKEW, type SkewFit } from './cost-fit/skew.js';
import { DOC_FILE, docWithTable, renderDocTable, renderEmulator, renderGenerator } from './cost-fit/render.js';
import { FIT_TARGETS, fitTarget } from './cost-fit/targets.js';
import { REPO } from '../test/helpers/deeploy.js';


const arg = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = arg('--only') ? new RegExp(arg('--only')!) : undefined;
const keep = (arg('--keep') ?? '').split(',').filter((c): c is CostClass => (COST_CLASSES as readonly string[]).includes(c));
const write = process.argv.includes('--write');
// --no-skew: the per-unit classes only (the skew sweep runs every calibration layer on the whole team, 25 AS runs each).
const noSkew = process.argv.includes('--no-skew');
if (write && noSkew) throw new Error('--write writes the skew too: drop --no-skew');
if (write && only) throw new Error('--write fits on every calibration layer: drop --only');
const targets = arg('--platform') ? [fitTarget(arg('--platform')!)] : FIT_TARGETS;
const work = mkdtempSync(join(tmpdir(), 'firmgen-fit-costs-'));
try {
  for (const t of targets) {
    const all = calibrationFor(t).filter((l) => !only || only.test(l.name));
    const layers = all.filter(timed);
    const rows = await measure(layers, work, t);
    const code = measureCode(all, work, t);
    // The layers on the whole team, once: the skew sweep takes them all, the fixed costs the few-output ones.
    const sweep = t.bankSkewConst !== undefined && !noSkew;
    const team = t.fixedOnTeam ? await measureFixedCostRuns(layers, work, t, sweep) : sweep ? await measureTeam(layers, work, t) : [];
    // The skew and the table are fitted together: the fixed costs are measured on the team's AS runs at a skew, the
    // skew on the AS runs under the table; from no skew, in turn until the skew comes again (skew.ts settleSkew).
    let fit = await fitCosts(rows, t.hand, [...keep, ...(t.held ?? [])], t.fixedOnTeam ? team : [], sweep ? START_SKEW : undefined);
    let skew: SkewFit | undefined;
    if (sweep) {
      const tried = new Map<number, { fit: typeof fit; skew: SkewFit }>();
      let at = START_SKEW;
      for (;;) {
        // The pairs for TRANSFER measure it alone (layers.ts transferPair): not the skew's.
        const s = await fitSkew(team.filter((r) => !r.transfers && !r.later), COST_CLASSES.map((c) => fit.costs[c]));
        tried.set(at, { fit, skew: s });
        console.log(`${t.platform}: table fitted at skew ${at}; under it the skew fits ${s.skew} (score ${s.score.get(s.skew)!.toFixed(4)})`);
        if (tried.has(s.skew)) break;
        at = s.skew;
        fit = await fitCosts(rows, t.hand, [...keep, ...(t.held ?? [])], t.fixedOnTeam ? team : [], at);
      }
      ({ fit, skew } = settleSkew(tried));
    }
    // The code ratios over the timed rows and the code-only layers (layers.ts codeOnly).
    // ... as their layers compile in a network's image (fit.ts codeImageFactor).
    const image = codeImageFactor(team, rows);
    console.log(`${t.platform}: a network's image compiles a layer's C to ${image.toFixed(3)} x its bytes alone`);
    fit = { ...fit, codeRatios: scaledRatios(codeRatiosOf([...rows, ...code]), image) };
    // Core 0's work in an N-EUREKA tile loop, last: on the NPU layers' team runs with the table found (npu-job.ts).
    const npu = await withNpuClasses(fit, all, work, t, skew?.skew);
    fit = npu.fit;
    for (const r of npu.rows) console.log(`${t.platform}, N-EUREKA layers on the team: ${r.name}: ISS ${r.iss} AS ${r.as} AS/ISS ${(r.as / r.iss).toFixed(3)}`);
    for (const r of fit.ratios) console.log(JSON.stringify({ platform: t.platform, ...r }));
    const w = Math.max(...fit.ratios.map((r) => r.name.length));
    console.log(`${t.platform}:`);
    console.log(['calibration layer'.padEnd(w), 'ISS'.padStart(9), 'AS fitted'.padStart(9), 'AS/ISS'.padStart(7)].join('  '));
    for (const r of fit.ratios) console.log([r.name.padEnd(w), String(r.iss).padStart(9), String(r.predicted).padStart(9), r.ratio.toFixed(2).padStart(7)].join('  '));
    for (const c of fit.fitted) console.log(`${c.padEnd(12)} ${fit.costs[c].toFixed(4)} (hand count ${t.hand[c]})`);
    if (skew) {
      console.log(`${t.platform}, whole team: bank replay start skew ${skew.skew} cycles (score per skew: ${[...skew.score].map(([s, v]) => `${s}:${v.toFixed(3)}`).join(' ')})`);
      for (const r of skew.rows) console.log([r.name.padEnd(w), String(r.iss).padStart(9), String(r.as).padStart(9), (r.as / r.iss).toFixed(2).padStart(7)].join('  '));
    }
    if (write) {
      writeFileSync(join(REPO, t.generatorFile), renderGenerator(fit, rows, t));
      writeFileSync(join(REPO, t.emulatorFile), renderEmulator(fit, rows, t, skew));
      writeFileSync(join(REPO, DOC_FILE), docWithTable(REPO, t, renderDocTable(fit, t)));
      console.log(`written: ${t.generatorFile}, ${t.emulatorFile}, ${DOC_FILE} (then npm run build)`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
