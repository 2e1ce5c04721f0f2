/**
 * Records what the planner achieves on every integer folder of ../shared/deeploy-tests (Models and Kernels alike),
 * so test/midend/plan-baseline.test.ts can hold later planners to "equal or better": per folder and configuration,
 * the home memory's peak (plan.used) and its live-set bound, the far memory's peak when some tensors live in L3, and
 * every tiled layer's estimated cycles (the tile search's cost model) with its L1 bytes.
 *
 *   npm run build && node dist/scripts/record-plan-baseline.js > test/midend/plan-baseline.json
 *
 * The figures in the repository were produced this way from the planner before issue 15's speed work (greedy offsets
 * with HiGHS behind it, the tile search without pruning); rerun it only to record a plan that is meant to change.
 */
import { compileModel, type CompileOptions } from '../generator/pipeline.js';
import { integerFolders } from '../test/helpers/deeploy.js';
import { PLAN_CONFIGS, planFigures } from '../test/helpers/plan-figures.js';

const out: Record<string, unknown> = {};
for (const f of integerFolders()) {
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
process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
