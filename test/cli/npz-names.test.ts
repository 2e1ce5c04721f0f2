import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `gen run --inputs/--expect` take an .npz's arrays by graph name when it holds one for every input (output), in any
 * order, as onnxruntime feeds a session; else in file order, as the test vectors' arrays come. Golden data: the vectors' own inputs.npz/outputs.npz.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-npz-names-'));
const src = join(DEEPLOY, 'Kernels', 'Integer', 'Sub');
const fw = join(work, 'fw');

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: work });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const made = gen('firmware', '--platform', 'generic', join(src, 'network.onnx'), '-o', fw);
if (made.code !== 0) throw new Error(made.stderr);
const inputs = readNpz(join(src, 'inputs.npz'));
const names = [...inputs.keys()];

test('the vectors hold two different inputs of a Sub (so order matters)', () => {
  assert.equal(names.length, 2);
  const [a, b] = [...inputs.values()];
  assert.ok(a.data.some((v, i) => v !== b.data[i]));
});

test('inputs in reversed file order under their graph names: exact', () => {
  writeFileSync(join(work, 'rev.npz'), encodeNpz(new Map([[names[1], inputs.get(names[1])!], [names[0], inputs.get(names[0])!]])));
  const r = gen('run', fw, '--inputs', join(work, 'rev.npz'), '--expect', join(src, 'outputs.npz'));
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /Errors: 0 out of/);
});

test('other names: taken in file order, so the reversed file is the swapped difference (it differs) and the file in order is exact', () => {
  writeFileSync(join(work, 'anon.npz'), encodeNpz(new Map([['x', inputs.get(names[1])!], ['y', inputs.get(names[0])!]])));
  const swapped = gen('run', fw, '--inputs', join(work, 'anon.npz'), '--expect', join(src, 'outputs.npz'));
  assert.is(swapped.code, 1, swapped.stdout + swapped.stderr);
  assert.not.match(swapped.stdout, /Errors: 0 out of/);
  writeFileSync(join(work, 'plain.npz'), encodeNpz(new Map([['x', inputs.get(names[0])!], ['y', inputs.get(names[1])!]])));
  const r = gen('run', fw, '--inputs', join(work, 'plain.npz'), '--expect', join(src, 'outputs.npz'));
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /Errors: 0 out of/);
});

test.run();
