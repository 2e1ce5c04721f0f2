/**
 * The planner guarded by function, not time (issue 15): on every integer folder, the MLPerf-class models of
 * tiny-models.ts and every configuration of
 * test/helpers/plan-figures.ts, the home memory's peak (and the far memory's) is no higher than in
 * plan-baseline.json (recorded by scripts/record-plan-baseline.ts, which says from which planner) and
 * every tiled layer's estimated cycles no higher; and a generation run twice writes the same bytes, every file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileModel, generateFirmware, type CompileOptions } from '../../generator/pipeline.js';
import { integerFolders, REPO } from '../helpers/deeploy.js';
import { PLAN_CONFIGS, planFigures, planModels, type PlanFigures } from '../helpers/plan-figures.js';

const baseline = JSON.parse(readFileSync(join(REPO, 'test', 'midend', 'plan-baseline.json'), 'utf8')) as Record<string, PlanFigures | { error: string }>;
const models = mkdtempSync(join(tmpdir(), 'firmgen-plan-models-'));
const folders = planModels(models);

test('the baseline covers every integer folder (the test vectors are there) and the MLPerf-class models', () => {
  assert.ok(integerFolders().length >= 50, `${integerFolders().length} integer folders`);
  for (const f of folders) assert.ok(`${f.name} generic` in baseline, `${f.name} has no recorded plan: rerun scripts/record-plan-baseline.ts`);
});

for (const cfg of PLAN_CONFIGS) {
  test(`plans no worse than the baseline: ${cfg.name}`, () => {
    for (const f of folders) {
      if (cfg.only && !cfg.only.includes(f.name)) continue;
      const key = `${f.name} ${cfg.name}`;
      const was = baseline[key];
      if (!was || 'error' in was) continue; // (a folder the planner refused before may now plan: no worse either way)
      const now = planFigures(compileModel({ model: f.model, ...cfg.opts } as CompileOptions));
      assert.ok(now.used <= was.used, `${key}: L2 peak ${now.used} > ${was.used}`);
      assert.ok(now.used >= now.lowerBound, `${key}: below its own live-set bound`);
      if (was.farUsed !== undefined) assert.ok((now.farUsed ?? 0) <= was.farUsed, `${key}: L3 peak ${now.farUsed} > ${was.farUsed}`);
      for (const [layer, t] of Object.entries(was.tiles ?? {})) {
        const n = now.tiles?.[layer];
        assert.ok(n, `${key}: layer ${layer} no longer tiled`);
        assert.ok(n.cycles <= t.cycles, `${key}: layer ${layer} ${n.cycles} estimated cycles > ${t.cycles}`);
      }
    }
  });
}

test('generation is deterministic: every Models folder twice, byte-identical files', () => {
  const work = mkdtempSync(join(tmpdir(), 'firmgen-twice-'));
  const files = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length)).sort();
  try {
    let n = 0;
    for (const f of folders.filter((x) => /^(Models|MLPerf)\//.test(x.name) || x.name === 'Kernels/Integer/Attention')) {
      for (const opts of [{ platform: 'siracusa', l1: 64000 }, { platform: 'generic' }]) {
        const a = join(work, String(n++));
        const b = join(work, String(n++));
        generateFirmware({ model: f.model, out: a, ...opts });
        generateFirmware({ model: f.model, out: b, ...opts });
        assert.equal(files(b), files(a));
        for (const x of files(a)) assert.ok(readFileSync(join(a, x)).equals(readFileSync(join(b, x))), `${f.name} ${opts.platform}: ${x} differs`);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test.after(() => rmSync(models, { recursive: true, force: true }));
test.run();
