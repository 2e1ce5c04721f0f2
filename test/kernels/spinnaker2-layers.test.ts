/**
 * SpiNNaker2's row and elementwise layers on random shapes and parameters (the deeploy folders cover few of them):
 * iSoftmax with 32- and 64-bit intermediates, ITAMax, ITAPartialMax, broadcasting elementwise chains and
 * requantized convolutions and max pools of random geometry, data movement (Slices stepping backwards too),
 * reductions, iRMSNorm and iLayerNorm, each
 * emulated and host-built C equal to the reference interpreter. Two PEs force one worker with many tiles.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { workDir } from '../helpers/kernel-check.js';
import { Rng } from '../helpers/random.js';
import { checkS2Case } from '../helpers/s2-check.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('s2-layers');

function rowShape(rng: Rng): number[] {
  const rank = rng.int(1, 4);
  return Array.from({ length: rank }, (_, i) => (i === rank - 1 ? rng.int(1, 40) : rng.int(1, 5)));
}

for (let seed = 1; seed <= 3; seed++) {
  for (const wide of [false, true]) {
    test(`iSoftmax${wide ? ' (64-bit intermediates)' : ''} (seed ${seed})`, async () => {
      const rng = new Rng(seed * 7919 + (wide ? 1 : 0));
      const shape = rowShape(rng);
      const dtype: IntType = wide ? 'int16' : rng.pick<IntType>(['int8', 'uint8']);
      const log2 = wide ? rng.int(4, 16) : rng.int(32, 300);
      const B = rng.int(log2, 2 * log2);
      const A = rng.int(1, 3);
      const b = new OnnxBuilder('isoftmax').input('x', dtype, shape);
      b.node('iSoftmax', ['x'], ['y'], { coeffA: A, coeffB: B, coeffC: rng.int(0, A * B * B), log2, n_levels: rng.pick([16, 128, 256]) }).output('y', 'float32');
      await checkS2Case(join(dir, `isoftmax${seed}${wide}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'iSoftmax', layer: 's2-rows', pes: seed === 1 ? 2 : undefined });
    });
  }
  test(`ITAMax and ITAPartialMax (seed ${seed})`, async () => {
    const rng = new Rng(seed * 104729);
    const shape = rowShape(rng);
    const L = shape[shape.length - 1];
    const b = new OnnxBuilder('ita').input('x', 'int8', shape);
    b.node('ITAMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]) }).output('y', 'float32');
    await checkS2Case(join(dir, `itamax${seed}`), { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'ITAMax', layer: 's2-rows' });
    const p = new OnnxBuilder('itap').input('x', 'int8', shape);
    p.node('ITAPartialMax', ['x'], ['y'], { n_levels: rng.pick([16, 256]), group_width: rng.int(1, L) }).output('y', 'float32');
    await checkS2Case(join(dir, `itap${seed}`), { builder: p, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'ITAPartialMax', layer: 's2-rows' });
  });
  test(`a requantized broadcasting add chain (seed ${seed})`, async () => {
    const rng = new Rng(seed * 31337);
    const shape = [rng.int(1, 3), rng.int(2, 9), rng.int(1, 7), rng.int(3, 40)];
    const bshape = shape.map((d, i) => (i === 1 || i === 3 ? d : 1));
    const b = new OnnxBuilder('adds').input('x', 'int8', shape).input('z', 'uint8', bshape);
    const C = shape[1];
    b.initializer('m', 'int32', [C, 1, 1], rng.ints(C, 1, 200)).initializer('a', 'int32', [C, 1, 1], rng.ints(C, -500, 500));
    b.node('Add', ['x', 'z'], ['s']);
    b.node('RequantShift', ['s', 'm', 'a'], ['y'], { div: float(256), n_levels: float(256), signed: float(1) });
    b.output('y', 'float32');
    const inputs = [randomValues(rng, 'int8', shape), randomValues(rng, 'uint8', bshape)];
    await checkS2Case(join(dir, `add${seed}`), { builder: b, inputs }, { op: 'Add', layer: 's2-elementwise', pes: seed === 2 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 4; seed++) {
  test(`a requantized Conv with random groups, strides, dilations and pads (seed ${seed})`, async () => {
    const rng = new Rng(seed * 4099);
    const G = rng.pick([1, 1, 2, 3]);
    const CIG = rng.int(1, 4);
    const COG = rng.int(1, 6);
    const [H, W] = [rng.int(4, 12), rng.int(4, 14)];
    const [KH, KW] = [rng.int(1, 3), rng.int(1, 3)];
    const pads = [rng.int(0, 2), rng.int(0, 2), rng.int(0, 2), rng.int(0, 2)];
    const strides = [rng.int(1, 2), rng.int(1, 3)];
    const dilations = [rng.int(1, 2), rng.int(1, 2)];
    const dtype = rng.pick<IntType>(['int8', 'uint8']);
    const b = new OnnxBuilder('conv').input('x', dtype, [rng.int(1, 2), G * CIG, H, W]);
    b.initializer('w', 'int8', [G * COG, CIG, KH, KW], rng.ints(G * COG * CIG * KH * KW, -128, 127));
    b.initializer('c', 'int32', [G * COG], rng.ints(G * COG, -2000, 2000));
    b.node('Conv', ['x', 'w', 'c'], ['acc'], { group: G, kernel_shape: [KH, KW], pads, strides, dilations });
    b.initializer('m', 'int32', [1, G * COG, 1, 1], rng.ints(G * COG, 1, 100)).initializer('a', 'int32', [1], [rng.int(-1000, 1000)]);
    b.node('RequantShift', ['acc', 'm', 'a'], ['y'], { div: float(2 ** 12), n_levels: float(256), signed: float(1) });
    b.output('y', 'float32');
    const x = randomValues(rng, dtype, [b.graph().tensors.get('x')!.shape].flat());
    await checkS2Case(join(dir, `conv${seed}`), { builder: b, inputs: [x] }, { op: 'Conv', layer: 's2-conv', pes: seed === 1 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 3; seed++) {
  test(`MaxPool with random windows, strides, dilations and pads (seed ${seed})`, async () => {
    const rng = new Rng(seed * 6007);
    const dtype = rng.pick<IntType>(['int8', 'uint8']);
    const shape = [rng.int(1, 2), rng.int(1, 6), rng.int(6, 14), rng.int(6, 14)];
    const k = [rng.int(1, 3), rng.int(2, 3)];
    const b = new OnnxBuilder('pool').input('x', dtype, shape);
    b.node('MaxPool', ['x'], ['y'], { kernel_shape: k, pads: [rng.int(0, k[0] - 1), rng.int(0, k[1] - 1), rng.int(0, k[0] - 1), rng.int(0, k[1] - 1)], strides: [rng.int(1, 2), rng.int(1, 3)], dilations: [1, rng.int(1, 2)] });
    b.output('y', 'float32');
    await checkS2Case(join(dir, `pool${seed}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'MaxPool', layer: 's2-pool' });
  });
}

for (let seed = 1; seed <= 4; seed++) {
  test(`MaxPool of 16- and 32-bit values: padded, strided, dilated, 1-D and 2-D (seed ${seed})`, async () => {
    const rng = new Rng(seed * 9029);
    const dtype = rng.pick<IntType>(['int16', 'uint16', 'int32']);
    const oneD = seed === 4;
    const shape = oneD ? [rng.int(1, 2), rng.int(1, 5), rng.int(5, 17)] : [rng.int(1, 2), rng.int(1, 5), rng.int(3, 11), rng.int(3, 13)];
    const k = oneD ? [rng.int(2, 5)] : [rng.int(1, 3), seed === 1 ? 3 : rng.int(2, 3)];
    const pads = [...k.map((v) => rng.int(0, v - 1)), ...k.map((v) => rng.int(0, v - 1))];
    const b = new OnnxBuilder('wide-pool').input('x', dtype, shape);
    b.node('MaxPool', ['x'], ['y'], { kernel_shape: k, pads, strides: k.map(() => rng.int(1, 2)), dilations: k.map(() => rng.int(1, 2)) });
    b.output('y', 'float32');
    await checkS2Case(join(dir, `wpool${seed}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'MaxPool', layer: 's2-elementwise', pes: seed === 2 ? 2 : undefined });
  });
}

test('MaxPool 3x3 of int32 values, pads 1: nine taps in two elementwise layers; a 1x1 image with pads', async () => {
  const rng = new Rng(4441);
  const shape = [1, 3, 7, 5];
  const b = new OnnxBuilder('wide-pool9').input('x', 'int32', shape);
  b.node('MaxPool', ['x'], ['y'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [2, 1] }).output('y', 'float32');
  await checkS2Case(join(dir, 'wpool9'), { builder: b, inputs: [randomValues(rng, 'int32', shape)] }, { op: 'MaxPool', layer: 's2-elementwise' });
  const one = new OnnxBuilder('wide-pool1').input('x', 'int16', [1, 1, 1, 1]);
  one.node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], pads: [1, 1, 0, 0] }).output('y', 'float32');
  await checkS2Case(join(dir, 'wpool1'), { builder: one, inputs: [randomValues(rng, 'int16', [1, 1, 1, 1])] }, { op: 'MaxPool', layer: 's2-elementwise' });
});

for (let seed = 1; seed <= 3; seed++) {
  test(`data movement: Transpose, Slice with steps, Concat, Pad with a value, Gather (seed ${seed})`, async () => {
    const rng = new Rng(seed * 1409);
    const shape = [rng.int(1, 3), rng.int(2, 6), rng.int(2, 9), rng.int(2, 12)];
    const perm = [0, 1, 2, 3].sort(() => rng.next() - 0.5);
    const b = new OnnxBuilder('move').input('x', 'int8', shape).input('z', 'uint8', shape);
    b.node('Transpose', ['x'], ['t'], { perm });
    b.initializer('st', 'int64', [2], [1, 0]).initializer('en', 'int64', [2], [shape[1], shape[3]]).initializer('ax', 'int64', [2], [1, 3]).initializer('sp', 'int64', [2], [1, 2]);
    b.node('Slice', ['z', 'st', 'en', 'ax', 'sp'], ['s']);
    b.node('Concat', ['x', 'z'], ['c'], { axis: rng.int(0, 3) });
    b.node('Pad', ['x'], ['p'], { mode: 'constant', pads: [0, 1, rng.int(0, 2), 1, 0, 0, 1, rng.int(0, 2)], value: float(rng.int(-5, 5)) });
    b.initializer('ix', 'int64', [3], [2, 0, 1]);
    b.node('Gather', ['x', 'ix'], ['g'], { axis: 2 });
    for (const o of ['t', 's', 'c', 'p', 'g']) b.output(o, 'float32');
    const inputs = [randomValues(rng, 'int8', shape), randomValues(rng, 'uint8', shape)];
    await checkS2Case(join(dir, `move${seed}`), { builder: b, inputs }, { op: 'Transpose', layer: 's2-move', pes: seed === 1 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 4; seed++) {
  test(`iLayerNorm with per-column weights and biases (seed ${seed})`, async () => {
    const rng = new Rng(seed * 3571);
    const shape = seed === 1 ? [1] : rowShape(rng);
    const L = shape[shape.length - 1];
    const dtype = rng.pick<IntType>(['int8', 'uint8', 'int16']);
    const b = new OnnxBuilder('layernorm').input('x', dtype, shape);
    const full = rng.next() < 0.5;
    b.initializer('w', 'int32', full ? [L] : [1, L], rng.ints(L, -3000, 3000)).initializer('c', 'int32', [L], rng.ints(L, -20000, 20000));
    b.node('iLayerNorm', ['x', 'w', 'c'], ['y'], { D: float(2 ** rng.int(4, 12)), n_levels: float(256) }).output('y', 'float32');
    await checkS2Case(join(dir, `layernorm${seed}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'iLayerNorm', layer: 's2-rows', pes: seed === 2 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 4; seed++) {
  test(`Slice with negative steps, starts and ends past the ends (seed ${seed})`, async () => {
    const rng = new Rng(seed * 2203);
    const rank = rng.int(1, 4);
    const shape = Array.from({ length: rank }, () => rng.int(1, 9));
    const dtype = rng.pick<IntType>(['int8', 'uint8', 'int16', 'int32']);
    let axes = shape.map((_, i) => i).filter(() => rng.next() < 0.6);
    if (axes.length === 0) axes = [rank - 1];
    const steps = axes.map((_, i) => (i === 0 ? -rng.int(1, 3) : rng.pick([-3, -2, -1, 1, 2])));
    const starts = axes.map((a, i) => (steps[i] < 0 ? rng.pick([shape[a] - 1, 1000, -1, rng.int(0, shape[a] - 1)]) : rng.int(0, shape[a] - 1)));
    const ends = axes.map((a, i) => (steps[i] < 0 ? rng.pick([-1000, -shape[a] - 1, rng.int(-1, starts[i] < 0 ? 0 : Math.min(starts[i], shape[a] - 1) - 1)]) : shape[a]));
    const b = new OnnxBuilder('slice').input('x', dtype, shape);
    b.initializer('st', 'int64', [axes.length], starts).initializer('en', 'int64', [axes.length], ends);
    b.initializer('ax', 'int64', [axes.length], axes).initializer('sp', 'int64', [axes.length], steps);
    b.node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['y']).output('y', 'float32');
    await checkS2Case(join(dir, `nslice${seed}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'Slice', layer: 's2-move', pes: seed === 1 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 3; seed++) {
  test(`ReduceSum and ReduceMean over a contiguous group of axes, iRMSNorm (seed ${seed})`, async () => {
    const rng = new Rng(seed * 8191);
    const shape = [rng.int(1, 3), rng.int(2, 7), rng.int(1, 6), rng.int(2, 9)];
    const a0 = rng.int(0, 3);
    const axes = Array.from({ length: rng.int(1, 4 - a0) }, (_, i) => a0 + i);
    const b = new OnnxBuilder('reduce').input('x', 'int8', shape);
    b.node('ReduceSum', ['x'], ['s'], { axes, keepdims: rng.int(0, 1) });
    b.node('ReduceMean', ['x'], ['m'], { axes, keepdims: 0 });
    const L = shape[3];
    b.initializer('w', 'int32', [L], rng.ints(L, -300, 300));
    b.node('iRMSNorm', ['x', 'w'], ['r'], { D: float(2 ** rng.int(4, 10)), n_levels: float(256) });
    for (const o of ['s', 'm', 'r']) b.output(o, 'float32');
    await checkS2Case(join(dir, `reduce${seed}`), { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'ReduceSum', layer: 's2-reduce', pes: seed === 1 ? 2 : undefined });
  });
}

for (let seed = 1; seed <= 4; seed++) {
  test(`ReduceSum, ReduceMean and IntegerMean over axes that are not contiguous (seed ${seed})`, async () => {
    const rng = new Rng(seed * 6521);
    const rank = rng.int(3, 4);
    const shape = Array.from({ length: rank }, () => rng.int(1, 6));
    // Two or more axes with a gap: {0, 2}, {1, 3}, {0, 3}, {0, 1, 3}, ...
    const sets = rank === 3 ? [[0, 2]] : [[0, 2], [1, 3], [0, 3], [0, 1, 3], [0, 2, 3]];
    const axes = rng.pick(sets);
    const spelled = axes.map((a) => (rng.next() < 0.3 ? a - rank : a));
    const dtype = rng.pick<IntType>(['int8', 'uint8', 'int16', 'int32']);
    const keepdims = rng.int(0, 1);
    const b = new OnnxBuilder('reduce-gap').input('x', dtype, shape);
    b.initializer('ax', 'int64', [axes.length], spelled);
    b.node('ReduceSum', ['x', 'ax'], ['s'], { keepdims });
    b.node('ReduceMean', ['x'], ['m'], { axes: spelled, keepdims: 1 - keepdims });
    b.node('IntegerMean', ['x'], ['i'], { axes, keepdims });
    for (const o of ['s', 'm', 'i']) b.output(o, 'float32');
    const limit = Math.floor(2147483647 / shape.reduce((a, d) => a * d, 1));
    await checkS2Case(join(dir, `reduce-gap${seed}`), { builder: b, inputs: [randomValues(rng, dtype, shape, limit)] }, { op: 'ReduceSum', layer: 's2-reduce', pes: seed === 1 ? 2 : undefined });
  });
}

test('a copy that fits one tile is cut for the idle workers: a decoder key cache transposed, exact', async () => {
  const rng = new Rng(16);
  const shape = [16, 256, 4];
  const b = new OnnxBuilder('keys').input('x', 'int8', shape);
  b.node('Transpose', ['x'], ['y'], { perm: [0, 2, 1] }).output('y', 'float32');
  const out = join(dir, 'keys');
  await checkS2Case(out, { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'Transpose', layer: 's2-move' });
  const fw = JSON.parse(readFileSync(join(out, 'spinnaker2', 'firmware.json'), 'utf8'));
  const layer = fw.spinnaker2.layers.find((l: { workers: number }) => l.workers > 0);
  assert.ok(layer.workers >= 8, `${layer.workers} workers for 16 rows of 1024 elements`);
});

test.after(cleanup);
test.run();
