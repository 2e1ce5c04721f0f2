/**
 * Gemmini's matrix-product kernel against the reference interpreter: shapes that are not multiples of 16 and tiles
 * that split I, J and K (more than one loop_ws per product, accumulation across k tiles), transposed operands, bias
 * rows and bias matrices of int8 and int32, int8 and int32 results, uint8 activations (lower-array.ts: offset by 128,
 * corrected in the bias); the layer must have been given the array's kernel, and the host-built C must agree too, on
 * the core and issuing the commands to the C model of the accelerator (firmgen_gemmini.h's command path).
 * Products the array cannot take (int16 results) fall back to the host core, still exact.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { loopWsTiles } from '../../generator/platforms/gemmini/tiles.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runGemminiModelC, rv64RoccFuncts } from '../helpers/gemmini-c.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('gemmini');

interface Case {
  m: number;
  k: number;
  n: number;
  transA?: boolean;
  transB?: boolean;
  bias?: 'row' | 'matrix';
  biasType?: IntType;
  aType?: IntType;
  /** Operand magnitude: small ones give results that fit int8 or int16. */
  limit?: number;
  onArray: boolean;
}

let seed = 1;
async function check(name: string, c: Case): Promise<void> {
  const rng = new Rng(seed++);
  const aType = c.aType ?? 'int8';
  const limit = c.limit ?? 127;
  const aShape = c.transA ? [c.k, c.m] : [c.m, c.k];
  const bShape = c.transB ? [c.n, c.k] : [c.k, c.n];
  const b = new OnnxBuilder('gemm').input('a', aType, aShape);
  b.initializer('b', 'int8', bShape, randomValues(rng, 'int8', bShape, limit).data);
  const ins = ['a', 'b'];
  if (c.bias) {
    const shape = c.bias === 'row' ? [c.n] : [c.m, c.n];
    const t = c.biasType ?? 'int32';
    b.initializer('c', t, shape, t === 'int8' ? randomValues(rng, 'int8', shape).data : rng.ints(shape.reduce((x, y) => x * y, 1), -100000, 100000));
    ins.push('c');
  }
  b.node('Gemm', ins, ['y'], { transA: c.transA ? 1 : 0, transB: c.transB ? 1 : 0 }).output('y', 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, aType, aShape, limit)] };
  const w = writeCase(join(dir, name), kc);
  const out = join(dir, name, 'out');
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out });
  const kernel = g.layers.find((l) => l.kernel !== 'alias' && l.node.op === 'Gemm');
  assert.is(kernel && kernel.kernel !== 'alias' ? kernel.kernel.name : '', c.onArray ? 'gemmini-matmul' : 'gemm', `${name}: kernel`);
  const r = await runFirmware(out, kc.inputs);
  const emu = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
  assert.is(emu.errors, 0, `${name} emulated: ${emu.details.join('; ')}`);
  const host = compareOutputs(g.manifest.outputs, runHostC(out, kc.inputs), w.expected);
  assert.is(host.errors, 0, `${name} host C: ${host.details.join('; ')}`);
  if (c.onArray) {
    const model = compareOutputs(g.manifest.outputs, runGemminiModelC(out, kc.inputs), w.expected);
    assert.is(model.errors, 0, `${name} C commands on the model: ${model.details.join('; ')}`);
  }
  lastOut = out;
}
let lastOut = '';

test('tile sizes fit half the scratchpad and half the accumulator and grow to the product', () => {
  assert.equal(loopWsTiles({ I: 1, J: 1, K: 1 }), { I: 1, J: 1, K: 1 });
  const t = loopWsTiles({ I: 40, J: 40, K: 40 });
  assert.ok((t.I * t.K + t.K * t.J) * 16 <= 8192 && t.I * t.J * 16 <= 512, JSON.stringify(t));
  assert.ok(t.I > 1 && t.J > 1 && t.K > 1);
});

test('products on the array: edges, several tiles, transposes, biases, int8 and int32 results', async () => {
  await check('37x53x29', { m: 37, k: 53, n: 29, onArray: true });
  await check('k-tiles', { m: 20, k: 700, n: 18, bias: 'row', onArray: true });
  await check('ij-tiles', { m: 150, k: 40, n: 140, bias: 'matrix', onArray: true });
  await check('transA', { m: 33, k: 70, n: 17, transA: true, onArray: true });
  await check('transB-int8-bias', { m: 5, k: 123, n: 40, transB: true, bias: 'row', biasType: 'int8', onArray: true });
  await check('int8-result', { m: 19, k: 2, n: 21, limit: 5, onArray: true });
});

test('uint8 activations on the array: offset by 128, 128 times the weights\' column sums added to the bias', async () => {
  await check('uint8-a', { m: 9, k: 40, n: 7, aType: 'uint8', limit: 255, onArray: true });
  await check('uint8-a-transB-bias', { m: 20, k: 300, n: 33, aType: 'uint8', limit: 255, transB: true, bias: 'row', onArray: true });
  await check('uint8-a-int8-bias-matrix', { m: 17, k: 50, n: 18, aType: 'uint8', limit: 255, bias: 'matrix', biasType: 'int8', onArray: true });
});

test('profile: the array\'s busy cycles are its computes\' 16-cycle streams, in the product\'s layer only', async () => {
  // 64x256x128: 4 x 8 x 16 = 512 blocks of 16x16x16, one compute each (docs/gemmini.md "Timing", measured).
  const rng = new Rng(99);
  const b = new OnnxBuilder('mm').input('a', 'int8', [64, 256]);
  b.initializer('b', 'int8', [256, 128], randomValues(rng, 'int8', [256, 128]).data);
  b.node('MatMul', ['a', 'b'], ['m']);
  b.initializer('k', 'int32', [1], [3]);
  b.node('Mul', ['m', 'k'], ['y']).output('y', 'int32');
  const kc = { builder: b, inputs: [randomValues(rng, 'int8', [64, 256])] };
  const w = writeCase(join(dir, 'profile'), kc);
  const out = join(dir, 'profile', 'out');
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out });
  const r = await runFirmware(out, kc.inputs);
  assert.is(compareOutputs(g.manifest.outputs, r.outputs, w.expected).errors, 0);
  const [mm, mul] = r.profile.layers;
  assert.is(mm.kernel, 'gemmini-matmul');
  assert.is(mm.arrayCycles, 512 * 16);
  assert.ok(mm.arrayBusy !== null && Math.abs(mm.arrayBusy - 8192 / mm.cycles) < 1e-12);
  assert.ok(mm.arrayBusy > 0.7 && mm.arrayBusy <= 1, `array busy ${mm.arrayBusy}`);
  assert.is(mul.arrayCycles, 0);
  assert.is(mul.arrayBusy, null);
  assert.is(r.profile.total.arrayCycles, 8192);
});

test('the board build holds loop_ws as RoCC custom-3 instructions (config, loop_ws bounds, addresses, strides, loop)', () => {
  const functs = new Set(rv64RoccFuncts(lastOut));
  for (const f of [0, 8, 9, 10, 11, 12, 13]) assert.ok(functs.has(f), `funct ${f} in the rv64 image (${[...functs].join(', ')})`);
});

test('products the array cannot take stay on the host core, exact', async () => {
  await check('int16-result', { m: 9, k: 8, n: 7, limit: 20, onArray: false });
  // Weight-stationary transposes A or B, not both (a fuzz finding: the array was given both and config_ex faulted).
  await check('transA-transB', { m: 12, k: 20, n: 9, transA: true, transB: true, onArray: false });
});

test.after(cleanup);

test.run();
