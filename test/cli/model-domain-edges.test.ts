import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * The legal edges of the domains model-domain.test.ts rejects beyond (generator/validate/): each model generates,
 * its C builds with the host compiler, and C and emulated AS both equal the reference interpreter, on each platform
 * named. Inputs include the extremes of their type, so the widest intermediate values are reached.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-edges-'));

interface Edge {
  builder: OnnxBuilder;
  inputs: NDArray[];
  platforms: string[];
}

/** int8 values with both extremes present. */
function int8s(rng: Rng, shape: number[]): NDArray {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = rng.ints(n, -128, 127);
  v[0] = -128;
  v[n - 1] = 127;
  return ndarray('int8', shape, v);
}

async function equalsReference(name: string, e: Edge): Promise<void> {
  const model = join(work, `${name}.onnx`);
  writeFileSync(model, e.builder.bytes());
  const g = loadOnnxFile(model);
  const values = runReference(g, e.inputs);
  const expected = g.outputs.map((o) => values.get(o) as NDArray);
  const count = expected.reduce((n, a) => n + a.data.length, 0);
  for (const platform of e.platforms) {
    const out = join(work, `${name}-${platform}`);
    const { manifest } = generateFirmware({ model, platform, out });
    const host = compareOutputs(manifest.outputs, runHostC(out, e.inputs), expected);
    assert.is(host.total, count, `${platform} host C: every output element compared`);
    assert.is(host.errors, 0, `${platform} host C: ${host.details.join('; ')}`);
    const emulated = compareOutputs(manifest.outputs, (await runFirmware(out, e.inputs)).outputs, expected);
    assert.is(emulated.total, count, `${platform} emulator: every output element compared`);
    assert.is(emulated.errors, 0, `${platform} emulator: ${emulated.details.join('; ')}`);
  }
}

const ALL = ['generic', 'siracusa', 'spinnaker2'];

test('requantization at the edge: div 2^31, mul 2^31-1, add -2^31 on an accumulator reaching -2^31', async () => {
  // 1x1 conv with weight 2^24: acc = x * 2^24 spans [-2^31, 127*2^24], the whole of what int32 holds below.
  const rng = new Rng(11);
  const b = new OnnxBuilder('rq-edge').input('x', 'int8', [1, 1, 4, 4])
    .initializer('w', 'int32', [1, 1, 1, 1], [2 ** 24])
    .node('Conv', ['x', 'w'], ['c'], { kernel_shape: [1, 1] })
    .initializer('mul', 'int32', [1], [2 ** 31 - 1]).initializer('add', 'int32', [1], [-(2 ** 31)])
    .node('RequantShift', ['c', 'mul', 'add'], ['wide'], { div: float(2 ** 31), n_levels: float(2 ** 32), signed: float(1) })
    .initializer('one', 'int32', [1], [1]).initializer('zero', 'int32', [1], [0])
    .node('RequantShift', ['c', 'one', 'zero'], ['odd'], { div: float(2 ** 25), n_levels: float(3), signed: float(1) })
    .node('RequantShift', ['c', 'one', 'zero'], ['two'], { div: float(2 ** 24), n_levels: float(2), signed: float(0) })
    .output('wide', 'float32', [1, 1, 4, 4]).output('odd', 'float32', [1, 1, 4, 4]).output('two', 'float32', [1, 1, 4, 4]);
  // SpiNNaker2's MLA multiplies 8-bit operands only: it has no kernel for the int32 weight (the next case is its edge).
  await equalsReference('rq-edge', { builder: b, inputs: [int8s(rng, [1, 1, 4, 4])], platforms: ['generic', 'siracusa'] });
});

test('requantization at the edge on a full-range int32 tensor: x*mul reaches 2^62', async () => {
  const v = [-(2 ** 31), 2 ** 31 - 1, -1, 0, 1, 123456789, -987654321, 2 ** 30];
  const b = new OnnxBuilder('rq-int32').input('x', 'int32', [1, 8])
    .initializer('mul', 'int32', [1], [-(2 ** 31)]).initializer('add', 'int32', [1], [2 ** 31 - 1])
    .node('RequantShift', ['x', 'mul', 'add'], ['y'], { div: float(2 ** 31), n_levels: float(2 ** 32), signed: float(1) })
    .initializer('m2', 'int32', [1], [2 ** 31 - 1]).initializer('a2', 'int32', [1], [-(2 ** 31)])
    .node('RequantShift', ['x', 'm2', 'a2'], ['z'], { div: float(1), n_levels: float(2 ** 31), signed: float(0) })
    .output('y', 'float32', [1, 8]).output('z', 'float32', [1, 8]);
  await equalsReference('rq-int32', { builder: b, inputs: [ndarray('int32', [1, 8], v)], platforms: ALL });
});

test('window geometry at the edge: MaxPool pads up to and beyond its window, strides larger than the kernel', async () => {
  const rng = new Rng(12);
  const b = new OnnxBuilder('window-edge').input('x', 'int8', [1, 2, 7, 7])
    .node('MaxPool', ['x'], ['p'], { kernel_shape: [3, 3], pads: [2, 2, 2, 2], strides: [3, 3] })
    .initializer('w', 'int8', [2, 2, 2, 2], rng.ints(16, -128, 127))
    .node('Conv', ['x', 'w'], ['c'], { kernel_shape: [2, 2], strides: [5, 4], pads: [0, 0, 1, 1], dilations: [1, 2] })
    // Pads beyond the dilated window's reach, every window still landing on the input: extent 5, pad 3.
    .node('MaxPool', ['x'], ['q'], { kernel_shape: [3, 3], dilations: [2, 2], pads: [3, 3, 3, 3], strides: [2, 2] })
    .output('p', 'float32', [1, 2, 3, 3]).output('c', 'float32', [1, 2, 2, 2]).output('q', 'float32', [1, 2, 5, 5]);
  await equalsReference('window-edge', { builder: b, inputs: [int8s(rng, [1, 2, 7, 7])], platforms: ALL });
});

test('pad values at the edges of the tensor type and beyond it (the result widens)', async () => {
  const rng = new Rng(13);
  const b = new OnnxBuilder('pad-edge').input('x', 'int8', [1, 2, 3, 3])
    .initializer('pads', 'int64', [8], [0, 0, 1, 1, 0, 0, 1, 1])
    .initializer('lo', 'float32', [], [-128]).initializer('hi', 'int32', [], [1000])
    .node('Pad', ['x', 'pads', 'lo'], ['a'], { mode: 'constant' })
    .node('Pad', ['x', 'pads', 'hi'], ['b'], { mode: 'constant' })
    .output('a', 'float32', [1, 2, 5, 5]).output('b', 'float32', [1, 2, 5, 5]);
  await equalsReference('pad-edge', { builder: b, inputs: [int8s(rng, [1, 2, 3, 3])], platforms: ALL });
});

test('TrueIntegerDiv folded into a RequantShift up to div 2^31', async () => {
  const rng = new Rng(14);
  const b = new OnnxBuilder('tid-edge').input('x', 'int8', [1, 8])
    .node('TrueIntegerDiv', ['x'], ['d'], { Delta: float(4096), eps: float(1), eta: float(1), y: float(3) })
    .initializer('mul', 'int32', [1], [77]).initializer('add', 'int32', [1], [-5])
    .node('RequantShift', ['d', 'mul', 'add'], ['y'], { div: float(2 ** 23), n_levels: float(256), signed: float(1) })
    .output('y', 'float32', [1, 8]);
  await equalsReference('tid-edge', { builder: b, inputs: [int8s(rng, [1, 8])], platforms: ALL });
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
