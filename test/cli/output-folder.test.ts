import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `gen firmware -o`: only a new or empty folder, or an earlier firmgen output, is written; a folder holding anything
 * else, the current folder, the model's folder and their ancestors are refused with one line, exit 2, and every file
 * in them is left as it was.
 */
const source = join(DEEPLOY, 'Kernels', 'Integer', 'Add', 'Regular');

/** A user's project: the model, its inputs, a notes file and a source file in a subfolder. */
const made: string[] = [];
function userProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-user-'));
  made.push(dir);
  copyFileSync(join(source, 'network.onnx'), join(dir, 'model.onnx'));
  copyFileSync(join(source, 'inputs.npz'), join(dir, 'inputs.npz'));
  writeFileSync(join(dir, 'notes.txt'), 'my notes\n');
  mkdirSync(join(dir, 'proj', 'src'), { recursive: true });
  writeFileSync(join(dir, 'proj', 'src', 'main.c'), 'int main(void) { return 0; }\n');
  return dir;
}

function genIn(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Every file below dir with its content, to show that a refused command changed nothing. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) files.set(join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'latin1'));
  }
  return files;
}

function assertRefused(r: { code: number; stderr: string }, why: RegExp): void {
  assert.is(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line: ${r.stderr}`);
  assert.match(lines[0], /output folder/);
  assert.match(lines[0], why);
}

for (const [name, out, why] of [
  ['the current folder', '.', /is the current folder/],
  ['an ancestor of the current folder', '..', /holds the current folder/],
  ['a folder with a user project', 'proj', /not a firmgen output/],
  ['a subfolder with user files', 'proj/src', /not a firmgen output/],
] as const) {
  test(`-o ${out}: ${name} is refused and nothing changes`, () => {
    const dir = userProject();
    const before = snapshot(dir);
    const r = genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', out);
    assertRefused(r, why);
    assert.equal(snapshot(dir), before);
    assert.equal(readdirSync(dir).sort(), ['inputs.npz', 'model.onnx', 'notes.txt', 'proj']);
  });
}

test("the model's folder is refused even from elsewhere", () => {
  const dir = userProject();
  const before = snapshot(dir);
  const r = genIn(tmpdir(), 'firmware', '--platform', 'generic', join(dir, 'model.onnx'), '-o', dir);
  assertRefused(r, /model's folder/);
  assert.equal(snapshot(dir), before);
});

test('a file as the output folder is refused', () => {
  const dir = userProject();
  const r = genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', 'notes.txt');
  assertRefused(r, /not a folder/);
  assert.is(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'my notes\n');
});

test('a firmware.json not written by firmgen does not make a folder replaceable', () => {
  const dir = userProject();
  writeFileSync(join(dir, 'proj', 'firmware.json'), '{"name": "my board config"}\n');
  const before = snapshot(dir);
  assertRefused(genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', 'proj'), /not a firmgen output/);
  assert.equal(snapshot(dir), before);
});

test('a symlink to a user folder is refused', () => {
  const dir = userProject();
  symlinkSync(join(dir, 'proj'), join(dir, 'link'));
  const before = snapshot(join(dir, 'proj'));
  assertRefused(genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', 'link'), /not a firmgen output/);
  assert.equal(snapshot(join(dir, 'proj')), before);
});

test('a new folder, an empty one and an earlier output are written; other outputs under out/ stay', () => {
  const dir = userProject();
  mkdirSync(join(dir, 'empty'));
  for (const out of ['fresh/fw', 'empty']) {
    const r = genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', out);
    assert.is(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, out, 'firmware.json')));
  }
  // Again into an earlier output: replaced whole (a stale file from the old output is gone).
  writeFileSync(join(dir, 'empty', 'stale.txt'), 'x');
  const again = genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx', '-o', 'empty');
  assert.is(again.code, 0, again.stderr);
  assert.not.ok(existsSync(join(dir, 'empty', 'stale.txt')));
  // Without -o: out/<model>-<platform>, beside any other output already under out/.
  const a = genIn(dir, 'firmware', '--platform', 'generic', 'model.onnx');
  const b = genIn(dir, 'firmware', '--platform', 'siracusa', 'model.onnx');
  assert.is(a.code, 0, a.stderr);
  assert.is(b.code, 0, b.stderr);
  assert.equal(readdirSync(join(dir, 'out')).sort(), ['model-generic', 'model-siracusa']);
  assert.equal(readdirSync(dir).filter((f) => f.includes('.tmp-') || f.includes('.old-')), []);
  assert.is(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'my notes\n');
  assert.is(readFileSync(join(dir, 'proj', 'src', 'main.c'), 'utf8'), 'int main(void) { return 0; }\n');
});

test.after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

test.run();
