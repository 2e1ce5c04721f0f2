/**
 * Gemmini's convolution kernel (loop_conv_ws, platforms/gemmini/conv-kernel.ts) against the reference interpreter:
 * 3x3 padded, strided, dilated, 1x1, non-square kernels, few input channels (pixels side by side in a scratchpad
 * row), channel counts off 16, layers that need tiles (output rows, output and input channels split; the sums of
 * input-channel tiles accumulating in the accumulator), batches, int8 and uint8 inputs (the 128 offset corrected in
 * the bias; padded uint8 pads before the offset), with and without bias, int32 and int8 results. The node must run
 * as 'gemmini-conv' (or on the host core where the array cannot take it), and the host-built C must agree too: on the
 * core, and issuing the commands to the C model of the accelerator (the board's command path, firmgen_gemmini.h);
 * the rv64 board image holds them as RoCC custom-3 instructions and, on the model, runs exact under qemu.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { convTile } from '../../generator/platforms/gemmini/conv-tiles.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runGemminiModelC, runRv64Model, rv64RoccFuncts } from '../helpers/gemmini-c.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('gemmini-conv');

interface Case {
  n?: number;
  c: number;
  h: number;
  w: number;
  o: number;
  kh: number;
  kw?: number;
  stride?: number;
  /** A horizontal stride other than the vertical one. */
  strideW?: number;
  /** A horizontal dilation other than the vertical one. */
  dilationW?: number;
  dilation?: number;
  pads?: number[];
  group?: number;
  bias?: boolean;
  xType?: IntType;
  /** Operand magnitude: small ones give results that fit int8. */
  limit?: number;
  yType?: IntType;
  hostC?: boolean;
  /** Also the board's command path: the host build on the C model of the accelerator (and its rv64 image). */
  commands?: boolean;
  /** The kernel the conv must get. */
  kernel: 'gemmini-conv' | 'gemmini-matmul' | 'conv2d';
}

let seed = 11;
interface Checked {
  out: string;
  inputs: NDArray[];
  expected: NDArray[];
  outputs: string[];
  nodes: string[];
}

async function check(name: string, c: Case): Promise<Checked> {
  const rng = new Rng(seed++);
  const xType = c.xType ?? 'int8';
  const limit = c.limit ?? 127;
  const kw = c.kw ?? c.kh;
  const group = c.group ?? 1;
  const xShape = [c.n ?? 1, c.c, c.h, c.w];
  const wShape = [c.o, c.c / group, c.kh, kw];
  const b = new OnnxBuilder('conv').input('x', xType, xShape);
  b.initializer('w', 'int8', wShape, randomValues(rng, 'int8', wShape, limit).data);
  const ins = ['x', 'w'];
  if (c.bias) {
    b.initializer('b', 'int32', [c.o], rng.ints(c.o, -50000, 50000));
    ins.push('b');
  }
  const s = c.stride ?? 1;
  const d = c.dilation ?? 1;
  b.node('Conv', ins, ['y'], {
    kernel_shape: [c.kh, kw], strides: [s, c.strideW ?? s], dilations: [d, c.dilationW ?? d], pads: c.pads ?? [0, 0, 0, 0], group,
  }).output('y', c.yType ?? 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, xType, xShape, xType === 'uint8' ? 255 : limit)] };
  const w = writeCase(join(dir, name), kc);
  const out = join(dir, name, 'out');
  // the array's kernel under test: depthwise layers go to the array whatever the cost rule says (gemmini-dw-cost.test.ts)
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out, depthwiseOn: 'array' });
  const kernels = g.layers.filter((l) => l.kernel !== 'alias').map((l) => (l.kernel === 'alias' ? '' : l.kernel.name));
  assert.ok(kernels.includes(c.kernel), `${name}: kernels ${kernels.join(', ')}`);
  const r = await runFirmware(out, kc.inputs);
  const emu = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
  assert.is(emu.errors, 0, `${name} emulated: ${emu.details.join('; ')}`);
  assert.is(emu.total, w.expected[0].data.length);
  if (c.hostC) {
    const host = compareOutputs(g.manifest.outputs, runHostC(out, kc.inputs), w.expected);
    assert.is(host.errors, 0, `${name} host C: ${host.details.join('; ')}`);
  }
  if (c.commands) {
    const model = compareOutputs(g.manifest.outputs, runGemminiModelC(out, kc.inputs), w.expected);
    assert.is(model.errors, 0, `${name} C commands on the model: ${model.details.join('; ')}`);
  }
  return { out, inputs: kc.inputs, expected: w.expected, outputs: g.manifest.outputs, nodes: g.lowered.nodes.map((n) => n.name) };
}

test('tiles fit half the scratchpad and half the accumulator', () => {
  const t = convTile({ C: 256, O: 256, OH: 56, OW: 56, KH: 3, KW: 3, stride: 1, dilation: 1 })!;
  const irows = t.orows + 2;
  const icols = t.ocols + 2;
  assert.ok(Math.ceil(t.kchs / 16) * irows * icols + Math.ceil(t.ochs / 16) * 9 * t.kchs <= 8192, JSON.stringify(t));
  assert.ok(Math.ceil(t.ochs / 16) * t.orows * t.ocols <= 512, JSON.stringify(t));
  assert.equal(convTile({ C: 3, O: 8, OH: 4, OW: 4, KH: 3, KW: 3, stride: 1, dilation: 1 }), { orows: 4, ocols: 4, ochs: 8, kchs: 3 });
});

test('int8 convolutions on the array: padding, stride, dilation, 1x1, non-square, few channels, bias', async () => {
  await check('3x3-pad', { c: 16, h: 8, w: 8, o: 16, kh: 3, pads: [1, 1, 1, 1], bias: true, hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('3x3-odd-channels', { c: 19, h: 7, w: 9, o: 21, kh: 3, pads: [1, 0, 2, 1], kernel: 'gemmini-conv' });
  await check('stride2', { c: 8, h: 11, w: 10, o: 32, kh: 3, stride: 2, pads: [1, 1, 1, 1], bias: true, kernel: 'gemmini-conv' });
  await check('dilation2', { c: 17, h: 9, w: 9, o: 5, kh: 3, dilation: 2, pads: [2, 2, 2, 2], commands: true, kernel: 'gemmini-conv' });
  // 1x1 of stride 1 without padding: the matrix product it is (loop_ws); strided: loop_conv_ws
  await check('1x1', { c: 40, h: 5, w: 6, o: 33, kh: 1, bias: true, kernel: 'gemmini-matmul' });
  await check('1x1/2', { c: 40, h: 5, w: 6, o: 33, kh: 1, stride: 2, bias: true, kernel: 'gemmini-conv' });
  await check('1x5', { c: 4, h: 6, w: 12, o: 7, kh: 1, kw: 5, pads: [0, 2, 0, 2], kernel: 'gemmini-conv' });
  await check('rgb', { c: 3, h: 12, w: 12, o: 16, kh: 3, pads: [1, 1, 1, 1], bias: true, hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('batch2', { n: 2, c: 5, h: 6, w: 5, o: 6, kh: 3, pads: [1, 1, 1, 1], commands: true, kernel: 'gemmini-conv' });
  await check('int8-result', { c: 4, h: 5, w: 5, o: 4, kh: 2, limit: 2, yType: 'int8', commands: true, kernel: 'gemmini-conv' });
  // sums that fit int16 (inference narrows the graph output): int32 out of the array, narrowed after the Transpose
  const i16 = await check('int16-result', { c: 4, h: 6, w: 6, o: 5, kh: 3, pads: [1, 1, 1, 1], limit: 20, hostC: true, commands: true, kernel: 'gemmini-conv' });
  assert.ok(i16.nodes.some((n) => n.endsWith('__to_int16')), i16.nodes.join(', '));
});

test('layers in tiles: output rows and channels, input channels accumulating', async () => {
  await check('rows-tiles', { c: 16, h: 40, w: 40, o: 16, kh: 3, pads: [1, 1, 1, 1], bias: true, kernel: 'gemmini-conv' });
  await check('channel-tiles', { c: 300, h: 6, w: 6, o: 300, kh: 3, pads: [1, 1, 1, 1], bias: true, limit: 20, commands: true, kernel: 'gemmini-conv' });
  await check('wide', { c: 8, h: 3, w: 600, o: 8, kh: 3, commands: true, kernel: 'gemmini-conv' });
});

test('uint8 inputs: the 128 offset corrected in the bias, padding before the offset', async () => {
  await check('u8-3x3-pad', { c: 12, h: 7, w: 7, o: 10, kh: 3, pads: [1, 1, 1, 1], bias: true, xType: 'uint8', hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('u8-1x1', { c: 20, h: 4, w: 4, o: 18, kh: 1, xType: 'uint8', kernel: 'gemmini-matmul' });
  await check('u8-stride2', { c: 3, h: 9, w: 9, o: 8, kh: 3, stride: 2, pads: [0, 1, 1, 0], xType: 'uint8', kernel: 'gemmini-conv' });
});

test('the board build: rv64 with the commands as RoCC custom-3 instructions; the same image on the C model under qemu', async () => {
  const r = await check('board', { c: 20, h: 9, w: 9, o: 24, kh: 3, stride: 2, pads: [1, 1, 1, 1], bias: true, xType: 'uint8', kernel: 'gemmini-conv' });
  const functs = new Set(rv64RoccFuncts(r.out));
  // config (0), mvin3 (14: the bias rows), mvout (3), loop_conv_ws's six configurations (16..21) and the loop (15)
  for (const f of [0, 3, 14, 15, 16, 17, 18, 19, 20, 21]) assert.ok(functs.has(f), `funct ${f} in the rv64 image (${[...functs].join(', ')})`);
  const rv64 = compareOutputs(r.outputs, runRv64Model(r.out, r.inputs), r.expected);
  assert.is(rv64.errors, 0, `rv64 image on the C model: ${rv64.details.join('; ')}`);
  assert.is(rv64.total, r.expected[0].data.length);
});

/** conv -> RequantShift (per channel) -> MaxPool -> conv -> RequantShift (per tensor) -> MaxPool, then `tail`. */
async function chain(name: string, tail: 'conv' | 'flatten' | 'gemm', pool: number[], unsignedMid = false): Promise<{ ops: string[] }> {
  const rng = new Rng(seed++);
  const b = new OnnxBuilder('chain').input('x', 'int8', [1, 8, 12, 12]);
  const conv = (i: string, o: string, c: number, k: number, tag: string): void => {
    b.initializer(`w${tag}`, 'int8', [k, c, 3, 3], randomValues(rng, 'int8', [k, c, 3, 3], 40).data);
    b.node('Conv', [i, `w${tag}`], [o], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  };
  conv('x', 'a1', 8, 16, '1');
  b.initializer('m1', 'int64', [16, 1, 1], rng.ints(16, 1, 30)).initializer('d1', 'int64', [16, 1, 1], rng.ints(16, -500, 500));
  b.node('RequantShift', ['a1', 'm1', 'd1'], ['r1'], { div: 2 ** 12, n_levels: 256, signed: unsignedMid ? 0 : 1 });
  b.node('MaxPool', ['r1'], ['p1'], { kernel_shape: [pool[0], pool[0]], strides: [pool[1], pool[1]], pads: [pool[2], pool[2], pool[2], pool[2]] });
  conv('p1', 'a2', 16, 20, '2');
  b.initializer('m2', 'int64', [1], [7]).initializer('d2', 'int64', [1], [100]);
  b.node('RequantShift', ['a2', 'm2', 'd2'], ['r2'], { div: 2 ** 11, n_levels: 256, signed: 1 });
  b.node('MaxPool', ['r2'], ['p2'], { kernel_shape: [2, 2], strides: [2, 2] });
  if (tail === 'conv') conv('p2', 'y', 20, 4, '3');
  else if (tail === 'flatten') b.node('Flatten', ['p2'], ['y'], { axis: 1 });
  else {
    // a classifier: Flatten (20 x 3 x 3 in NCHW order) and a Gemm by constant weights [10, 180] (transB)
    b.node('Flatten', ['p2'], ['f'], { axis: 1 });
    b.initializer('wg', 'int8', [10, 180], randomValues(rng, 'int8', [10, 180], 40).data);
    b.initializer('bg', 'int32', [10], rng.ints(10, -500, 500));
    b.node('Gemm', ['f', 'wg', 'bg'], ['y'], { transB: 1 });
  }
  b.output('y', tail === 'flatten' ? 'int8' : 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, 'int8', [1, 8, 12, 12])] };
  const w = writeCase(join(dir, name), kc);
  const out = join(dir, name, 'out');
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out });
  const r = await runFirmware(out, kc.inputs);
  const emu = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
  assert.is(emu.errors, 0, `${name} emulated: ${emu.details.join('; ')}`);
  assert.is(compareOutputs(g.manifest.outputs, runHostC(out, kc.inputs), w.expected).errors, 0, `${name} host C`);
  assert.is(compareOutputs(g.manifest.outputs, runGemminiModelC(out, kc.inputs), w.expected).errors, 0, `${name} C commands on the model`);
  return { ops: g.lowered.nodes.map((n) => n.op) };
}

test('between array convs the activations stay NHWC: requantization, MaxPool and the uint8 Pad on NHWC, no Transposes', async () => {
  const { ops } = await chain('nhwc-chain', 'conv', [2, 2, 0]);
  assert.equal(ops.filter((o) => o === 'Transpose').length, 2, ops.join(', ')); // the graph's input and output only
  assert.is(ops.filter((o) => o === 'GemminiMaxPoolNhwc').length, 2, ops.join(', '));
  const padded = await chain('nhwc-chain-3x3-pool', 'conv', [3, 2, 1]);
  assert.is(padded.ops.filter((o) => o === 'GemminiMaxPoolNhwc').length, 2, padded.ops.join(', '));
  // A uint8 activation into a padded conv: offset, then Pad (-128) on NHWC, inside the chain.
  const u8 = await chain('nhwc-chain-uint8', 'conv', [2, 2, 0], true);
  assert.is(u8.ops.filter((o) => o === 'Transpose').length, 2, u8.ops.join(', '));
  assert.is(u8.ops.filter((o) => o === 'Pad').length, 1, u8.ops.join(', '));
  // Ending in a Flatten (NCHW order): the last chain keeps its Transpose back and the NCHW MaxPool.
  const flat = await chain('nhwc-chain-flatten', 'flatten', [2, 2, 0]);
  assert.is(flat.ops.filter((o) => o === 'MaxPool').length, 1, flat.ops.join(', '));
  assert.is(flat.ops.filter((o) => o === 'Transpose').length, 2, flat.ops.join(', '));
  // Flatten into a product by constant weights: the Flatten reads NHWC, the weights' columns follow (keep-nhwc.ts)
  const gemm = await chain('nhwc-chain-gemm', 'gemm', [2, 2, 0]);
  assert.is(gemm.ops.filter((o) => o === 'Transpose').length, 1, gemm.ops.join(', ')); // the graph's input only
  assert.is(gemm.ops.filter((o) => o === 'GemminiMaxPoolNhwc').length, 2, gemm.ops.join(', '));
});

test('depthwise convolutions on the array: one loop per channel, padded, strided, uint8, tiles', async () => {
  await check('depthwise', { c: 8, h: 6, w: 6, o: 8, kh: 3, group: 8, pads: [1, 1, 1, 1], bias: true, hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('depthwise-stride2', { c: 20, h: 11, w: 9, o: 20, kh: 3, stride: 2, group: 20, pads: [1, 1, 1, 1], commands: true, kernel: 'gemmini-conv' });
  await check('depthwise-u8-5x5', { c: 6, h: 9, w: 9, o: 6, kh: 5, group: 6, pads: [2, 2, 2, 2], bias: true, xType: 'uint8', hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('depthwise-rows-tiles', { c: 3, h: 40, w: 40, o: 3, kh: 3, group: 3, pads: [1, 1, 1, 1], commands: true, kernel: 'gemmini-conv' });
});

/** A 1-D conv [1, c, w] by [o, c/group, k]: run on the array as a 2-D conv of height 1. */
async function conv1d(name: string, c: number, w: number, o: number, k: number, stride: number, pads: number[], group: number, xType: IntType): Promise<void> {
  const rng = new Rng(seed++);
  const b = new OnnxBuilder('conv1d').input('x', xType, [1, c, w]);
  b.initializer('w', 'int8', [o, c / group, k], randomValues(rng, 'int8', [o, c / group, k]).data);
  b.initializer('b', 'int32', [o], rng.ints(o, -5000, 5000));
  b.node('Conv', ['x', 'w', 'b'], ['y'], { kernel_shape: [k], strides: [stride], pads, group }).output('y', 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, xType, [1, c, w])] };
  const wc = writeCase(join(dir, name), kc);
  const out = join(dir, name, 'out');
  const g = generateFirmware({ model: wc.model, sampleInputs: wc.sample, platform: 'gemmini', out, depthwiseOn: 'array' });
  assert.ok(g.layers.some((l) => l.kernel !== 'alias' && l.kernel.name === 'gemmini-conv'), `${name}: not on the array`);
  const r = await runFirmware(out, kc.inputs);
  assert.is(compareOutputs(g.manifest.outputs, r.outputs, wc.expected).errors, 0, `${name} emulated`);
  assert.is(compareOutputs(g.manifest.outputs, runHostC(out, kc.inputs), wc.expected).errors, 0, `${name} host C`);
  assert.is(compareOutputs(g.manifest.outputs, runGemminiModelC(out, kc.inputs), wc.expected).errors, 0, `${name} C commands on the model`);
}

test('unequal strides: the loop strides along the rows, the firmware steps the output rows (a row per loop)', async () => {
  await check('strides-2x4', { c: 2, h: 20, w: 16, o: 4, kh: 4, stride: 2, strideW: 4, pads: [1, 1, 1, 1], bias: true, hostC: true, commands: true, kernel: 'gemmini-conv' });
  await check('strides-1x3-u8', { c: 9, h: 7, w: 13, o: 18, kh: 3, stride: 1, strideW: 3, pads: [1, 0, 1, 2], xType: 'uint8', commands: true, kernel: 'gemmini-conv' });
  await check('strides-3x1-depthwise', { c: 5, h: 13, w: 7, o: 5, kh: 3, stride: 3, strideW: 1, group: 5, pads: [1, 1, 1, 1], hostC: true, commands: true, kernel: 'gemmini-conv' });
});

test('1-D convolutions on the array as 2-D ones of height 1: padded, strided, depthwise, uint8', async () => {
  await conv1d('1d', 12, 30, 20, 5, 1, [2, 2], 1, 'int8');
  await conv1d('1d-stride2-u8', 5, 41, 7, 3, 2, [1, 0], 1, 'uint8');
  await conv1d('1d-depthwise', 9, 25, 9, 3, 1, [1, 1], 9, 'int8');
});

test('convolutions the array does not take stay on the host core, exact', async () => {
  await check('grouped', { c: 8, h: 6, w: 6, o: 8, kh: 3, group: 2, pads: [1, 1, 1, 1], kernel: 'conv2d' });
  await check('unequal-dilations', { c: 4, h: 8, w: 8, o: 4, kh: 3, dilation: 1, dilationW: 2, kernel: 'conv2d' });
});

test.after(cleanup);

test.run();
