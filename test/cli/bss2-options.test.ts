/**
 * `gen firmware --platform brainscales2` options: bad values (a bad calibration file too) and options of another
 * platform are one line and exit 2;
 * good ones reach the firmware (the analog layers' chip seed and noise in the manifest's engine notes and the code).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { analogForward } from '../../generator/platforms/brainscales2/forward.js';
import { bss2Mlp } from '../helpers/bss2-model.js';
import { Rng } from '../helpers/random.js';
import { gen } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-cli-'));
const m = bss2Mlp(join(work, 'm'), [200, 40, 10], 1, 3);

for (const [args, line] of [
  [['--noise-std', 'abc'], 'error: --noise-std abc: a number of output LSB in [0, 64]'],
  [['--noise-std', '-1'], 'error: --noise-std -1: a number of output LSB in [0, 64]'],
  [['--chip-seed', '4294967296'], 'error: --chip-seed 4294967296: a seed in 0..4294967295'],
  [['--analog', 'maybe'], 'error: --analog takes on, off, not \'maybe\''],
  [['--fixed-pattern', 'yes'], 'error: --fixed-pattern takes on, off, not \'yes\''],
] as const) {
  test(`${args.join(' ')}: one line, exit 2`, () => {
    const r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', join(work, 'bad'), ...args);
    assert.is(r.code, 2);
    assert.is(r.stderr.trim(), line);
  });
}

test('a float model with --calibration: the mapping takes the calibration images, as --analog-samples of them', () => {
  const model = join('examples', 'fashion-mlp', 'model.onnx');
  const calibration = join('examples', 'fashion-mlp', 'calibration.npz');
  const out = join(work, 'float-cal');
  const r = gen('firmware', '--platform', 'brainscales2', model, '--calibration', calibration, '-o', out);
  assert.is(r.code, 0, r.stderr);
  const notes = (dir: string): string[] => [...readFileSync(join(dir, 'firmware.json'), 'utf8').matchAll(/"engineNote": "(analog[^"]*)"/g)].map((x) => x[1]);
  const fromCalibration = notes(out);
  assert.is(fromCalibration.length, 3);
  assert.ok(fromCalibration.every((n) => n.includes('(from the calibration samples)')), fromCalibration.join('; '));
  // the same integer model given the calibration images quantized by its input scale (gen run's rule) as --analog-samples
  const side = JSON.parse(readFileSync(join(out, 'model.int8.quant.json'), 'utf8')) as { inputs: { scale: number }[] };
  const images = [...readNpz(calibration).values()][0];
  const halfEven = (x: number): number => (Math.abs(x % 1) === 0.5 ? 2 * Math.round(x / 2) : Math.round(x));
  const q = ndarray('uint8', images.shape, Array.from(images.data, (v) => Math.max(0, Math.min(255, halfEven(v / Math.fround(side.inputs[0].scale))))));
  const samples = join(work, 'float-cal-samples.npz');
  writeFileSync(samples, encodeNpz(new Map([['x', q]])));
  const again = join(work, 'float-cal-again');
  const r2 = gen('firmware', '--platform', 'brainscales2', join(out, 'model.int8.onnx'), '--analog-samples', samples, '-o', again);
  assert.is(r2.code, 0, r2.stderr);
  assert.equal(notes(again), fromCalibration);
});

test('--analog-calibration: a missing file or a wrong shape is one line, exit 2; a good one is used', () => {
  let r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', join(work, 'bad'), '--analog-calibration', join(work, 'none.json'));
  assert.is(r.code, 2);
  assert.match(r.stderr.trim(), /^error: --analog-calibration \S*none\.json: ENOENT/);
  assert.is(r.stderr.trim().split('\n').length, 1);
  const bad = join(work, 'bad.json');
  writeFileSync(bad, JSON.stringify([{ a: [1, 'x'], b: [0, 0] }]));
  r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', join(work, 'bad'), '--analog-calibration', bad);
  assert.is(r.code, 2);
  assert.is(r.stderr.trim(), 'error: --analog-calibration: not a list of {"a": [numbers], "b": [numbers]} per analog layer');
  const good = join(work, 'good.json');
  writeFileSync(good, JSON.stringify([{ a: new Array(40).fill(2), b: new Array(40).fill(0) }]));
  const out = join(work, 'calibrated');
  r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', out, '--analog-calibration', good);
  assert.is(r.code, 0, r.stderr);
  const plain = join(work, 'plain');
  assert.is(gen('firmware', '--platform', 'brainscales2', m.model, '-o', plain).code, 0);
  // the first layer's rescale multipliers doubled: the C constants differ
  assert.not.equal(readFileSync(join(out, 'c', 'network_data.c'), 'utf8'), readFileSync(join(plain, 'c', 'network_data.c'), 'utf8'));
});

test('--analog-samples: a missing, broken or ill-fitting file is one line, exit 2; a good one sets num_sends', () => {
  const run = (file: string) => gen('firmware', '--platform', 'brainscales2', m.model, '-o', join(work, 'bad'), '--analog-samples', file);
  let r = run(join(work, 'none.npz'));
  assert.is(r.code, 2);
  assert.match(r.stderr.trim(), /^error: --analog-samples \S*none\.npz: .*(no such file|ENOENT|cannot read)/i);
  assert.is(r.stderr.trim().split('\n').length, 1);
  const broken = join(work, 'broken.npz');
  writeFileSync(broken, 'not a zip');
  r = run(broken);
  assert.is(r.code, 2);
  assert.match(r.stderr.trim(), /^error: --analog-samples \S*broken\.npz: not a valid \.npz archive/);
  assert.is(r.stderr.trim().split('\n').length, 1);
  const fractions = join(work, 'fractions.npz');
  writeFileSync(fractions, encodeNpz(new Map([['x', ndarray('float32', [2, 200], new Array(400).fill(0.5))]])));
  r = run(fractions);
  assert.is(r.code, 2);
  assert.is(r.stderr.trim(), `error: --analog-samples ${fractions}: array 0 holds a non-integer value (element 0: 0.5); the samples are the integer model's inputs`);
  const short = join(work, 'short.npz');
  writeFileSync(short, encodeNpz(new Map([['x', ndarray('uint8', [2, 100], new Array(200).fill(3))]])));
  r = run(short);
  assert.is(r.code, 2);
  assert.match(r.stderr.trim(), /^error: (\S+: )?--analog-samples \S*short\.npz: array 0 has shape \[2, 100\], 100 elements per sample; input 'x' declares \[1, 200\]$/);
  assert.is(r.stderr.trim().split('\n').length, 1);
  for (const bad of ['bad', 'none']) assert.not.ok(existsSync(join(work, bad, 'firmware.json')));
  const good = join(work, 'good.npz');
  writeFileSync(good, encodeNpz(new Map([['x', ndarray('uint8', [30, 200], new Rng(5).ints(6000, 0, 255))]])));
  const out = join(work, 'sampled');
  r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', out, '--analog-samples', good);
  assert.is(r.code, 0, r.stderr);
  assert.match(readFileSync(join(out, 'firmware.json'), 'utf8'), /num_sends \d+ \(from the calibration samples\)/);
});

test('--chip-seed on another platform: one line, exit 2', () => {
  const r = gen('firmware', '--platform', 'generic', m.model, '-o', join(work, 'bad'), '--chip-seed', '3');
  assert.is(r.code, 2);
  assert.is(r.stderr.trim(), 'error: --chip-seed applies to brainscales2, not to generic');
});

test('the options reach the firmware', () => {
  const out = join(work, 'ok');
  const r = gen('firmware', '--platform', 'brainscales2', m.model, '-o', out, '--chip-seed', '77', '--noise-std', '0.5', '--noise-seed', '9');
  assert.is(r.code, 0, r.stderr);
  const manifest = readFileSync(join(out, 'firmware.json'), 'utf8');
  assert.match(manifest, /analog: 2 x 1 blocks of 128 x 256 from array 0/);
  const as = readFileSync(join(out, 'as', 'network.ts'), 'utf8');
  assert.match(as, /bss2_chip\(77, 1, \d+, 0\.5\);/);
  const c = readFileSync(join(out, 'c', 'network.c'), 'utf8');
  assert.match(c, /fg_bss2_chip\(77u, 1, \d+u, 0\.5\);/);
});

test('gen forward: a batch through the chip (= analogForward, per sample = its firmware); other platforms refuse', () => {
  const rng = new Rng(8);
  const batch = ndarray('uint8', [70, 200], rng.ints(70 * 200, 0, 255));
  const inputs = join(work, 'batch.npz');
  writeFileSync(inputs, encodeNpz(new Map([['x', batch]])));
  const out = join(work, 'forward.npz');
  const r = gen('forward', m.model, '--platform', 'brainscales2', '--inputs', inputs, '-o', out, '--chip-seed', '6', '--noise-std', '0');
  assert.is(r.code, 0, r.stderr);
  const [y] = [...readNpz(out).values()];
  assert.equal(y.shape, [70, 10]);
  const samples = Array.from({ length: 70 }, (_, i) => [ndarray('uint8', [1, 200], batch.data.subarray(i * 200, (i + 1) * 200))]);
  const f = analogForward(m.model, samples, { chipSeed: 6, noiseStd: 0 });
  assert.equal(Array.from(y.data), f.outputs.flatMap((o) => Array.from(o[0].data)));
  const withLayers = join(work, 'layers.npz');
  assert.is(gen('forward', m.model, '--platform', 'brainscales2', '--inputs', inputs, '-o', withLayers, '--layers', '--noise-std', '0').code, 0);
  const arrays = readNpz(withLayers);
  assert.equal([...arrays.keys()].slice(1), ['analog0_input', 'analog0_analog', 'analog0_output', 'analog1_input', 'analog1_analog', 'analog1_output']);
  assert.equal(arrays.get('analog0_input')!.shape, [70, 200]);
  assert.equal(arrays.get('analog1_output')!.shape, [70, 10]);
  const bad = gen('forward', m.model, '--platform', 'generic', '--inputs', inputs, '-o', join(work, 'x.npz'));
  assert.is(bad.code, 2);
  assert.is(bad.stderr.trim(), 'error: generic has no forward pass of its own (gen forward takes brainscales2); gen run runs its firmware');
  const foreign = gen('forward', m.model, '--platform', 'brainscales2', '--inputs', inputs, '-o', join(work, 'x.npz'), '--pes', '3');
  assert.is(foreign.code, 2);
  assert.is(foreign.stderr.trim(), 'error: --pes applies to spinnaker2, not to brainscales2');
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
