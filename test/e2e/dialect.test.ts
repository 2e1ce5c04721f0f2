import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/**
 * The op coverage is the dialect, not the list of test folders: seeded random graphs in the Deeploy integer
 * dialect (random shapes, strides, pads, groups, broadcasts, requant parameters) run on both platforms and match
 * the reference interpreter, which is itself checked against outputs.npz and onnxruntime.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-dialect-'));

/** RequantShift to int8 (or uint8) with per-channel or scalar parameters. */
function requant(b: OnnxBuilder, rng: Rng, x: string, y: string, channels: number, rank: number, perChannel: boolean, signed = true): void {
  const shape = perChannel ? [channels, ...new Array<number>(rank - 1).fill(1)] : [1];
  const n = perChannel ? channels : 1;
  const s = rng.int(6, 14);
  b.initializer(`${y}_mul`, 'int32', shape, rng.ints(n, 1, 255));
  b.initializer(`${y}_add`, 'int32', shape, rng.ints(n, -(2 ** s), 2 ** s));
  b.node('RequantShift', [x, `${y}_mul`, `${y}_add`], [y], { div: float(2 ** s), n_levels: float(256), signed: float(signed ? 1 : 0) }, '');
}

type Case = (rng: Rng) => { builder: OnnxBuilder; inputs: NDArray[] };

const cases: Record<string, Case> = {
  'conv + requant + residual add + gemm': (rng) => {
    const C = rng.int(2, 6);
    const H = rng.int(5, 9);
    const W = rng.int(5, 9);
    const K = rng.pick([1, 3]);
    const depthwise = rng.next() < 0.5;
    const b = new OnnxBuilder('convnet').input('x', 'int8', [1, C, H, W]);
    b.initializer('w', 'int8', [C, depthwise ? 1 : C, K, K], rng.ints(C * (depthwise ? 1 : C) * K * K, -128, 127));
    b.initializer('bias', 'int32', [C], rng.ints(C, -500, 500));
    b.node('Conv', ['x', 'w', 'bias'], ['c'], { kernel_shape: [K, K], pads: K === 3 ? [1, 1, 1, 1] : [0, 0, 0, 0], strides: [1, 1], group: depthwise ? C : 1 });
    requant(b, rng, 'c', 'r', C, 4, true);
    b.node('Add', ['r', 'x'], ['s']);
    requant(b, rng, 's', 't', C, 4, false);
    b.node('Flatten', ['t'], ['f'], { axis: 1 });
    const N = rng.int(3, 12);
    b.initializer('g', 'int8', [N, C * H * W], rng.ints(N * C * H * W, -128, 127));
    b.node('Gemm', ['f', 'g'], ['z'], { transB: 1 });
    requant(b, rng, 'z', 'out', N, 2, false);
    b.output('out', 'float32');
    return { builder: b, inputs: [ndarray('int8', [1, C, H, W], rng.ints(C * H * W, -128, 127))] };
  },
  'strided padded conv, maxpool-free 1-D conv, batched matmul with broadcast and bias': (rng) => {
    const C = rng.int(1, 4);
    const L = rng.int(8, 20);
    const O = rng.int(2, 5);
    const b = new OnnxBuilder('mixed').input('x', 'uint8', [1, C, L]);
    b.initializer('w', 'int8', [O, C, 3], rng.ints(O * C * 3, -128, 127));
    b.node('Conv', ['x', 'w'], ['c'], { kernel_shape: [3], pads: [2, 1], strides: [2], dilations: [1] });
    requant(b, rng, 'c', 'r', O, 3, true);
    b.node('Transpose', ['r'], ['rt'], { perm: [0, 2, 1] });
    const P = rng.int(2, 6);
    b.initializer('m', 'int8', [2, O, P], rng.ints(2 * O * P, -128, 127));
    b.node('MatMul', ['rt', 'm'], ['mm']);
    b.initializer('mb', 'int32', [P], rng.ints(P, -1000, 1000));
    b.node('Add', ['mm', 'mb'], ['mmb']);
    requant(b, rng, 'mmb', 'out', P, 3, false);
    b.output('out', 'float32');
    return { builder: b, inputs: [ndarray('uint8', [1, C, L], rng.ints(C * L, 0, 255))] };
  },
  'data movement and elementwise: slice, concat, pad, hardswish, integer div, sub, mul': (rng) => {
    const C = rng.int(2, 5);
    const H = rng.int(4, 8);
    const b = new OnnxBuilder('movement').input('x', 'int8', [1, C, H, H]).input('y', 'int8', [1, 1, H, H]);
    b.initializer('st', 'int64', [1], [1]).initializer('en', 'int64', [1], [H]).initializer('ax', 'int64', [1], [3]);
    b.node('Slice', ['x', 'st', 'en', 'ax'], ['sl']);
    b.node('Pad', ['sl'], ['pd'], { pads: [0, 0, 1, 1, 0, 0, 0, 0], value: float(-3) });
    b.node('Concat', ['pd', 'pd'], ['cc'], { axis: 1 });
    b.node('iHardswish', ['cc'], ['hs'], { one_over_six: 2, three: 48, six: 96 });
    requant(b, rng, 'hs', 'hr', 2 * C, 4, false);
    b.node('Sub', ['x', 'y'], ['d']);
    b.node('Mul', ['d', 'y'], ['p']);
    b.node('IntegerDiv', ['p', 'y'], ['q'], { Delta: 3, eps: 1, eta: 5 });
    b.output('hr', 'float32').output('q', 'float32');
    const yv = rng.ints(H * H, 1, 100);
    return { builder: b, inputs: [ndarray('int8', [1, C, H, H], rng.ints(C * H * H, -128, 127)), ndarray('int8', [1, 1, H, H], yv)] };
  },
};

for (const [name, make] of Object.entries(cases)) {
  for (const seed of [1, 2, 3]) {
    test(`${name} (seed ${seed})`, async () => {
      const rng = new Rng(seed * 7919);
      const { builder, inputs } = make(rng);
      const dir = join(work, `${name.replace(/\W+/g, '_')}_${seed}`);
      const model = join(dir, 'model.onnx');
      const sample = join(dir, 'in.npz');
      mkdirSync(dir, { recursive: true });
      writeFileSync(model, builder.bytes());
      writeFileSync(sample, encodeNpz(new Map(inputs.map((a, i) => [`in${i}`, a]))));
      const graph = loadOnnxFile(model);
      const values = runReference(graph, inputs);
      const expected = graph.outputs.map((o) => values.get(o)!);
      for (const platform of ['generic', 'siracusa']) {
        const out = join(dir, platform);
        const { manifest } = generateFirmware({ model, platform, out, sampleInputs: sample });
        const r = await runFirmware(out, inputs);
        const c = compareOutputs(manifest.outputs, r.outputs, expected);
        assert.is(c.errors, 0, `${platform}: ${c.details.join('; ')}`);
      }
    });
  }
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
