import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { REPO } from '../helpers/deeploy.js';

/**
 * `gen run` with float inputs for an integer firmware: quantized with the model's input scale from the sidecar the
 * firmware folder holds (or --quant), exactly as ONNX QuantizeLinear (float32 division, round half to even, clip);
 * the outputs equal a run on the same image quantized here by that formula. Without a sidecar, float arrays of
 * integers are taken as they are and fractional ones refused.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-float-'));
const example = join(REPO, 'examples', 'fashion-mlp');

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: work });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const fw = join(work, 'fw');
const made = gen('firmware', '--platform', 'generic', join(example, 'model.onnx'), '--calibration', join(example, 'calibration.npz'), '-o', fw);
if (made.code !== 0) throw new Error(made.stderr);
const sidecar = JSON.parse(readFileSync(join(fw, 'model.int8.quant.json'), 'utf8')) as { inputs: { scale: number; range: [number, number] }[] };
const images = [...readNpz(join(example, 'test.npz')).values()][0];
const image = ndarray('float32', [1, 1, 28, 28], images.data.slice(0, 784));
writeFileSync(join(work, 'float.npz'), encodeNpz(new Map([['image', image]])));

/** QuantizeLinear by its definition (ONNX operator spec): saturate(round_half_even(x / scale)), in float32. */
function quantizeHere(x: number, scale: number, [lo, hi]: [number, number]): number {
  const v = Math.fround(Math.fround(x) / Math.fround(scale));
  const f = Math.floor(v);
  const r = v - f > 0.5 || (v - f === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return Math.min(hi, Math.max(lo, r));
}

test('float image: quantized with the folder\'s sidecar, same outputs as the image quantized by the formula', () => {
  const q = sidecar.inputs[0];
  const ints = ndarray('uint8', [1, 1, 28, 28], Array.from(image.data, (v) => quantizeHere(v, q.scale, q.range)));
  writeFileSync(join(work, 'int.npz'), encodeNpz(new Map([['image', ints]])));
  const a = gen('run', fw, '--inputs', join(work, 'float.npz'), '--outputs', join(work, 'a.npz'));
  assert.is(a.code, 0, a.stderr);
  assert.match(a.stdout, /note: input 'image': float values quantized to uint8 with scale/);
  const b = gen('run', fw, '--inputs', join(work, 'int.npz'), '--outputs', join(work, 'b.npz'));
  assert.is(b.code, 0, b.stderr);
  assert.not.match(b.stdout, /quantized/);
  assert.equal([...readNpz(join(work, 'a.npz')).get('logits')!.data], [...readNpz(join(work, 'b.npz')).get('logits')!.data]);
});

test('without a sidecar: fractional floats refused naming the input and --quant; --quant names one', () => {
  const bare = join(work, 'bare');
  spawnSync('cp', ['-r', fw, bare]);
  rmSync(join(bare, 'model.int8.quant.json'));
  const r = gen('run', bare, '--inputs', join(work, 'float.npz'));
  assert.is(r.code, 2);
  assert.is(r.stderr.trim().split('\n').length, 1);
  assert.match(r.stderr, /input 'image' holds float values \(element \d+: [\d.e-]+\) and the firmware takes uint8: .*--quant/);
  copyFileSync(join(fw, 'model.int8.quant.json'), join(work, 'q.json'));
  const g = gen('run', bare, '--inputs', join(work, 'float.npz'), '--quant', join(work, 'q.json'), '--outputs', join(work, 'c.npz'));
  assert.is(g.code, 0, g.stderr);
  assert.equal([...readNpz(join(work, 'c.npz')).get('logits')!.data], [...readNpz(join(work, 'a.npz')).get('logits')!.data]);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
