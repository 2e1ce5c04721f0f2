import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { compileModel } from '../../generator/pipeline.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { firmwareEqualsReference, python, requireTorch, sampleAt } from '../helpers/bss2-train.js';
import { gen } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

/*
 * examples/bss2-har (the hxtorch paper's human-activity network on BrainScaleS-2, on the synthetic HAR set), small:
 * the data generator gives the same bytes for the same seed in two processes and what its docstring says of the
 * classes; train.py trains the Conv1d net on 256 windows, quantizes it and takes 12 steps (three epochs of 4 batches)
 * with chip 1 in the loop (the Conv layer too); the chip's loss on the training windows goes down, the Conv's weights
 * change, and the trained model's firmware equals the reference interpreter on the lowered graph under `gen run`
 * (temporal noise off, the fixed pattern of chip 1 on). The Conv's chip outputs as `gen forward --layers` gives them
 * (rows of output positions) are checked against the reference's NCHW tensor of the same layer: the layout
 * train.py's straight-through step reads.
 */

requireTorch('bss2-har');

const example = join(repoRoot, 'examples', 'bss2-har');
const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-har-'));
const out = join(work, 'train');
const result = join(work, 'result.json');
const t0 = performance.now();
const run = spawnSync(python, [join(example, 'train.py'), '--train', '256', '--test', '64', '--epochs', '6', '--seeds', '1',
  '--hil-epochs', '3', '--steps', '12', '--out', out, '--json', result], { encoding: 'utf8', cwd: repoRoot, env: { ...process.env, FIRMGEN_NODE: process.execPath } });
console.log(`  train.py: ${((performance.now() - t0) / 1000).toFixed(1)} s`);

interface Result {
  int8Model: string;
  results: { chipSeed: number; steps: number; lossBefore: number; lossAfter: number; model: string }[];
}

/** Python in the example's folder (dataset.py importable), no bytecode left there. */
function py(code: string): string {
  const r = spawnSync(python, ['-B', '-c', code], { encoding: 'utf8', cwd: example });
  assert.is(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test('the data set: same seed, same bytes (two processes); another seed, other bytes', () => {
  const digest = (seed: number): string =>
    py(`import hashlib, dataset; x, y = dataset.windows(40, ${seed}); print(hashlib.sha256(x.tobytes() + y.tobytes()).hexdigest())`);
  const a = digest(5);
  assert.is(digest(5), a);
  assert.is.not(digest(6), a);
});

test('the data set: 9 x 128 windows in [0, 1] on 8 bits, six classes, gait where the docstring says', () => {
  // per class: the share of windows, the body acceleration's spread (gait vs still), and the dominant frequency of the
  // vertical body acceleration (walking 1.6..2.1 Hz, upstairs 1.3..1.8, downstairs 1.8..2.4; bins of 50/128 Hz)
  const stats = JSON.parse(py(`
import json, numpy as np, dataset
x, y = dataset.windows(600, 3)
out = {'shape': list(x.shape), 'min': float(x.min()), 'max': float(x.max()),
       'eightBit': bool(np.all(np.abs(x * 255 - np.round(x * 255)) < 1e-4)), 'classes': []}
for c in range(6):
    s = x[y == c].astype(np.float64)
    v = s[:, 0] - s[:, 0].mean(1, keepdims=True)
    f = np.abs(np.fft.rfft(v, axis=1))[:, 1:].argmax(1) + 1
    out['classes'].append({'n': int(len(s)), 'spread': float(s[:, 0:3].std(2).mean()), 'hz': float(np.median(f) * 50 / 128)})
print(json.dumps(out))`)) as { shape: number[]; min: number; max: number; eightBit: boolean; classes: { n: number; spread: number; hz: number }[] };
  assert.equal(stats.shape, [600, 9, 128]);
  assert.ok(stats.min >= 0 && stats.max <= 1, `${stats.min}..${stats.max}`);
  assert.ok(stats.eightBit);
  for (const c of stats.classes) assert.ok(c.n > 60 && c.n < 140, `class sizes ${stats.classes.map((x) => x.n)}`);
  const [walk, up, down, ...still] = stats.classes;
  for (const s of still) assert.ok(s.spread < walk.spread / 3 && s.spread < up.spread / 3, `spreads ${stats.classes.map((x) => x.spread)}`);
  const bin = 50 / 128;
  assert.ok(walk.hz >= 1.6 - bin && walk.hz <= 2.1 + bin, `walking ${walk.hz} Hz`);
  assert.ok(up.hz >= 1.3 - bin && up.hz <= 1.8 + bin, `upstairs ${up.hz} Hz`);
  assert.ok(down.hz >= 1.8 - bin && down.hz <= 2.4 + bin, `downstairs ${down.hz} Hz`);
});

test('train.py runs to its table', () => {
  assert.is(run.status, 0, `train.py exit ${run.status}: ${run.stderr}`);
  assert.match(run.stdout, /chip seed \|/);
});

test('12 steps with the chip in the loop: the chip\'s loss on the training windows goes down, the Conv is trained', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const c = r.results[0];
  assert.is(c.steps, 12);
  console.log(`  loss on the chip ${c.lossBefore.toFixed(3)} -> ${c.lossAfter.toFixed(3)}`);
  assert.ok(c.lossAfter < c.lossBefore, `loss ${c.lossBefore} -> ${c.lossAfter}`);
  const before = loadOnnxFile(r.int8Model);
  const after = loadOnnxFile(c.model);
  const conv = before.nodes.find((n) => n.op === 'Conv')!;
  const w0 = before.tensors.get(conv.inputs[1])!.data!;
  const w1 = after.tensors.get(conv.inputs[1])!.data!;
  assert.equal(w0.shape, [16, 9, 32]);
  let changed = 0;
  for (let i = 0; i < w0.data.length; i++) if (w0.data[i] !== w1.data[i]) changed++;
  assert.ok(changed > 50, `${changed} of the Conv's weights changed`);
});

test('the trained model: gen firmware --platform brainscales2 and gen run equal the reference interpreter (noise off)', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const model = r.results[0].model;
  const heldout = readNpz(join(out, 'heldout.npz')).get('image')!;
  assert.equal(heldout.shape, [64, 9, 128]);
  // as the example deploys it: num_sends from its calibration samples
  const samples = join(out, 'analog-samples.npz');
  firmwareEqualsReference(model, ['--chip-seed', '1', '--noise-std', '0', '--analog-samples', samples], { chipSeed: 1, noiseStd: 0, analogSamples: samples }, heldout, 3, 6, work);
  assert.equal((readFileSync(join(work, 'fw', 'firmware.json'), 'utf8').match(/from the calibration samples/g) ?? []).length, 3);
});

test('gen forward --layers on the Conv net: the Conv\'s rows are the reference\'s NCHW output, position by position', () => {
  const r = JSON.parse(readFileSync(result, 'utf8')) as Result;
  const model = r.results[0].model;
  const heldout = readNpz(join(out, 'heldout.npz')).get('image')!;
  const batch = join(work, 'batch3.npz');
  writeFileSync(batch, encodeNpz(new Map([['image', ndarray('uint8', [3, 9, 128], heldout.data.subarray(0, 3 * 9 * 128))]])));
  const taps = join(work, 'taps.npz');
  const f = gen('forward', model, '--platform', 'brainscales2', '--inputs', batch, '-o', taps, '--layers', '--chip-seed', '1', '--noise-std', '0');
  assert.is(f.code, 0, f.stderr);
  const got = readNpz(taps);
  assert.equal(got.get('analog0_input')!.shape, [3 * 17, 288]);
  const rows = got.get('analog0_output')!;
  assert.equal(rows.shape, [3 * 17, 16]);
  // the Conv's own output tensor (its RequantShift's) in the int8 model keeps its name in the lowered graph
  const g = loadOnnxFile(model);
  const conv = g.nodes.find((n) => n.op === 'Conv')!;
  const requant = g.nodes.find((n) => n.inputs[0] === conv.outputs[0])!;
  const c = compileModel({ model, platform: 'brainscales2', chipSeed: 1, noiseStd: 0 });
  const ref = referenceGraph(c.platform, c.graph);
  for (let i = 0; i < 3; i++) {
    const nchw = runReference(ref, [sampleAt(heldout, i)]).get(requant.outputs[0])!;
    assert.equal(nchw.shape, [1, 16, 17]);
    for (let p = 0; p < 17; p++) {
      for (let k = 0; k < 16; k++) assert.is(rows.data[(i * 17 + p) * 16 + k], nchw.data[k * 17 + p], `sample ${i} position ${p} filter ${k}`);
    }
  }
});

test('bad options: one line, exit 2', () => {
  for (const args of [['--seeds', 'x'], ['--train', '10'], ['--lr']]) {
    const r = spawnSync(python, [join(example, 'train.py'), ...args, '--out', join(work, 'bad')], { encoding: 'utf8' });
    assert.is(r.status, 2, args.join(' '));
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /^train\.py: /);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
