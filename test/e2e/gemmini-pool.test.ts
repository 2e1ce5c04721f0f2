/**
 * MaxPool on Gemmini's store unit (platforms/gemmini/maxpool-nhwc-kernel.ts): between two array convolutions the pool
 * runs as mvins of int8 rows into the accumulator and a max-pooled mvout, or on the host core where the store unit's
 * zero padding could win (negative inputs) or its fields are too small. Every case against the reference interpreter
 * (the expected outputs writeCase computes), on the emulator, the host C build and the C commands on the accelerator's
 * C model; and the same bytes with `--pool-on host`, in more cycles. uint8 pools through offset-pools.ts.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { poolTileRows } from '../../generator/platforms/gemmini/maxpool-nhwc-kernel.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runGemminiModelC, runRv64Model, rv64RoccFuncts } from '../helpers/gemmini-c.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('gemmini-pool');

interface Case {
  n?: number;
  c: number;
  h: number;
  w: number;
  /** Window, stride, pads (top/left, bottom/right). */
  k: number;
  s: number;
  pads?: number[];
  /** A Relu after the requantization: the pool's input is >= 0, so the store unit's zero padding never wins. */
  relu?: boolean;
  /** A uint8 requantization (the next conv takes it offset by 128: offset-pools.ts moves the offset before the pool). */
  unsigned?: boolean;
  /** The kernel the pool must get. */
  kernel: 'gemmini-maxpool' | 'maxpool-nhwc';
}

let seed = 401;

/** conv 3x3 (array) -> RequantShift [-> Relu] -> MaxPool -> conv 1x1 (array): the pool between two array layers is NHWC. */
interface Checked { out: string; cycles: number; hostCycles: number; inputs: NDArray[]; expected: NDArray[] }

async function check(name: string, c: Case): Promise<Checked> {
  const rng = new Rng(seed++);
  const n = c.n ?? 1;
  const b = new OnnxBuilder('pool').input('x', 'int8', [n, 8, c.h, c.w]);
  b.initializer('w1', 'int8', [c.c, 8, 3, 3], randomValues(rng, 'int8', [c.c, 8, 3, 3], 40).data);
  b.node('Conv', ['x', 'w1'], ['a'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  b.initializer('m', 'int64', [c.c, 1, 1], rng.ints(c.c, 1, 30)).initializer('d', 'int64', [c.c, 1, 1], rng.ints(c.c, -500, 500));
  b.node('RequantShift', ['a', 'm', 'd'], [c.relu ? 'q' : 'r'], { div: 2 ** 12, n_levels: 256, signed: c.unsigned ? 0 : 1 });
  if (c.relu) b.node('Relu', ['q'], ['r']);
  const pads = c.pads ?? [0, 0, 0, 0];
  b.node('MaxPool', ['r'], ['p'], { kernel_shape: [c.k, c.k], strides: [c.s, c.s], pads });
  b.initializer('w2', 'int8', [6, c.c, 1, 1], randomValues(rng, 'int8', [6, c.c, 1, 1], 40).data);
  b.node('Conv', ['p', 'w2'], ['y'], { kernel_shape: [1, 1] });
  b.output('y', 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, 'int8', [n, 8, c.h, c.w])] };
  const w = writeCase(join(dir, name), kc);
  const run = async (poolOn: 'array' | 'host'): Promise<{ out: string; cycles: number; kernels: string[] }> => {
    const out = join(dir, name, poolOn);
    const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out, poolOn });
    const r = await runFirmware(out, kc.inputs);
    const emu = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
    assert.is(emu.errors, 0, `${name} (${poolOn}) emulated: ${emu.details.join('; ')}`);
    assert.is(emu.total, w.expected[0].data.length);
    const kernels = g.layers.map((l) => (l.kernel === 'alias' ? 'alias' : l.kernel.name));
    return { out, cycles: r.cycles, kernels };
  };
  const array = await run('array');
  assert.ok(array.kernels.includes(c.kernel), `${name}: kernels ${array.kernels.join(', ')}`);
  const host = compareOutputs(['y'], runHostC(array.out, kc.inputs), w.expected);
  assert.is(host.errors, 0, `${name} host C: ${host.details.join('; ')}`);
  const model = compareOutputs(['y'], runGemminiModelC(array.out, kc.inputs), w.expected);
  assert.is(model.errors, 0, `${name} C commands on the model: ${model.details.join('; ')}`);
  const onHost = await run('host');
  assert.ok(onHost.kernels.includes('maxpool-nhwc') && !onHost.kernels.includes('gemmini-maxpool'), onHost.kernels.join(', '));
  return { out: array.out, cycles: array.cycles, hostCycles: onHost.cycles, inputs: kc.inputs, expected: w.expected };
}

test('tiles: as many output rows as half the accumulator holds, within the 8-bit fields', () => {
  assert.is(poolTileRows(12, 2, 2, 6), 6); // 12 input rows of 12 pixels: the whole image
  assert.is(poolTileRows(64, 3, 2, 32), 3); // 8 rows of 64 pixels: 3 output rows of stride 2 need 7
  assert.is(poolTileRows(170, 3, 1, 100), 1); // 3 rows of 170: one output row
  assert.is(poolTileRows(2, 2, 1, 300), 254); // 256 rows of 2 pixels would fit, the orows field holds 255
});

test('2x2 and 3x3 pools on the store unit, exact and faster than on the host core', async () => {
  for (const [name, c] of [
    ['2x2-s2', { c: 16, h: 12, w: 12, k: 2, s: 2, kernel: 'gemmini-maxpool' }],
    ['3x3-s2-odd', { c: 24, h: 11, w: 13, k: 3, s: 2, kernel: 'gemmini-maxpool' }],
    ['3x3-s1-channels-40-batch-2', { n: 2, c: 40, h: 7, w: 9, k: 3, s: 1, kernel: 'gemmini-maxpool' }],
    ['2x2-s1-row-tiles', { c: 16, h: 40, w: 64, k: 2, s: 1, kernel: 'gemmini-maxpool' }],
  ] as [string, Case][]) {
    const r = await check(name, c);
    assert.ok(r.cycles < r.hostCycles, `${name}: ${r.cycles} cycles on the array, ${r.hostCycles} on the host core`);
  }
});

test('padded windows: on the store unit when the input is >= 0 (Relu), on the host core when it may be negative', async () => {
  await check('3x3-s2-pad1-relu', { c: 16, h: 12, w: 12, k: 3, s: 2, pads: [1, 1, 1, 1], relu: true, kernel: 'gemmini-maxpool' });
  await check('3x3-s1-pad-top-left-2-relu', { c: 8, h: 10, w: 10, k: 3, s: 1, pads: [2, 2, 0, 0], relu: true, kernel: 'gemmini-maxpool' });
  await check('3x3-s2-pad1-signed', { c: 16, h: 12, w: 12, k: 3, s: 2, pads: [1, 1, 1, 1], kernel: 'maxpool-nhwc' });
  // a 4x4 window is past config_mvout's 2-bit size field
  await check('4x4-s4', { c: 16, h: 16, w: 16, k: 4, s: 4, kernel: 'maxpool-nhwc' });
});

test('uint8 pools: on the store unit with the 128 offset moved in front of them, where no window reaches the padding', async () => {
  await check('uint8-2x2-s2', { c: 16, h: 12, w: 12, k: 2, s: 2, unsigned: true, kernel: 'gemmini-maxpool' });
  await check('uint8-3x3-s2-odd', { c: 20, h: 9, w: 11, k: 3, s: 2, unsigned: true, kernel: 'gemmini-maxpool' });
  // the offset values are negative, so a padded window stays on the host core, on the uint8 values
  await check('uint8-3x3-s2-pad1', { c: 16, h: 12, w: 12, k: 3, s: 2, pads: [1, 1, 1, 1], unsigned: true, kernel: 'maxpool-nhwc' });
});

test('the board build issues the pooling as RoCC commands; the rv64 image on the C model is exact', async () => {
  const r = await check('board', { c: 16, h: 12, w: 12, k: 2, s: 2, kernel: 'gemmini-maxpool' });
  const functs = new Set(rv64RoccFuncts(r.out));
  assert.ok(functs.has(2) && functs.has(3), `mvin (2) and mvout (3) in the rv64 image (${[...functs].join(', ')})`);
  const rv64 = compareOutputs(['y'], runRv64Model(r.out, r.inputs), r.expected);
  assert.is(rv64.errors, 0, `rv64 image on the C model: ${rv64.details.join('; ')}`);
  assert.is(rv64.total, r.expected[0].data.length);
});

test('--pool-on takes array or host only', () => {
  assert.throws(() => generateFirmware({ model: 'none.onnx', platform: 'gemmini', out: join(dir, 'bad'), poolOn: 'npu' }), /--pool-on takes array, host/);
});

test.after(cleanup);
test.run();
