/**
 * SpiNNaker2's kernels for values known only at run time, each emulated and host-built C equal to the reference
 * interpreter (test/helpers/s2-check.ts): Gather by run-time indices (a 256-entry table read by int8 codes in SRAM,
 * an embedding's rows by their own DMA, an axis inside an activation, negative indices), ArgMax, CacheWrite at a
 * run-time position (in place on a graph input, a constant cache, a cache another node reads too) and the iSoftmax
 * bounded by a run-time position (every position of a short row). Two PEs force one worker with many tiles.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import type { IntType } from '../../generator/ir/dtype.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { workDir } from '../helpers/kernel-check.js';
import { Rng } from '../helpers/random.js';
import { checkS2Case } from '../helpers/s2-check.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('s2-indexed');

const indices = (rng: Rng, dim: number, n: number): number[] => Array.from({ length: n }, () => (rng.int(0, 4) === 0 ? -rng.int(1, dim) : rng.int(0, dim - 1)));

for (let seed = 1; seed <= 2; seed++) {
  test(`Gather: a 256-entry table read by int8 codes (seed ${seed})`, async () => {
    const rng = new Rng(seed * 613);
    const shape = [rng.int(1, 3), rng.int(1, 9), rng.int(1, 40)];
    const b = new OnnxBuilder('table').input('x', 'int8', shape).initializer('t', 'int8', [256], rng.ints(256, -128, 127));
    b.node('Gather', ['t', 'x'], ['y'], { axis: 0 }).output('y', 'float32');
    await checkS2Case(join(dir, `table${seed}`), { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'Gather', layer: 's2-indexed', pes: seed === 1 ? 2 : undefined });
  });

  test(`Gather: embedding rows by token ids, int32 (seed ${seed})`, async () => {
    const rng = new Rng(seed * 877);
    const [V, D, n] = [rng.int(30, 90), rng.pick([16, 64, 96]), rng.int(1, 5)];
    const b = new OnnxBuilder('embed').input('ids', 'int32', [1, n]).initializer('e', 'int8', [V, D], rng.ints(V * D, -128, 127));
    b.node('Gather', ['e', 'ids'], ['y'], { axis: 0 }).output('y', 'float32');
    const ids = indices(rng, V, n);
    ids[0] = V - 1;
    await checkS2Case(join(dir, `embed${seed}`), { builder: b, inputs: [ndarray('int32', [1, n], ids)] }, { op: 'Gather', layer: 's2-indexed', pes: seed === 1 ? 2 : undefined });
  });

  test(`Gather along an inner axis of an activation, negative indices (seed ${seed})`, async () => {
    const rng = new Rng(seed * 1231);
    const dtype = rng.pick<IntType>(['int16', 'uint8', 'int32']);
    const shape = [rng.int(1, 4), rng.int(2, 7), rng.int(1, 6)];
    const n = rng.int(1, 6);
    const b = new OnnxBuilder('inner').input('x', dtype, shape).input('i', 'int32', [n]);
    b.node('Gather', ['x', 'i'], ['y'], { axis: seed === 1 ? 1 : -2 }).output('y', 'float32');
    const inputs = [randomValues(rng, dtype, shape), ndarray('int32', [n], indices(rng, shape[1], n))];
    await checkS2Case(join(dir, `inner${seed}`), { builder: b, inputs }, { op: 'Gather', layer: 's2-indexed', pes: seed === 2 ? 2 : undefined });
  });

  test(`ArgMax over the last axis, ties to the first (seed ${seed})`, async () => {
    const rng = new Rng(seed * 389);
    const dtype = rng.pick<IntType>(['int8', 'uint8', 'int16']);
    const shape = [rng.int(1, 4), rng.int(1, 5), rng.int(1, 60)];
    const b = new OnnxBuilder('argmax').input('x', dtype, shape);
    b.node('ArgMax', ['x'], ['y'], { axis: -1, keepdims: seed - 1 }).output('y', 'float32');
    // Few distinct values: many ties.
    const x = randomValues(rng, dtype, shape);
    for (let i = 2; i < x.data.length; i++) if (rng.int(0, 1)) x.data[i] = x.data[i % 2];
    await checkS2Case(join(dir, `argmax${seed}`), { builder: b, inputs: [x] }, { op: 'ArgMax', layer: 's2-rows', pes: seed === 1 ? 2 : undefined });
  });
}

test('ArgMax of a 1-D input to a scalar, int32 values', async () => {
  const rng = new Rng(3);
  const b = new OnnxBuilder('argmax1d').input('x', 'int32', [300]);
  b.node('ArgMax', ['x'], ['y'], { axis: 0, keepdims: 0 }).output('y', 'float32');
  const x = randomValues(rng, 'int32', [300], 1000);
  x.data[0] = -1000; // the extremes pinned by randomValues sit at 0 and 1; the largest twice, the first wins
  x.data[250] = 1000;
  await checkS2Case(join(dir, 'argmax1d'), { builder: b, inputs: [x] }, { op: 'ArgMax', layer: 's2-rows' });
});

/** CacheWrite(cache, value, pos) of a [O, R, I]-like cache along `axis`, the position drawn in [0, R - n]. */
function cacheCase(rng: Rng, axis: number, cache: 'input' | 'constant' | 'shared') {
  const shape = [rng.int(1, 5), rng.int(2, 9), rng.int(1, 6)];
  const R = shape[axis];
  const n = rng.int(1, Math.min(3, R));
  const vshape = shape.map((d, i) => (i === axis ? n : d));
  const b = new OnnxBuilder('cache').input('v', 'int8', vshape).input('p', 'int32', [1]);
  const size = shape.reduce((a, c) => a * c, 1);
  if (cache === 'constant') b.initializer('c', 'int8', shape, rng.ints(size, -128, 127));
  else b.input('c', 'int8', shape);
  b.node('CacheWrite', ['c', 'v', 'p'], ['y'], { axis }).output('y', 'float32');
  // A second writer of the same cache: neither may write it in place.
  if (cache === 'shared') b.node('CacheWrite', ['c', 'v', 'p'], ['z'], { axis: axis - shape.length }).output('z', 'float32');
  const inputs = [randomValues(rng, 'int8', vshape), ndarray('int32', [1], [rng.int(0, R - n)])];
  if (cache !== 'constant') inputs.push(randomValues(rng, 'int8', shape));
  return { builder: b, inputs };
}

for (const cache of ['input', 'constant', 'shared'] as const) {
  for (const axis of [0, 1, 2]) {
    test(`CacheWrite along axis ${axis}, the cache ${cache === 'input' ? 'a graph input written in place' : cache === 'constant' ? 'a constant' : 'read twice (copied)'}`, async () => {
      const rng = new Rng(axis * 97 + cache.length);
      await checkS2Case(join(dir, `cache${cache}${axis}`), cacheCase(rng, axis, cache), { op: 'CacheWrite', layer: 's2-indexed', pes: axis === 1 ? 2 : undefined });
    });
  }
}

test('CacheWrite of an int8 value into a uint8 cache (values in both ranges: stored as their bytes)', async () => {
  const rng = new Rng(5);
  const b = new OnnxBuilder('mixed').input('c', 'uint8', [3, 7, 4]).input('v', 'int8', [3, 2, 4]).input('p', 'int32', [1]);
  b.node('CacheWrite', ['c', 'v', 'p'], ['y'], { axis: 1 }).output('y', 'float32');
  const inputs = [randomValues(rng, 'uint8', [3, 7, 4]), ndarray('int8', [3, 2, 4], rng.ints(24, 0, 127)), ndarray('int32', [1], [5])];
  await checkS2Case(join(dir, 'mixed'), { builder: b, inputs }, { op: 'CacheWrite', layer: 's2-indexed' });
});

test('iSoftmax bounded by a run-time position: every position of the row', async () => {
  const rng = new Rng(4242);
  const L = 9;
  const shape = [2, 3, L];
  const log2 = rng.int(32, 300);
  const B = rng.int(log2, 2 * log2);
  const A = rng.int(1, 3);
  const x = randomValues(rng, 'int8', shape);
  for (let pos = 0; pos < L; pos++) {
    const b = new OnnxBuilder('bounded').input('x', 'int8', shape).input('p', 'int32', [1]);
    b.node('iSoftmax', ['x', 'p'], ['y'], { coeffA: A, coeffB: B, coeffC: rng.int(0, A * B * B), log2, n_levels: 256 }).output('y', 'float32');
    await checkS2Case(join(dir, `bounded${pos}`), { builder: b, inputs: [x, ndarray('int32', [1], [pos])] }, { op: 'iSoftmax', layer: 's2-rows', pes: pos % 3 === 0 ? 2 : undefined });
  }
});

test('iSoftmax bounded by a position, 64-bit intermediates on int16 scores', async () => {
  const rng = new Rng(977);
  const shape = [3, 40];
  const log2 = rng.int(4, 16);
  const B = rng.int(log2, 2 * log2);
  const A = rng.int(1, 3);
  const b = new OnnxBuilder('bounded16').input('x', 'int16', shape).input('p', 'int32', [1]);
  b.node('iSoftmax', ['x', 'p'], ['y'], { coeffA: A, coeffB: B, coeffC: rng.int(0, A * B * B), log2, n_levels: 128 }).output('y', 'float32');
  await checkS2Case(join(dir, 'bounded16'), { builder: b, inputs: [randomValues(rng, 'int16', shape), ndarray('int32', [1], [23])] }, { op: 'iSoftmax', layer: 's2-rows' });
});

test.after(cleanup);
test.run();
