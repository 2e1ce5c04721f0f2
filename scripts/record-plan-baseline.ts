/**
 * Records what the planner achieves on every integer folder of ../shared/deeploy-tests (Models and Kernels alike)
 * and on the MLPerf-Tiny-class models test/helpers/tiny-models.ts builds,
 * so test/midend/plan-baseline.test.ts can hold later planners to "equal or better": per folder and configuration,
 * the home memory's peak (plan.used) and its live-set bound, the far memory's peak when some tensors live in L3, and
 * every tiled layer's estimated cycles (the tile search's cost model) with its L1 bytes.
 *
 *   npm run build && node dist/scripts/record-plan-baseline.js > test/midend/plan-baseline.json
 *
 * The figures in the repository were produced this way from the planner before issue 15's speed work (greedy offsets
 * with HiGHS behind it, the tile search without pruning: commit 6b95082) with the measured cost tables of the
 * current tree (this script, its two helpers and generator/platforms/<name>/measured-costs.ts copied into that tree). A
 * refit of the tables moves every tiled layer's estimate: record again then, the same way (the first recording, at
 * df3e04e, predates the measured tables). Rerun it only to record a plan that is meant to change.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModel, type CompileOptions } from '../generator/pipeline.js';
import { PLAN_CONFIGS, planFigures, planModels } from '../test/helpers/plan-figures.js';

const out: Record<string, unknown> = {};
const work = mkdtempSync(join(tmpdir(), 'firmgen-plan-baseline-'));
for (const f of planModels(work)) {
  for (const cfg of PLAN_CONFIGS) {
    if (cfg.only && !cfg.only.includes(f.name)) continue;
    const key = `${f.name} ${cfg.name}`;
    try {
      out[key] = planFigures(compileModel({ model: f.model, ...cfg.opts } as CompileOptions));
    } catch (e) {
      out[key] = { error: (e as Error).message.split('\n')[0] };
    }
  }
}
rmSync(work, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
