/**
 * The Tangram engine kernel against the reference interpreter (which itself is checked against onnxruntime and the
 * peer's vectors): convolutions (strides, pads, several input channels, uint8 inputs) and matrix products (edges,
 * transposes, int8/int16/int32 biases, fused requantizations) and max pooling run as per-engine programs on the emulator's engine model, exact, and the C
 * built for the host agrees. The kernel must have been chosen; products it cannot take (an int16 operand, a grouped
 * convolution) fall back to the control core, still exact. The engine model's cycles are the layer's.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runHostModelC } from '../helpers/host-model.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('tangram-kernel');
let seed = 1;

async function check(name: string, kc: KernelCase, op: string, kernel: string): Promise<number> {
  const w = writeCase(join(dir, name), kc);
  const out = join(dir, name, 'out');
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'tangram', out });
  const layer = g.layers.find((l) => l.kernel !== 'alias' && l.node.op === op);
  assert.is(layer && layer.kernel !== 'alias' ? layer.kernel.name : '', kernel, `${name}: kernel`);
  const r = await runFirmware(out, kc.inputs);
  const emu = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
  assert.is(emu.errors, 0, `${name} emulated: ${emu.details.join('; ')}`);
  assert.is(emu.total, w.expected.reduce((n, e) => n + e.data.length, 0));
  const host = compareOutputs(g.manifest.outputs, runHostC(out, kc.inputs), w.expected);
  assert.is(host.errors, 0, `${name} host C: ${host.details.join('; ')}`);
  // the C's engine path: the layer's program through the engine HAL on the functional C model of the engines
  const model = compareOutputs(g.manifest.outputs, runHostModelC(out, kc.inputs), w.expected);
  assert.is(model.errors, 0, `${name} C engine programs on the model: ${model.details.join('; ')}`);
  return r.cycles;
}

function convCase(o: { n: number; c: number; k: number; hw: number; rs: number; stride: number; pad: number; xType?: IntType; group?: number; bias?: IntType; limit?: number }): KernelCase {
  const rng = new Rng(seed++);
  const xType = o.xType ?? 'int8';
  const group = o.group ?? 1;
  const xShape = [o.n, o.c, o.hw, o.hw];
  const wShape = [o.k, o.c / group, o.rs, o.rs];
  const b = new OnnxBuilder('conv').input('x', xType, xShape);
  b.initializer('w', 'int8', wShape, randomValues(rng, 'int8', wShape, o.limit).data);
  const ins = ['x', 'w'];
  if (o.bias) {
    b.initializer('b', o.bias, [o.k], o.bias === 'int32' ? rng.ints(o.k, -100000, 100000) : randomValues(rng, o.bias, [o.k], o.limit).data);
    ins.push('b');
  }
  b.node('Conv', ins, ['y'], { strides: [o.stride, o.stride], pads: [o.pad, o.pad, o.pad, o.pad], kernel_shape: [o.rs, o.rs], group }).output('y', 'int32');
  return { builder: b, inputs: [randomValues(rng, xType, xShape, o.limit)] };
}

function gemmCase(o: { m: number; k: number; n: number; transA?: boolean; transB?: boolean; bias?: IntType; aType?: IntType }): KernelCase {
  const rng = new Rng(seed++);
  const aType = o.aType ?? 'int8';
  const aShape = o.transA ? [o.k, o.m] : [o.m, o.k];
  const bShape = o.transB ? [o.n, o.k] : [o.k, o.n];
  const b = new OnnxBuilder('gemm').input('a', aType, aShape);
  b.initializer('b', 'int8', bShape, randomValues(rng, 'int8', bShape).data);
  const ins = ['a', 'b'];
  if (o.bias) {
    b.initializer('c', o.bias, [o.n], o.bias === 'int32' ? rng.ints(o.n, -100000, 100000) : randomValues(rng, o.bias, [o.n]).data);
    ins.push('c');
  }
  b.node('Gemm', ins, ['y'], { transA: o.transA ? 1 : 0, transB: o.transB ? 1 : 0 }).output('y', 'int32');
  return { builder: b, inputs: [randomValues(rng, aType, aShape, aType === 'int16' ? 1000 : undefined)] };
}

test('convolutions on the engines: strides, pads, batches, uint8 inputs, biases of every width', async () => {
  await check('conv-3x3', convCase({ n: 1, c: 3, k: 8, hw: 9, rs: 3, stride: 1, pad: 1, bias: 'int32' }), 'Conv', 'tangram-engines');
  await check('conv-stride2-batch', convCase({ n: 3, c: 5, k: 6, hw: 11, rs: 3, stride: 2, pad: 0 }), 'Conv', 'tangram-engines');
  await check('conv-uint8-int16-bias', convCase({ n: 1, c: 16, k: 20, hw: 6, rs: 1, stride: 1, pad: 0, xType: 'uint8', bias: 'int16' }), 'Conv', 'tangram-engines');
  // Small values: the generator narrows the result to int16 or int8 from its range; partial sums wrap at that width.
  await check('conv-narrow-result', convCase({ n: 1, c: 8, k: 6, hw: 6, rs: 3, stride: 1, pad: 1, bias: 'int8', limit: 2 }), 'Conv', 'tangram-engines');
  await check('conv-5x5-int8-bias', convCase({ n: 2, c: 4, k: 3, hw: 7, rs: 5, stride: 1, pad: 2, bias: 'int8' }), 'Conv', 'tangram-engines');
});

test('matrix products on the engines: edges, transposes, biases', async () => {
  await check('gemm-37x53x29', gemmCase({ m: 37, k: 53, n: 29 }), 'Gemm', 'tangram-engines');
  await check('gemm-transA-bias', gemmCase({ m: 9, k: 70, n: 17, transA: true, bias: 'int32' }), 'Gemm', 'tangram-engines');
  await check('gemm-transB-int16-bias', gemmCase({ m: 5, k: 123, n: 40, transB: true, bias: 'int16' }), 'Gemm', 'tangram-engines');
  await check('gemm-uint8-a', gemmCase({ m: 1, k: 300, n: 10, aType: 'uint8', bias: 'int8' }), 'Gemm', 'tangram-engines');
});

function poolCase(o: { n: number; c: number; hw: number; k: number; stride: number; pad: number; xType: IntType; ceil?: boolean }): KernelCase {
  const rng = new Rng(seed++);
  const shape = [o.n, o.c, o.hw, o.hw];
  const b = new OnnxBuilder('pool').input('x', o.xType, shape);
  b.node('MaxPool', ['x'], ['y'], { kernel_shape: [o.k, o.k], strides: [o.stride, o.stride], pads: [o.pad, o.pad, o.pad, o.pad], ceil_mode: o.ceil ? 1 : 0 }).output('y', o.xType);
  return { builder: b, inputs: [randomValues(rng, o.xType, shape)] };
}

/** Conv or Gemm followed by the dialect's RequantShift (fused by the platform's passes): per channel or scalar. */
function requantCase(o: { gemm: boolean; perChannel: boolean; signed: boolean; shift: number }): KernelCase {
  const rng = new Rng(seed++);
  const [C, K] = [6, 10];
  const xShape = o.gemm ? [7, C * 9] : [2, C, 7, 7];
  const wShape = o.gemm ? [C * 9, K] : [K, C, 3, 3];
  const b = new OnnxBuilder('rq').input('x', 'int8', xShape);
  b.initializer('w', 'int8', wShape, randomValues(rng, 'int8', wShape).data);
  b.initializer('bias', 'int32', [K], rng.ints(K, -5000, 5000));
  if (o.gemm) b.node('Gemm', ['x', 'w', 'bias'], ['acc']);
  else b.node('Conv', ['x', 'w', 'bias'], ['acc'], { pads: [1, 1, 1, 1], kernel_shape: [3, 3] });
  const pShape = o.perChannel ? (o.gemm ? [K] : [1, K, 1, 1]) : [1];
  const n = pShape.reduce((a, d) => a * d, 1);
  b.initializer('mul', 'int32', pShape, rng.ints(n, -300, 300));
  b.initializer('add', 'int32', pShape, rng.ints(n, -40000, 40000));
  b.node('RequantShift', ['acc', 'mul', 'add'], ['y'], { div: float(2 ** o.shift), n_levels: float(256), signed: float(o.signed ? 1 : 0) });
  b.output('y', o.signed ? 'int8' : 'uint8');
  return { builder: b, inputs: [randomValues(rng, 'int8', xShape)] };
}

test('requantized products on the engines: the whole int32 sums requantized in 64 bits, scalar or per channel', async () => {
  await check('rq-conv-per-channel', requantCase({ gemm: false, perChannel: true, signed: true, shift: 12 }), 'Conv', 'tangram-engines');
  await check('rq-conv-scalar-unsigned', requantCase({ gemm: false, perChannel: false, signed: false, shift: 9 }), 'Conv', 'tangram-engines');
  await check('rq-gemm-per-column', requantCase({ gemm: true, perChannel: true, signed: true, shift: 14 }), 'Gemm', 'tangram-engines');
});

test('max pooling on the engines: padded and strided windows, int8 and uint8', async () => {
  await check('pool-3x3-s2-p1', poolCase({ n: 2, c: 5, hw: 9, k: 3, stride: 2, pad: 1, xType: 'int8' }), 'MaxPool', 'tangram-pool');
  await check('pool-2x2-uint8', poolCase({ n: 1, c: 12, hw: 8, k: 2, stride: 2, pad: 0, xType: 'uint8' }), 'MaxPool', 'tangram-pool');
});

test('what the engines do not take runs on the control core, exact', async () => {
  await check('pool-ceil-mode', poolCase({ n: 1, c: 3, hw: 8, k: 3, stride: 2, pad: 0, xType: 'int8', ceil: true }), 'MaxPool', 'maxpool');
  await check('gemm-int16-a', gemmCase({ m: 4, k: 20, n: 6, aType: 'int16' }), 'Gemm', 'gemm');
  await check('conv-grouped', convCase({ n: 1, c: 4, k: 4, hw: 5, rs: 3, stride: 1, pad: 1, group: 2 }), 'Conv', 'conv2d');
});

test.after(cleanup);
test.run();
