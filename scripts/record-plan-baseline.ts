/**
 * Records what the planner achieves on every integer folder of ../shared/deeploy-tests (Models and Kernels alike)
 * and on the MLPerf-Tiny-class models test/helpers/tiny-models.ts builds,
 * so test/midend/plan-baseline.test.ts can hold later planners to "equal or better": per folder and configuration,
 * the home memory's peak (plan.used) and its live-set bound, the far memory's peak when some tensors live in L3, and
 * every tiled layer's estimated cycles (the tile search's cost model) with its L1 bytes.
 *
 *   npm run build && node dist/scripts/record-plan-baseline.js > test/midend/plan-baseline.json
 *
 * Until the cost classes of the kernels' units (CONV_UNIT .. POOL_ROW, runtime/as/cost.ts) the figures came from the
 * planner before issue 15's speed work (commit 6b95082) with the current measured tables copied into that tree; the
 * merged planner was no worse on every pair. That planner cannot price the new classes (a tile's gather rows and
 * units, an expression's operations), so the figures are now this tree's own planner's, recorded when those classes
 * came: the test holds later planners to them. A refit of the tables moves every tiled layer's estimate: record
 * again then. Rerun it only to record a plan that is meant to change.
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
