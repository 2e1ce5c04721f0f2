import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from '../helpers/cli.js';
import { DEEPLOY } from '../helpers/deeploy.js';

/*
 * `gen run` on a set of samples along the first axis (generator/cli/run-batch.ts): n inferences, outputs stacked the
 * same way. Golden data: the reference interpreter on each sample, itself checked against the vectors (test/reference).
 * The samples: the vector's own input, the same values reversed and rotated (the same value set, so the same types).
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-run-samples-'));
const src = join(DEEPLOY, 'Models', 'miniMobileNet');
const fw = join(work, 'fw');
const graph = loadOnnxFile(join(src, 'network.onnx'));
const [x] = [...readNpz(join(src, 'inputs.npz')).values()];
const variants = [x.data, x.data.slice().reverse(), Float64Array.from(x.data, (_, i) => x.data[(i + 7) % x.data.length])];
const samples = variants.map((d) => ndarray(x.dtype, x.shape, d));

/** Arrays of one shape stacked along the first axis. */
function stacked(arrays: NDArray[]): NDArray {
  const data = new Float64Array(arrays.length * arrays[0].data.length);
  arrays.forEach((a, k) => data.set(a.data, k * a.data.length));
  return ndarray(arrays[0].dtype, [arrays.length * arrays[0].shape[0], ...arrays[0].shape.slice(1)], data);
}

const reference = samples.map((s) => graph.outputs.map((o) => runReference(graph, [s]).get(o)!));
const made = gen('firmware', '--platform', 'generic', join(src, 'network.onnx'), '-o', fw);
if (made.code !== 0) throw new Error(made.stderr);
writeFileSync(join(work, 'three.npz'), encodeNpz(new Map([['input', stacked(samples)]])));
writeFileSync(join(work, 'expected.npz'), encodeNpz(new Map(graph.outputs.map((o, j) => [`out${j}`, stacked(reference.map((r) => r[j]))]))));

test('the samples differ, and so do their reference outputs', () => {
  assert.ok(reference[1][0].data.some((v, i) => v !== reference[0][0].data[i]));
  assert.ok(reference[2][0].data.some((v, i) => v !== reference[0][0].data[i]));
});

test('three samples along the first axis: three inferences, each equal to the reference', () => {
  const out = join(work, 'out.npz');
  const r = gen('run', fw, '--inputs', join(work, 'three.npz'), '--expect', join(work, 'expected.npz'), '--outputs', out);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const total = reference[0].reduce((n, a) => n + a.data.length, 0) * 3;
  assert.match(r.stdout, new RegExp(`Errors: 0 out of ${total}\\b`));
  assert.match(r.stdout, /Samples: 3 \(the profile above is the first one's\); cycles per sample min \d+, median \d+, max \d+/);
  const [y] = [...readNpz(out).values()];
  assert.equal(y.shape, [3 * reference[0][0].shape[0], ...reference[0][0].shape.slice(1)]);
  assert.equal(Array.from(y.data.subarray(2 * reference[0][0].data.length)), Array.from(reference[2][0].data));
});

test('expected outputs for another number of samples: one line, exit 2, before anything runs', () => {
  writeFileSync(join(work, 'two.npz'), encodeNpz(new Map(graph.outputs.map((o, j) => [`out${j}`, stacked(reference.slice(0, 2).map((r) => r[j]))]))));
  const r = gen('run', fw, '--inputs', join(work, 'three.npz'), '--expect', join(work, 'two.npz'));
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /per sample and the inputs hold 3 samples/);
  assert.not.match(r.stdout, /Cycles:/);
});

test('an input that is not whole samples stays refused by the run', () => {
  const odd = ndarray(x.dtype, [1, x.data.length + 1], new Float64Array(x.data.length + 1));
  writeFileSync(join(work, 'odd.npz'), encodeNpz(new Map([['input', odd]])));
  const r = gen('run', fw, '--inputs', join(work, 'odd.npz'));
  assert.is(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stderr, /input of shape \[1, \d+\] for a tensor of shape/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
