/**
 * The SIMD paths of the C kernels (conv.c.mustache and gemm.c.mustache `cdot`, runtime/c/include/firmgen_simd.h),
 * bit-exact against the reference interpreter in all three builds of the header: portable C on the host, XpulpV2
 * `.insn` instructions on the emulator's RV32 core (`--on iss` of a Siracusa folder; generic folders run the portable
 * rv32imc build there), and portable rv32imc under qemu (on a subset).
 * Cases: every window geometry of the tiling sweep (kernel, stride, dilation, pads per side, 1-D and 2-D), untiled on
 * generic and tiled on Siracusa; channel counts whose filters span several gather chunks and end in a tail that is
 * not a multiple of four; every signedness of activations and weights; GEMMs with odd column counts and k tails, with B
 * contiguous in k (transB) and in n (a product of two activations, `kdot`: rows alone and whole runs of rows).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { generateFirmware, type FirmwareOptions } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';
import { windowIndices, windowModel } from '../helpers/window-cases.js';

const { dir, cleanup } = workDir('c-simd');

async function check(name: string, c: KernelCase, platform: string, options: Partial<FirmwareOptions> = {}, qemu = false): Promise<void> {
  const { model, sample, expected } = writeCase(join(dir, name), c);
  const out = join(dir, name, 'out');
  const g = generateFirmware({ model, sampleInputs: sample, platform, out, ...options });
  const runs: [string, () => Promise<import('../../generator/ir/ndarray.js').NDArray[]>][] = [
    ['host', async () => runHostC(out, c.inputs)],
    // The RV32 core runs the XpulpV2 build on Siracusa (its cores have it), the plain rv32imc one on generic.
    [platform === 'siracusa' ? 'iss (XpulpV2)' : 'iss (rv32imc)', async () => (await runIss(out, c.inputs)).outputs],
  ];
  if (qemu) runs.push(['qemu', async () => runQemu(out, c.inputs).outputs]);
  for (const [where, run] of runs) {
    const cmp = compareOutputs(g.manifest.outputs, await run(), expected);
    assert.is(cmp.errors, 0, `${name} ${where}: ${cmp.details.slice(0, 3).join('; ')}`);
  }
}

test('every window geometry, 2-D untiled on Siracusa (XpulpV2 on the RV32 core) and 1-D on generic (portable)', async () => {
  // 16 input channels: every filter (16 to 144 taps) takes the SIMD path.
  await check('windows-2d', windowModel(['conv'], windowIndices(), { channels: 16 }), 'siracusa', { untiled: true }, true);
  await check('windows-1d', windowModel(['conv'], windowIndices(), { oneD: true, channels: 16 }), 'generic');
});

test('every window geometry of a depthwise conv (the row path): XpulpV2 on the RV32 core, host, qemu; 1-D on generic', async () => {
  await check('dw-windows-2d', windowModel(['depthwise'], windowIndices(), { channels: 4 }), 'siracusa', { untiled: true }, true);
  await check('dw-windows-1d', windowModel(['depthwise'], windowIndices(), { oneD: true, channels: 4 }), 'generic');
});

test('depthwise row path, every signedness pair, tiled', async () => {
  const types: [IntType, IntType][] = [['int8', 'int8'], ['uint8', 'int8'], ['int8', 'uint8'], ['uint8', 'uint8']];
  let seed = 300;
  for (const [xt, wt] of types) {
    const rng = new Rng(seed++);
    const b = new OnnxBuilder('dw').input('x', xt, [1, 6, 9, 13]);
    b.initializer('w', wt, [6, 1, 3, 3], randomValues(rng, wt, [6, 1, 3, 3]).data);
    b.node('Conv', ['x', 'w'], ['y'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group: 6 }).output('y', 'int32');
    await check(`dw-${xt}-${wt}`, { builder: b, inputs: [randomValues(rng, xt, [1, 6, 9, 13])] }, 'siracusa', { l1: 4000 });
  }
});

test('every window geometry tiled on Siracusa in a small L1', async () => {
  await check('windows-tiled', windowModel(['conv'], windowIndices(2), { channels: 16 }), 'siracusa', { l1: 6000 });
});

/** A conv of `c` input channels (filters of c x k x k taps: several 256-byte chunks when large) on x, w types. */
function convCase(c: number, k: number, co: number, xt: IntType, wt: IntType, seed: number): KernelCase {
  const rng = new Rng(seed);
  const b = new OnnxBuilder('conv').input('x', xt, [1, c, 9, 7]);
  b.initializer('w', wt, [co, c, k, k], randomValues(rng, wt, [co, c, k, k], 40).data);
  b.initializer('bias', 'int32', [co], rng.ints(co, -5000, 5000));
  b.node('Conv', ['x', 'w', 'bias'], ['y'], { kernel_shape: [k, k], pads: [1, 0, 2, 1], strides: [1, 2] }).output('y', 'int32');
  return { builder: b, inputs: [randomValues(rng, xt, [1, c, 9, 7], 60)] };
}

test('filters over several gather chunks with tails, every signedness pair', async () => {
  const types: [IntType, IntType][] = [['int8', 'int8'], ['uint8', 'int8'], ['int8', 'uint8'], ['uint8', 'uint8']];
  let seed = 1;
  for (const [xt, wt] of types) {
    await check(`conv-${xt}-${wt}-c37k3`, convCase(37, 3, 7, xt, wt, seed++), 'siracusa', { untiled: true });
    await check(`conv-${xt}-${wt}-c301k1`, convCase(301, 1, 5, xt, wt, seed++), 'siracusa');
  }
});

test('GEMM with B contiguous in k (transB): odd columns, k tails, every signedness pair', async () => {
  const types: [IntType, IntType][] = [['int8', 'int8'], ['uint8', 'int8'], ['int8', 'uint8'], ['uint8', 'uint8']];
  let seed = 100;
  for (const [at, bt] of types) {
    // 37 and 16 rows: several rows per core, so pairs of rows take the 4x2 block (odd row counts leave one alone).
    for (const [m, k, n] of [[3, 37, 9], [1, 256, 17], [5, 6, 1], [37, 21, 11], [16, 40, 6]]) {
      const rng = new Rng(seed++);
      const b = new OnnxBuilder('gemm').input('a', at, [m, k]);
      b.initializer('b', bt, [n, k], randomValues(rng, bt, [n, k], 50).data);
      b.node('Gemm', ['a', 'b'], ['y'], { transB: 1 }).output('y', 'int32');
      await check(`gemm-${at}-${bt}-${m}x${k}x${n}`, { builder: b, inputs: [randomValues(rng, at, [m, k], 50)] }, m === 5 ? 'generic' : 'siracusa');
    }
  }
});

test('MatMul of two activations (B contiguous in n: rows transposed in registers): odd columns, k tails, every signedness pair', async () => {
  const types: [IntType, IntType][] = [['int8', 'int8'], ['uint8', 'int8'], ['int8', 'uint8'], ['uint8', 'uint8']];
  let seed = 300;
  for (const [at, bt] of types) {
    // Columns in groups of four and left over (7, 13), k with and without a tail of 1..3 (37, 6, 64), several rows.
    for (const [m, k, n] of [[3, 37, 7], [1, 64, 4], [9, 6, 13]]) {
      const rng = new Rng(seed++);
      const b = new OnnxBuilder('matmul').input('a', at, [m, k]).input('b', bt, [k, n]);
      b.node('MatMul', ['a', 'b'], ['y']).output('y', 'int32');
      const inputs = [randomValues(rng, at, [m, k]), randomValues(rng, bt, [k, n])];
      const name = `matmul-${at}-${bt}-${m}x${k}x${n}`;
      await check(name, { builder: b, inputs }, 'siracusa', {}, m === 1);
      assert.ok(readFileSync(join(dir, name, 'out', 'c', 'network.c'), 'utf8').includes('fg_transpose4('), `${name}: the kdot path`);
    }
  }
});

test('MatMul of two activations, a core\'s whole rows of a batch (B\'s columns copied once, kdot.runs): 4x2 block and 1x2 loop, odd runs, k tails, every signedness pair', async () => {
  const types: [IntType, IntType][] = [['int8', 'int8'], ['uint8', 'int8'], ['int8', 'uint8'], ['uint8', 'uint8']];
  let seed = 400;
  for (const [at, bt] of types) {
    // [batch, m, k, n]: four-column groups and an odd last column with a k tail of 1; k past 128 (column pairs only,
    // the 1x2 loop) with runs of odd length that cross batches; odd rows per batch with a k of two words.
    for (const [h, m, k, n] of [[2, 24, 37, 7], [3, 11, 160, 10], [2, 17, 8, 4]]) {
      const rng = new Rng(seed++);
      const b = new OnnxBuilder('matmul').input('a', at, [h, m, k]).input('b', bt, [h, k, n]);
      b.node('MatMul', ['a', 'b'], ['y']).output('y', 'int32');
      const inputs = [randomValues(rng, at, [h, m, k]), randomValues(rng, bt, [h, k, n])];
      const name = `matmul-runs-${at}-${bt}-${h}x${m}x${k}x${n}`;
      await check(name, { builder: b, inputs }, 'siracusa', {}, h === 2 && m === 17);
      assert.ok(readFileSync(join(dir, name, 'out', 'c', 'network.c'), 'utf8').includes('fg_cols2('), `${name}: the runs path`);
    }
  }
});

test('MaxPool 2x2 stride 2 on words: int8 and uint8, odd widths, a partial last window (ceil_mode)', async () => {
  let seed = 200;
  for (const t of ['int8', 'uint8'] as IntType[]) {
    for (const [h, w, ceil] of [[6, 8, 0], [5, 11, 0], [7, 9, 1], [4, 3, 0]]) {
      const rng = new Rng(seed++);
      const b = new OnnxBuilder('maxpool').input('x', t, [1, 3, h, w]);
      b.node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: ceil });
      const ho = ceil ? Math.ceil((h - 2) / 2) + 1 : Math.floor((h - 2) / 2) + 1;
      const wo = ceil ? Math.ceil((w - 2) / 2) + 1 : Math.floor((w - 2) / 2) + 1;
      b.output('y', t, [1, 3, ho, wo]);
      const c = { builder: b, inputs: [randomValues(rng, t, [1, 3, h, w])] };
      await check(`maxpool-${t}-${h}x${w}-${ceil}`, c, 'siracusa', { untiled: true });
      await check(`maxpool-${t}-${h}x${w}-${ceil}-generic`, c, 'generic');
    }
  }
});

test.after(cleanup);

test.run();
