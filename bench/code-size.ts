/**
 * What a layer's cold code costs the team, against what the AS charges for it (runtime/as/cost.ts CODE_LAYER,
 * CODE_BYTE): per calibration layer on Siracusa's whole team, the bytes of its C (backend/c-image.ts codeBytes), what
 * the AS estimates gcc makes of them (times the platform's code ratio: its CODE_BYTE units a core), the bytes gcc made
 * of it (the layer's functions in the rv32-xpulp ELF), and the ISS's
 * waits for the instruction cache: of core 0, which also drives the tiles, and the longest of the other cores, which
 * run the kernel alone. Then how well each size measure predicts those cores' waits (least squares a + b x size: R^2,
 * mean error, and the mean error per kernel), beside the AS's charge under the committed table.
 *
 *   npm run bench:code-size [-- <regex on layer names>]
 *
 * The C's bytes measure the compiled code poorly (constant-folded paths, unrolled loops): this prints by how much, to
 * judge a better measure of it (docs/timing.md "The fit").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { platformByName } from '../generator/platforms/index.js';
import { COST_CLASSES } from '../generator/platforms/types.js';
import { runIss } from '../runtime/node/iss-run.js';
import { STALL } from '../runtime/node/iss.js';
import { runFirmware } from '../runtime/node/run.js';
import { calibrationFor, runInputs } from '../scripts/cost-fit/layers.js';
import { compiledBytes, planCostsOf, writeLayer } from '../scripts/cost-fit/measure.js';
import { nnls } from '../scripts/cost-fit/nnls.js';
import { fitTarget } from '../scripts/cost-fit/targets.js';

const PLATFORM = 'siracusa';
const target = fitTarget(PLATFORM);
const only = new RegExp(process.argv[2] ?? '.');
const costs = platformByName(PLATFORM).costs;
const unitsOf = (units: number[], c: (typeof COST_CLASSES)[number]): number => units[COST_CLASSES.indexOf(c)];

interface Row { name: string; kernel: string; few: boolean; cBytes: number; estimated: number; compiled: number; core0: number; workers: number; charged: number }

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-code-'));
const rows: Row[] = [];
// One layer, one kernel function: a row of several layers or tile shapes mixes their code.
// Planned as the fit plans them (measure.ts measureTeam).
for (const l of calibrationFor(target).filter((x) => only.test(x.name))) {
  const { model, sample, out } = writeLayer(l, join(work, `l${rows.length}`));
  const { manifest } = generateFirmware({ model, platform: PLATFORM, out, ...l.options, sampleInputs: sample, planCosts: planCostsOf(target) });
  if (manifest.layers.length !== 1 || (manifest.layers[0].tiling?.instances ?? 1) > 1) continue;
  const inputs = runInputs(l);
  const as = await runFirmware(out, inputs);
  const iss = await runIss(out, inputs);
  // Harts 1 .. cores are the cluster's cores: core 0 is hart 1.
  const fetch = iss.hartStalls.map((s) => s[STALL.fetch]);
  const code = manifest.layers[0].code;
  if (!code || unitsOf(as.units, 'CODE_LAYER') === 0) continue;
  rows.push({
    name: l.name, kernel: manifest.layers[0].kernel, few: l.fewOutputs === true, cBytes: code.sourceBytes, estimated: code.bytes,
    compiled: compiledBytes(out), core0: fetch[1], workers: Math.max(...fetch.slice(2)), charged: costs.CODE_LAYER + costs.CODE_BYTE * code.bytes,
  });
  console.log(JSON.stringify(rows[rows.length - 1]));
}
rmSync(work, { recursive: true, force: true });

/** The workers' waits of `rows` against a measure: the line a + b x size, R^2, mean |error|, mean error per kernel. */
function judge(rows: Row[], what: string, size: (r: Row) => number, line?: [number, number]): void {
  const [a, b] = line ?? nnls(rows.map((r) => [1, size(r)]), rows.map((r) => r.workers));
  const err = rows.map((r) => a + b * size(r) - r.workers);
  const mean = rows.reduce((s, r) => s + r.workers, 0) / rows.length;
  const r2 = 1 - err.reduce((s, e) => s + e * e, 0) / rows.reduce((s, r) => s + (r.workers - mean) ** 2, 0);
  const kernels = [...new Set(rows.map((r) => r.kernel))].map((k) => {
    const e = err.filter((_, i) => rows[i].kernel === k);
    const bias = Math.round(e.reduce((s, x) => s + x, 0) / e.length);
    return `${k} ${bias >= 0 ? '+' : ''}${bias}`;
  });
  console.log(`${what.padEnd(34)} ${a.toFixed(0)} + ${b.toFixed(3)} x size  R^2 ${r2.toFixed(2)}  mean |error| ${Math.round(err.reduce((s, e) => s + Math.abs(e), 0) / err.length)}  by kernel: ${kernels.join(', ')}`);
}
// The few-output layers' waits are their cold code alone; a large layer's also count its loops' repeated misses.
for (const [set, of] of [['', rows], [' of a few outputs', rows.filter((r) => r.few)]] as const) {
  console.log(`${of.length} one-layer, one-shape calibration layers${set} on ${PLATFORM}'s team; the other cores' waits for the instruction cache against:`);
  judge(of, 'the compiled bytes', (r) => r.compiled);
  judge(of, 'the C bytes', (r) => r.cBytes);
  judge(of, 'the C bytes x the code ratios', (r) => r.estimated);
  judge(of, 'the AS charge (committed table)', (r) => r.estimated, [costs.CODE_LAYER, costs.CODE_BYTE]);
}
