import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONFIGS } from './configs.js';
import { runDifferential } from './diff.js';
import { runMutations } from './mutate.js';
import { CaseRunner } from './pool.js';
import { PASSES } from './verdict.js';

/**
 * A small fixed-seed budget of both fuzzers (about a minute): every run must pass (exact, cleanly rejected, or a
 * clean command line). Seeds whose cases hit open findings (corpus/open) are avoided, so this stays a regression
 * test; `npm run fuzz` explores with a large budget.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-smoke-'));
const runner = new CaseRunner(90_000);

test('random graphs: exact or cleanly rejected on every platform', async () => {
  const r = await runDifferential({
    seed: 8, count: 20, seconds: Infinity, configs: CONFIGS, hostShare: 0.2, work, runner, record: false, log: () => undefined,
  });
  assert.ok(r.runs.length >= 20 * 3, `${r.runs.length} runs`);
  assert.ok(r.runs.filter((x) => x.outcome.verdict === 'exact').length >= r.runs.length / 2, 'most cases generate and run');
  const bad = r.runs.filter((x) => !PASSES.has(x.outcome.verdict));
  assert.equal(bad.map((x) => `${x.caseSeed} ${x.config}: ${x.outcome.verdict} ${x.outcome.message}`), []);
});

test('a case past its bound is tried again with three times the time before it counts as a hang', async () => {
  const hurried = new CaseRunner(1);
  const r = await runDifferential({
    seed: 8, count: 1, seconds: Infinity, configs: CONFIGS.slice(0, 1), hostShare: 0, work, runner: hurried, record: false, log: () => undefined,
  });
  await hurried.close();
  assert.ok(r.runs.length >= 1, `${r.runs.length} runs`);
  assert.equal([...new Set(r.runs.map((x) => `${x.outcome.verdict}: ${x.outcome.message}`))], ['hang: no result within 3 ms']);
});

test('mutated inputs through the command line: clean errors, exit codes, no stray files', async () => {
  const r = await runMutations({
    seed: 5, count: 15, seconds: Infinity, platforms: ['generic', 'siracusa', 'spinnaker2'], work, record: false, log: () => undefined,
  });
  assert.ok(r.runs.length >= 8, `${r.runs.length} runs`);
  assert.equal(r.runs.filter((x) => x.problems.length > 0).map((x) => `${x.kind} (${x.what}): ${x.problems.join('; ')}`), []);
});

test.after(async () => {
  await runner.close();
  rmSync(work, { recursive: true, force: true });
});
test.run();
