import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { checkRun } from './cli-check.js';
import { buildRecipe, randomRecipe } from './graph-gen.js';
import { shrinkRecipe } from './shrink.js';
import { classifyGenerationError, signature } from './verdict.js';

/** The fuzzers' own machinery: recipes replay, the shrinker shrinks, verdicts and CLI checks say what they should. */

test('a recipe rebuilds to the same model, and every step of a generated recipe applies', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const r = randomRecipe(seed, 6);
    const a = buildRecipe(r);
    const b = buildRecipe(JSON.parse(JSON.stringify(r)));
    assert.equal(Buffer.from(a.builder.bytes()).toString('hex'), Buffer.from(b.builder.bytes()).toString('hex'), `seed ${seed}`);
    assert.is(a.applied, r.steps.length, `seed ${seed}`);
  }
});

test('the shrinker keeps only what the failure needs', async () => {
  let r = randomRecipe(3, 6);
  // A recipe that "fails" to begin with (its input has at least 3 columns), whichever kinds the generator has.
  for (let s = 4; !r.steps.some((x) => x.op === 'conv') || r.steps.length < 3 || r.inputs[0].shape.length !== 4 || r.inputs[0].shape[3] < 3; s++) r = randomRecipe(s, 6);
  // "Fails" while a conv step applies on an input of at least 3 columns.
  const fails = async (c: typeof r): Promise<boolean> => c.steps.some((x) => x.op === 'conv') && c.inputs[0].shape[3] >= 3 && buildRecipe(c).applied > 0;
  const { recipe } = await shrinkRecipe(r, fails, 200);
  assert.equal(recipe.steps.map((x) => x.op), ['conv']);
  assert.equal(recipe.inputs[0].shape, [1, 1, 1, 3]);
});

test('generation errors: clean one-liners are rejections, the rest are findings', () => {
  assert.is(classifyGenerationError(new GenError('model', 'bad pads', { node: 'n' })).verdict, 'rejected');
  assert.is(classifyGenerationError(new GenError('internal', 'oops')).verdict, 'crash');
  assert.is(classifyGenerationError(new TypeError('x is undefined')).verdict, 'crash');
  // GenError escapes what it is given, so its own messages are one clean line ...
  assert.is(classifyGenerationError(new GenError('model', 'two\nlines')).verdict, 'rejected');
  assert.is(classifyGenerationError(new GenError('model', 'esc \u001b[31m')).verdict, 'rejected');
  // ... and a message that still carries a line break or an escape (set afterwards) is a finding.
  const raw = (m: string) => Object.assign(new GenError('model', 'x'), { message: m });
  assert.is(classifyGenerationError(raw('two\nlines')).verdict, 'unclear-error');
  assert.is(classifyGenerationError(raw('esc \u001b[31m')).verdict, 'unclear-error');
  const a = signature({ verdict: 'crash', stage: 'generate', message: "/tmp/a/model.onnx: node 'X_1' (Reshape): range [1, 2] exceeds int16" });
  const b = signature({ verdict: 'crash', stage: 'generate', message: "/tmp/b/model.onnx: node 'Y_7' (Reshape): range [3, 4] exceeds int8" });
  assert.is(a, b, 'signatures ignore paths, names and numbers');
});

test('the fuzz driver: --help prints its usage, a bad word or number is one line and exit 2 before any run', () => {
  const main = fileURLToPath(new URL('./main.js', import.meta.url));
  // Run from another folder, with a temporary folder of its own: a refused run leaves nothing there.
  const cwd = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-args-'));
  const tmp = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-tmp-'));
  try {
    const run = (...args: string[]) => spawnSync(process.execPath, [main, ...args], { cwd, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp }, timeout: 60_000 });
    const help = run('--help');
    assert.is(help.status, 0);
    assert.match(help.stdout, /^usage: npm run fuzz -- \[--seed N/);
    for (const bad of [['--spawn-every', 'abc'], ['--jobs', '0'], ['--seconds', ''], ['--only', 'both'], ['--sed', '3'], ['stray']]) {
      const r = run(...bad);
      assert.is(r.status, 2, bad.join(' '));
      const lines = r.stderr.split('\n').filter((l) => l !== '');
      assert.is(lines.length, 1, `${bad.join(' ')}: ${r.stderr}`);
      assert.match(lines[0], /^error: /);
      assert.is(r.stdout, '', bad.join(' '));
    }
    assert.equal(readdirSync(tmp), [], 'no work folder left behind');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('command-line checks', () => {
  const run = (code: number | null, stderr: string, stdout = '') => checkRun({ code, stderr, stdout, ms: 1, timedOut: false });
  assert.equal(run(2, 'error: model.onnx: bad\n'), []);
  assert.equal(run(0, 'note: x\n', 'ok\n'), []);
  assert.equal(run(1, '', 'Errors: 3 out of 9\n'), []);
  assert.ok(run(2, 'error: a\nsecond\n').length > 0);
  assert.ok(run(3, 'error: a\n').length > 0);
  assert.ok(run(2, 'internal error: x\n').length > 0);
  assert.ok(run(2, 'error: a\n    at f (file.js:1:2)\n').length > 0);
  assert.ok(run(0, '', 'name \u001b[31m\n').length > 0);
  assert.ok(checkRun({ code: null, stderr: '', stdout: '', ms: 9, timedOut: true }).length > 0);
});

test.run();
