/**
 * SpiNNaker2's movement layer on copies of 2049 and more runs: a PE's DMA holds a bounded number of transfers
 * issued and not waited for, so Concat, Pad, Slice and Transpose whose write-back is one run per row (a column slab,
 * a concatenation along the last axis) must move fewer, larger transfers and wait in batches. Each case emulated and
 * host-built C equal to the reference interpreter; int8, int16 and int32 values; odd widths; the same copies (and a
 * backward Slice) on generic and Siracusa too.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import type { IntType } from '../../generator/ir/dtype.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { checkKernelCase, workDir } from '../helpers/kernel-check.js';
import { Rng } from '../helpers/random.js';
import { checkS2Case } from '../helpers/s2-check.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('s2-long-rows');
const TYPES: IntType[] = ['int8', 'int16', 'int32'];

TYPES.forEach((dtype, k) => {
  const rows = 2049 + 1000 * k;
  test(`Concat along the last axis, ${rows} rows of ${dtype}`, async () => {
    const rng = new Rng(k + 1);
    const b = new OnnxBuilder('concat').input('x', dtype, [rows, 3]).input('z', dtype, [rows, 1]);
    b.node('Concat', ['x', 'z'], ['y'], { axis: 1 }).output('y', 'float32');
    const inputs = [randomValues(rng, dtype, [rows, 3]), randomValues(rng, dtype, [rows, 1])];
    await checkS2Case(join(dir, `concat${k}`), { builder: b, inputs }, { op: 'Concat', layer: 's2-move', pes: k === 0 ? 2 : undefined });
  });
  test(`Pad of columns and rows, ${rows} rows of ${dtype}`, async () => {
    const rng = new Rng(k + 11);
    const b = new OnnxBuilder('pad').input('x', dtype, [2, rows, 5]);
    b.node('Pad', ['x'], ['y'], { mode: 'constant', pads: [0, 1, 2, 0, 0, 1], value: float(-3) }).output('y', 'float32');
    await checkS2Case(join(dir, `pad${k}`), { builder: b, inputs: [randomValues(rng, dtype, [2, rows, 5])] }, { op: 'Pad', layer: 's2-move' });
  });
  test(`Slice of columns and Transpose, ${rows} rows of ${dtype}`, async () => {
    const rng = new Rng(k + 21);
    const shape = [rows, 7];
    const b = new OnnxBuilder('slice').input('x', dtype, shape);
    b.initializer('st', 'int64', [1], [1]).initializer('en', 'int64', [1], [6]).initializer('ax', 'int64', [1], [1]).initializer('sp', 'int64', [1], [2]);
    b.node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['s']).node('Transpose', ['x'], ['t'], { perm: [1, 0] });
    b.node('Transpose', ['s'], ['u'], { perm: [1, 0] });
    for (const o of ['s', 't', 'u']) b.output(o, 'float32');
    await checkS2Case(join(dir, `slice${k}`), { builder: b, inputs: [randomValues(rng, dtype, shape)] }, { op: 'Slice', layer: 's2-move' });
  });
});

test('Pad of a 4-D tensor on three axes: 2400 write-back transfers in one tile, waited for in batches', async () => {
  const rng = new Rng(31);
  const shape = [80, 30, 2, 3];
  const b = new OnnxBuilder('pad4').input('x', 'int8', shape);
  b.node('Pad', ['x'], ['y'], { mode: 'constant', pads: [0, 1, 1, 1, 0, 0, 1, 0], value: float(7) }).output('y', 'float32');
  await checkS2Case(join(dir, 'pad4'), { builder: b, inputs: [randomValues(rng, 'int8', shape)] }, { op: 'Pad', layer: 's2-move' });
});

test('the same long-row copies on generic and siracusa (tiled), emulated and host C', async () => {
  const rng = new Rng(41);
  const rows = 2049;
  const b = new OnnxBuilder('long-core').input('x', 'int16', [rows, 3]).input('z', 'int16', [rows, 1]);
  b.node('Concat', ['x', 'z'], ['c'], { axis: 1 });
  b.node('Pad', ['x'], ['p'], { mode: 'constant', pads: [0, 1, 0, 1], value: float(-3) });
  b.initializer('st', 'int64', [1], [-1]).initializer('en', 'int64', [1], [-1000]).initializer('ax', 'int64', [1], [0]).initializer('sp', 'int64', [1], [-2]);
  b.node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['s']).node('Transpose', ['x'], ['t'], { perm: [1, 0] });
  for (const o of ['c', 'p', 's', 't']) b.output(o, 'float32');
  const inputs = [randomValues(rng, 'int16', [rows, 3]), randomValues(rng, 'int16', [rows, 1])];
  await checkKernelCase(join(dir, 'core'), { builder: b, inputs }, { op: 'Concat', kernel: 'copy', hostC: true });
  await checkS2Case(join(dir, 'core-s2'), { builder: b, inputs }, { op: 'Concat', layer: 's2-move' });
});

test.after(cleanup);
test.run();
