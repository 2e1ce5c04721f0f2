import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { firmwareEqualsReference, python, requireTorch } from '../helpers/bss2-train.js';
import { gen } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

/*
 * examples/bss2-train/train.py (emulator-in-the-loop training for BrainScaleS-2), a few steps of it: the float MLP
 * trained and quantized, 12 steps with chip 1 in the forward pass. Checks that the loss the chip gives on the training
 * samples goes down, that the steps changed the weights, and that the trained int8 model goes through
 * `gen firmware --platform brainscales2` and `gen run`, equal to the reference interpreter on the lowered graph (its
 * analog layers firmgen's reference model of the chip) bit for bit, with the chip seed it was trained for and the
 * temporal noise on. Also: the forward server train.py talks to writes what `gen forward --layers` writes, and answers
 * a bad request with one line; bad options of train.py are one line and exit 2.
 */

requireTorch('bss2-train');

const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-train-'));
const out = join(work, 'train');
const result = join(work, 'result.json');
const t0 = performance.now();
const run = spawnSync(python, [join(repoRoot, 'examples', 'bss2-train', 'train.py'), '--data', 'synthetic',
  '--train', '256', '--test', '64', '--epochs', '10', '--seeds', '1', '--batch', '64', '--hil-epochs', '3', '--steps', '12',
  '--out', out, '--json', result], { encoding: 'utf8', cwd: repoRoot, env: { ...process.env, FIRMGEN_NODE: process.execPath } });
console.log(`  train.py: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

interface Result {
  int8Model: string;
  results: { chipSeed: number; steps: number; lossBefore: number; lossAfter: number; model: string; stepLosses: number[] }[];
}

test('train.py runs to its table', () => {
  assert.is(run.status, 0, `train.py exit ${run.status}: ${run.stderr}`);
  assert.match(run.stdout, /chip seed \|/);
});

test('12 steps with the chip in the loop: the chip\'s loss on the training samples goes down', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const c = r.results[0];
  assert.is(c.steps, 12);
  console.log(`  loss on the chip ${c.lossBefore.toFixed(3)} -> ${c.lossAfter.toFixed(3)}`);
  assert.ok(c.lossAfter < c.lossBefore, `loss ${c.lossBefore} -> ${c.lossAfter}`);
});

test('the steps changed the int8 weights', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const before = loadOnnxFile(r.int8Model).tensors;
  const after = loadOnnxFile(r.results[0].model).tensors;
  let changed = 0;
  let weights = 0;
  for (const [name, t] of after) {
    const a = t.data;
    const b = before.get(name)?.data;
    if (!a || !b) continue;
    assert.equal(a.shape, b.shape, name);
    if (a.dtype === 'int8') weights += a.data.length;
    for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) changed++;
  }
  assert.is(weights, 784 * 128 + 128 * 64 + 64 * 10);
  assert.ok(changed > 100, `${changed} values changed`);
});

test('the trained model: gen firmware --platform brainscales2 and gen run equal the reference interpreter', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const model = r.results[0].model;
  const heldout = readNpz(join(out, 'heldout.npz')).get('image')!;
  firmwareEqualsReference(model, ['--chip-seed', '1', '--noise-seed', '5'], { chipSeed: 1, noiseSeed: 5 }, heldout, 2, 10, work);
});

test('the forward server answers what gen forward --layers writes', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const model = r.results[0].model;
  const heldout = readNpz(join(out, 'heldout.npz')).get('image')!;
  const size = heldout.data.length / heldout.shape[0];
  const batch = join(work, 'batch4.npz');
  writeFileSync(batch, encodeNpz(new Map([['image', ndarray('uint8', [4, ...heldout.shape.slice(1)], heldout.data.subarray(0, 4 * size))]])));
  const viaCli = join(work, 'cli.npz');
  const viaServer = join(work, 'server.npz');
  const c = gen('forward', model, '--platform', 'brainscales2', '--inputs', batch, '-o', viaCli, '--layers', '--chip-seed', '3', '--noise-seed', '9');
  assert.is(c.code, 0, c.stderr);
  const request = JSON.stringify({ model, inputs: batch, out: viaServer, options: { chipSeed: 3, noiseSeed: 9 }, layers: true });
  const bad = JSON.stringify({ model, inputs: batch, out: viaServer, options: { chipSeed: -1 } });
  const s = spawnSync(process.execPath, [join(repoRoot, 'dist', 'examples', 'bss2-train', 'forward-server.js')], { input: `${request}\n${bad}\n`, encoding: 'utf8' });
  const answers = s.stdout.trim().split('\n').map((l) => JSON.parse(l) as { ok?: boolean; samples?: number; error?: string });
  assert.is(answers[0].ok, true, s.stdout + s.stderr);
  assert.is(answers[0].samples, 4);
  assert.match(answers[1].error ?? '', /--chip-seed -1/);
  const a = readNpz(viaCli);
  const b = readNpz(viaServer);
  assert.equal([...b.keys()].sort(), [...a.keys()].sort());
  assert.ok(a.has('analog2_output'));
  for (const [k, v] of a) assert.equal(Array.from(b.get(k)!.data), Array.from(v.data), k);
});

test('bad options: one line, exit 2', () => {
  for (const args of [['--seeds', 'x'], ['--train', '10'], ['--data', 'mnist'], ['--lr']]) {
    const r = spawnSync(python, [join(repoRoot, 'examples', 'bss2-train', 'train.py'), ...args, '--out', join(work, 'bad')], { encoding: 'utf8' });
    assert.is(r.status, 2, args.join(' '));
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^train\.py: /);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
