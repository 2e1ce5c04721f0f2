/**
 * A standalone integer Relu or Clip (no conv or requant to fuse into) runs as an elementwise kernel on every
 * platform: generic, Siracusa (tiled through L1 when it does not fit there), SpiNNaker2. Bounds as inputs (ONNX
 * opset 11+, typed like x or float tensors holding integers), as attributes (opset 6), one bound only, lo > hi (ONNX:
 * hi everywhere), after an Add it fuses into; shapes of one element and of sizes not a multiple of 4; int8 to int32.
 * Every run, emulated and host-built C, equal to the reference interpreter.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { checkKernelCase, workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder, type AttrInput } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { checkS2Case } from '../helpers/s2-check.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('k-relu-clip');

type Bounds = 'inputs' | 'float-inputs' | 'attrs' | 'min-only' | 'max-only' | 'crossed';

function shapeOf(rng: Rng): number[] {
  if (rng.next() < 0.2) return [1];
  const rank = rng.int(1, 4);
  return Array.from({ length: rank }, (_, i) => (i === rank - 1 ? rng.pick([1, 3, 5, 7, 13, 30]) : rng.int(1, 4)));
}

function reluCase(rng: Rng, dtype: IntType, shape: number[]): KernelCase {
  const b = new OnnxBuilder('relu').input('x', dtype, shape).node('Relu', ['x'], ['y']).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape)] };
}

function clipCase(rng: Rng, dtype: IntType, shape: number[], bounds: Bounds): KernelCase {
  const b = new OnnxBuilder('clip', bounds === 'attrs' ? { opset: 6 } : {}).input('x', dtype, shape);
  const [lo, hi] = dtype === 'uint8' ? [rng.int(0, 100), rng.int(120, 250)] : [rng.int(-100, 0), rng.int(1, 100)];
  const inputs = ['x'];
  const attrs: Record<string, AttrInput> = {};
  const bound = (name: string, v: number, type: 'x' | 'float32'): void => {
    b.initializer(name, type === 'x' ? dtype : 'float32', [], [v]);
    inputs.push(name);
  };
  if (bounds === 'inputs') { bound('lo', lo, 'x'); bound('hi', hi, 'x'); }
  if (bounds === 'float-inputs') { bound('lo', lo, 'float32'); bound('hi', hi, 'float32'); }
  if (bounds === 'min-only') bound('lo', lo, 'x');
  if (bounds === 'max-only') { inputs.push(''); bound('hi', hi, 'x'); }
  if (bounds === 'crossed') { bound('lo', hi, 'x'); bound('hi', lo, 'x'); }
  if (bounds === 'attrs') Object.assign(attrs, { min: float(lo), max: float(hi) });
  b.node('Clip', inputs, ['y'], attrs).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape)] };
}

const TYPES: IntType[] = ['int8', 'uint8', 'int16', 'int32'];
const BOUNDS: Bounds[] = ['inputs', 'float-inputs', 'attrs', 'min-only', 'max-only', 'crossed'];

for (let seed = 1; seed <= 4; seed++) {
  test(`Relu on generic and siracusa (seed ${seed})`, async () => {
    const rng = new Rng(seed * 5003);
    const dtype = TYPES[(seed - 1) % TYPES.length];
    await checkKernelCase(join(dir, `relu${seed}`), reluCase(rng, dtype, shapeOf(rng)), { op: 'Elementwise', kernel: 'elementwise', hostC: true });
  });
}

BOUNDS.forEach((bounds, k) => {
  test(`Clip with bounds ${bounds} on generic and siracusa`, async () => {
    const rng = new Rng(k * 6151 + 11);
    const dtype = TYPES[k % TYPES.length];
    await checkKernelCase(join(dir, `clip-${bounds}`), clipCase(rng, dtype, shapeOf(rng), bounds), { op: 'Elementwise', kernel: 'elementwise', hostC: true });
  });
});

test('Relu after an Add fuses into one elementwise layer', async () => {
  const rng = new Rng(77);
  const shape = [3, 7];
  const b = new OnnxBuilder('add-relu').input('x', 'int8', shape).input('z', 'int8', shape);
  b.node('Add', ['x', 'z'], ['s']).node('Relu', ['s'], ['y']).output('y', 'float32');
  const c = { builder: b, inputs: [randomValues(rng, 'int8', shape), randomValues(rng, 'int8', shape)] };
  await checkKernelCase(join(dir, 'add-relu'), c, { op: 'Elementwise', kernel: 'elementwise', hostC: true });
  const { model, sample } = writeCase(join(dir, 'add-relu-layers'), c);
  const { layers } = generateFirmware({ model, platform: 'generic', out: join(dir, 'add-relu-layers', 'out'), sampleInputs: sample });
  assert.is(layers.length, 1, 'one layer');
});

test('a Clip larger than L1 is tiled on siracusa', async () => {
  const rng = new Rng(91);
  const shape = [70, 1001];
  const c = clipCase(rng, 'int32', shape, 'inputs');
  await checkKernelCase(join(dir, 'clip-big'), c, { op: 'Elementwise', kernel: 'elementwise', hostC: true });
  const { model, sample } = writeCase(join(dir, 'clip-big-plan'), c);
  const { manifest } = generateFirmware({ model, platform: 'siracusa', out: join(dir, 'clip-big-plan', 'out'), sampleInputs: sample });
  assert.ok(manifest.layers[0].tiling, 'the layer is tiled');
});

for (let seed = 1; seed <= 3; seed++) {
  test(`Relu and Clip on spinnaker2 (seed ${seed})`, async () => {
    const rng = new Rng(seed * 7001);
    const dtype = TYPES[seed % TYPES.length];
    await checkS2Case(join(dir, `s2-relu${seed}`), reluCase(rng, dtype, shapeOf(rng)), { op: 'Relu', layer: 's2-elementwise', pes: seed === 1 ? 2 : undefined });
    const bounds = BOUNDS[(seed * 2) % BOUNDS.length];
    await checkS2Case(join(dir, `s2-clip${seed}`), clipCase(rng, dtype, shapeOf(rng), bounds), { op: 'Clip', layer: 's2-elementwise' });
  });
}

test.after(cleanup);
test.run();
