import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { assertOneLineError, gen } from '../helpers/cli.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';

/**
 * A position read at run time (a decoder step's CacheWrite, PositionMask, iSoftmax) must lie inside what its ops
 * hold: the reference refuses any other value, the firmware would clamp it into another answer. So a position
 * outside is refused before anything runs, in one line with exit 2: a constant one when the model is loaded, a
 * sample one by `gen firmware`, a run-time one by `gen run` (firmware.json carries the input's limit). A fuzz
 * finding (seed 3301): an iSoftmax whose position operand was a whole tensor, its first value 115 of rows of 8.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-positions-'));

// x [2, 8] masked after `pos`: positions 0..7; the cache [1, 6, 4] written one row at `pos`: positions 0..5.
const ROWS = 6;
function model(file: string, pos: { shape: number[]; constant?: number } = { shape: [1] }): string {
  const b = new OnnxBuilder('positions')
    .input('x', 'int8', [2, 8])
    .input('cache', 'int8', [1, ROWS, 4])
    .input('value', 'int8', [1, 1, 4]);
  if (pos.constant === undefined) b.input('pos', 'int32', pos.shape);
  else b.initializer('pos', 'int32', [1], [pos.constant]);
  b.node('PositionMask', ['x', 'pos'], ['masked'], { fill: -128 })
    .node('CacheWrite', ['cache', 'value', 'pos'], ['written'], { axis: 1 })
    .output('masked', 'int8')
    .output('written', 'int8');
  writeFileSync(file, b.bytes());
  return file;
}

function arrays(pos: number): NDArray[] {
  const x = ndarray('int8', [2, 8]);
  x.data.forEach((_, i) => (x.data[i] = (i * 37) % 200 - 100));
  const cache = ndarray('int8', [1, ROWS, 4]);
  cache.data.forEach((_, i) => (cache.data[i] = (i * 11) % 90 - 45));
  const value = ndarray('int8', [1, 1, 4]);
  value.data.set([7, -8, 9, -10]);
  const p = ndarray('int32', [1]);
  p.data[0] = pos;
  return [x, cache, value, p];
}

function npz(file: string, list: NDArray[], names = ['x', 'cache', 'value', 'pos']): string {
  writeFileSync(file, encodeNpz(new Map(list.map((a, i) => [names[i], a]))));
  return file;
}

const onnx = model(join(work, 'model.onnx'));

test('a sample position outside the cache is refused by gen firmware, naming the op that bounds it', () => {
  // Position 6 fits the mask's rows of 8 but not the cache: 6 rows, one written, so 0..5.
  const r = gen('firmware', '--platform', 'generic', onnx, '-o', join(work, 'fw-bad'), '--inputs', npz(join(work, 'bad.npz'), arrays(6)));
  assertOneLineError(r, /^error: .*bad\.npz: sample array 3 \(input 'pos'\): position 6 lies outside \[0, 6\) of node '.*' \(CacheWrite\)$/);
});

test('a position operand of many values, or a constant one outside, is refused when the model is loaded', () => {
  const wide = model(join(work, 'wide.onnx'), { shape: [2] });
  const two = arrays(1);
  two[3] = ndarray('int32', [2]);
  assertOneLineError(gen('firmware', '--platform', 'generic', wide, '-o', join(work, 'fw-wide'), '--inputs', npz(join(work, 'wide.npz'), two)),
    /position operand 'pos' holds 2 values; a position is one integer$/);
  const constant = model(join(work, 'constant.onnx'), { shape: [1], constant: 8 });
  assertOneLineError(gen('firmware', '--platform', 'generic', constant, '-o', join(work, 'fw-constant')), /\(PositionMask\): position 8 lies outside \[0, 8\)$/);
});

for (const platform of ['generic', 'siracusa', 'brainscales2', 'gemmini', 'tangram']) {
  test(`${platform}: firmware.json carries the input's limit; gen run refuses a position outside, runs one inside exactly`, () => {
    const fw = join(work, `fw-${platform}`);
    const made = gen('firmware', '--platform', platform, onnx, '-o', fw, '--inputs', npz(join(work, 'good.npz'), arrays(5)));
    assert.is(made.code, 0, made.stderr);
    const manifest = JSON.parse(readFileSync(join(fw, 'firmware.json'), 'utf8')) as { tensors: { name: string; limit?: number }[] };
    assert.equal(manifest.tensors.filter((t) => t.limit !== undefined).map((t) => [t.name, t.limit]), [['pos', ROWS]]);

    assertOneLineError(gen('run', fw, '--inputs', npz(join(work, 'run-bad.npz'), arrays(ROWS))), /run-bad\.npz: array 3 \(input 'pos'\): position 6 lies outside \[0, 6\)$/);
    assertOneLineError(gen('run', fw, '--inputs', npz(join(work, 'run-negative.npz'), arrays(-1))), /position -1 lies outside \[0, 6\)$/);

    for (const pos of [0, ROWS - 1]) {
      const given = arrays(pos);
      const want = runReference(loadOnnxFile(onnx), given);
      const expect = npz(join(work, `want-${pos}.npz`), [want.get('masked')!, want.get('written')!], ['masked', 'written']);
      const r = gen('run', fw, '--inputs', npz(join(work, `run-${pos}.npz`), given), '--expect', expect);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /Errors: 0 out of 40/);
    }
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
