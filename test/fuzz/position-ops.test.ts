import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { positionBoundOf } from '../../generator/frontend/passes/bound-by-position.js';
import { compileModel } from '../../generator/pipeline.js';
import { CONFIGS } from './configs.js';
import { runDifferential } from './diff.js';
import { buildRecipe, randomRecipe } from './graph-gen.js';
import { CaseRunner } from './pool.js';
import { prepare } from './prepare.js';
import { PASSES } from './verdict.js';

/**
 * Random graphs of a decoder step's ops (ops-position.ts): CacheWrite at a run-time position, attention whose
 * iSoftmax reads it and whose MatMuls the planners bound by it. On every configuration each case is exact against
 * the reference interpreter, or refused in one clean line.
 */
const KINDS = ['cacheWrite', 'attention', 'attention', 'requant', 'matmul', 'transpose', 'reshape', 'argmax'];
const work = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-position-'));
const runner = new CaseRunner(90_000);

test('the generator emits the ops, and the position bounds the attention MatMuls (n and k)', () => {
  const found = { cache: 0, softmax: 0, n: 0, k: 0 };
  for (let seed = 1; seed <= 12; seed++) {
    const r = randomRecipe(seed, 4, 1, KINDS);
    const p = prepare(join(work, `g${seed}`), buildRecipe(r).builder.bytes(), buildRecipe(r).inputs);
    const { lowered } = compileModel({ model: p.model, platform: 'generic' });
    found.cache += lowered.nodes.filter((n) => n.op === 'CacheWrite').length;
    found.softmax += lowered.nodes.filter((n) => n.op === 'iSoftmax' && n.inputs[1]).length;
    found.n += lowered.nodes.filter((n) => positionBoundOf(n) === 'n').length;
    found.k += lowered.nodes.filter((n) => positionBoundOf(n) === 'k').length;
  }
  for (const [what, count] of Object.entries(found)) assert.ok(count > 0, `no ${what} in 12 graphs: ${JSON.stringify(found)}`);
});

test('every configuration: exact or cleanly rejected', async () => {
  const r = await runDifferential({
    seed: 3, count: 4, seconds: Infinity, configs: CONFIGS, allConfigs: true, hostShare: 0.2, work, runner, record: false,
    kinds: KINDS, maxSteps: 4, log: () => undefined,
  });
  assert.ok(r.runs.filter((x) => x.outcome.verdict === 'exact').length >= r.runs.length / 2, 'most runs generate and run');
  assert.equal(r.runs.filter((x) => !PASSES.has(x.outcome.verdict)).map((x) => `${x.caseSeed} ${x.config}: ${x.outcome.verdict} ${x.outcome.message}`), []);
});

test.after(async () => {
  await runner.close();
  rmSync(work, { recursive: true, force: true });
});
test.run();
