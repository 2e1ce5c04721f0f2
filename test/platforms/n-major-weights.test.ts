import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Graph, Node } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * Siracusa and generic store a MatMul's B n-major where that is free (frontend/passes/n-major-weights.ts): a
 * constant B transposed by the generator, a B made by a Transpose read only by the MatMul re-permuted (or dropped
 * when the new order is the source's own). Each case checks that the rewrite happened (the lowered graph) and that
 * the emulated firmware, the host-compiled C and the rv32 C on the ISS (rv32-xpulp on Siracusa, plain rv32imc on
 * generic) all equal the reference interpreter, on both platforms.
 */
const { dir, cleanup } = workDir('nmajor');

function requant(b: OnnxBuilder, x: string, y: string): void {
  b.initializer(`${y}_mul`, 'int32', [1], [29]);
  b.initializer(`${y}_add`, 'int32', [1], [1 << 11]);
  b.node('RequantShift', [x, `${y}_mul`, `${y}_add`], [y], { div: float(2 ** 12), n_levels: float(256), signed: float(1) }, '');
}

async function check(name: string, c: KernelCase, expect: (lowered: Graph) => void): Promise<void> {
  const d = join(dir, name);
  const { model, sample, expected } = writeCase(d, c);
  for (const platform of ['siracusa', 'generic']) {
    const out = join(d, `out-${platform}`);
    const g = generateFirmware({ model, platform, out, sampleInputs: sample });
    expect(g.lowered);
    const emu = compareOutputs(g.manifest.outputs, (await runFirmware(out, c.inputs)).outputs, expected);
    assert.is(emu.errors, 0, `${platform}, emulated: ${emu.details.join('; ')}`);
    const host = compareOutputs(g.manifest.outputs, runHostC(out, c.inputs), expected);
    assert.is(host.errors, 0, `${platform}, host C: ${host.details.join('; ')}`);
    const iss = compareOutputs(g.manifest.outputs, (await runIss(out, c.inputs)).outputs, expected);
    assert.is(iss.errors, 0, `${platform}, ISS: ${iss.details.join('; ')}`);
  }
}

const matmuls = (g: Graph): Node[] => g.nodes.filter((n) => n.op === 'MatMul');

test('a constant B is stored n-major: transB on the MatMul, the data transposed, the outputs unchanged', async () => {
  const rng = new Rng(41);
  const b = new OnnxBuilder('nk').input('x', 'int8', [1, 10, 12]);
  b.initializer('w', 'int8', [12, 7], rng.ints(84, -128, 127));
  b.node('MatMul', ['x', 'w'], ['p']);
  requant(b, 'p', 'y');
  b.output('y', 'float32');
  await check('constant', { builder: b, inputs: [ndarray('int8', [1, 10, 12], rng.ints(120, -128, 127))] }, (g) => {
    const [m] = matmuls(g);
    assert.equal(m.attrs.transB, { kind: 'int', value: 1 });
    const w = g.tensors.get(m.inputs[1])!;
    assert.equal(w.shape, [7, 12]);
  });
});

test('a Transpose feeding B is re-permuted to the n-major order (attention K^T)', async () => {
  const rng = new Rng(42);
  const b = new OnnxBuilder('kt').input('q', 'int8', [1, 3, 9, 8]).input('k', 'int8', [1, 9, 3, 8]);
  b.node('Transpose', ['k'], ['kt'], { perm: [0, 2, 3, 1] });
  b.node('MatMul', ['q', 'kt'], ['p']);
  requant(b, 'p', 'y');
  b.output('y', 'float32');
  await check('transposed', { builder: b, inputs: [ndarray('int8', [1, 3, 9, 8], rng.ints(216, -128, 127)), ndarray('int8', [1, 9, 3, 8], rng.ints(216, -128, 127))] }, (g) => {
    const t = g.nodes.find((n) => n.op === 'Transpose')!;
    assert.equal(t.attrs.perm, { kind: 'ints', value: [0, 2, 1, 3] });
    assert.equal(matmuls(g)[0].attrs.transB, { kind: 'int', value: 1 });
  });
});

test('a Transpose whose n-major order is its source\'s own goes away', async () => {
  const rng = new Rng(43);
  const b = new OnnxBuilder('id').input('a', 'int8', [2, 6, 8]).input('v', 'int8', [2, 5, 8]);
  b.node('Transpose', ['v'], ['vt'], { perm: [0, 2, 1] });
  b.node('MatMul', ['a', 'vt'], ['p']);
  requant(b, 'p', 'y');
  b.output('y', 'float32');
  await check('identity', { builder: b, inputs: [ndarray('int8', [2, 6, 8], rng.ints(96, -128, 127)), ndarray('int8', [2, 5, 8], rng.ints(80, -128, 127))] }, (g) => {
    assert.ok(!g.nodes.some((n) => n.op === 'Transpose'), 'the Transpose is gone');
    const [m] = matmuls(g);
    assert.is(m.inputs[1], 'v');
    assert.equal(m.attrs.transB, { kind: 'int', value: 1 });
  });
});

test('a B with fewer than 4 k keeps its layout (no word to dot)', async () => {
  const rng = new Rng(44);
  const b = new OnnxBuilder('k3').input('x', 'int8', [5, 3]);
  b.initializer('w', 'int8', [3, 6], rng.ints(18, -128, 127));
  b.node('MatMul', ['x', 'w'], ['p']);
  requant(b, 'p', 'y');
  b.output('y', 'float32');
  await check('short-k', { builder: b, inputs: [ndarray('int8', [5, 3], rng.ints(15, -128, 127))] }, (g) => {
    assert.is(matmuls(g)[0].attrs.transB, undefined);
  });
});

test.after(cleanup);
test.run();
