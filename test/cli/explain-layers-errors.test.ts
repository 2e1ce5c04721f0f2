import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/** `npm run cost:explain` on bad input: one line naming what it could not read, exit 2, no stack trace. */
const work = mkdtempSync(join(tmpdir(), 'firmgen-explain-'));
const SCRIPT = join(REPO, 'dist', 'scripts', 'explain-layers.js');
const INPUTS = join(DEEPLOY, 'Models', 'miniMobileNet', 'inputs.npz');

function explain(...args: string[]): { code: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

function expectOneLine(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.is(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.match(lines[0], pattern);
  assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
}

test('no firmware folder there', () => {
  const missing = join(work, 'no-such-firmware');
  expectOneLine(explain(missing, '--inputs', INPUTS), /^explain-layers: .*no-such-firmware.*cannot read the manifest/);
});

test('no arguments: the usage, on one line', () => {
  expectOneLine(explain(), /^usage: explain-layers/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
