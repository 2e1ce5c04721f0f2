import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { checkKernelCase, workDir, type KernelCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

/**
 * The AS conv and GEMM kernels' wasm SIMD paths (16/8 outputs at a time, dot products along k, 16 columns of a B
 * row) on random shapes chosen so that the paths run, with their scalar borders and tails, against the reference
 * interpreter on both platforms: they must stay bit-exact.
 */
const { dir, cleanup } = workDir('k-simd');

function maybeRequant(b: OnnxBuilder, rng: Rng, x: string, y: string): void {
  if (rng.next() < 0.4) {
    b.output(x, 'int32');
    return;
  }
  const s = rng.int(4, 12);
  b.initializer(`${y}_mul`, 'int32', [1], [rng.int(1, 200)]);
  b.initializer(`${y}_add`, 'int32', [1], [rng.int(-(2 ** s), 2 ** s)]);
  const signed = rng.next() < 0.7;
  b.node('RequantShift', [x, `${y}_mul`, `${y}_add`], [y], { div: float(2 ** s), n_levels: float(256), signed: float(signed ? 1 : 0) });
  b.output(y, 'float32');
}

function convCase(rng: Rng): KernelCase {
  const xt = rng.pick<IntType>(['int8', 'uint8']);
  const wt = rng.pick<IntType>(['int8', 'int8', 'uint8']);
  const depthwise = rng.next() < 0.25;
  const C = rng.int(1, 5);
  const CO = depthwise ? C : rng.int(1, 5);
  const KH = rng.int(1, 3);
  const KW = rng.int(1, 5);
  const DX = rng.int(1, 2);
  const SY = rng.int(1, 2);
  const H = rng.int(KH, 5);
  // Wide enough that at least 8 outputs see only inside taps: the SIMD path runs.
  const W = 8 + DX * (KW - 1) + rng.int(0, 30);
  const pads = [rng.int(0, KH - 1), rng.int(0, KW - 1), rng.int(0, KH - 1), rng.int(0, KW - 1)];
  const b = new OnnxBuilder('conv').input('x', xt, [1, C, H, W]);
  const wShape = [CO, depthwise ? 1 : C, KH, KW];
  b.initializer('w', wt, wShape, randomValues(rng, wt, wShape).data);
  const inputs = ['x', 'w'];
  if (rng.next() < 0.5) {
    b.initializer('bias', 'int32', [CO], rng.ints(CO, -3000, 3000));
    inputs.push('bias');
  }
  b.node('Conv', inputs, ['c'], { kernel_shape: [KH, KW], pads, strides: [SY, 1], dilations: [1, DX], group: depthwise ? C : 1 });
  maybeRequant(b, rng, 'c', 'y');
  return { builder: b, inputs: [randomValues(rng, xt, [1, C, H, W])] };
}

function gemmCase(rng: Rng): KernelCase {
  const at = rng.pick<IntType>(['int8', 'uint8']);
  const bt = rng.pick<IntType>(['int8', 'int8', 'uint8']);
  const M = rng.int(1, 4);
  const K = rng.int(1, 70);
  const N = rng.int(1, 40);
  const gemm = rng.next() < 0.5;
  const batch = !gemm && rng.next() < 0.4 ? [2] : [];
  const b = new OnnxBuilder('gemm').input('a', at, [...batch, M, K]);
  const wShape = gemm ? [N, K] : [K, N];
  b.initializer('w', bt, wShape, randomValues(rng, bt, wShape).data);
  if (gemm) {
    const withC = rng.next() < 0.5;
    if (withC) b.initializer('bias', 'int32', [N], rng.ints(N, -3000, 3000));
    b.node('Gemm', withC ? ['a', 'w', 'bias'] : ['a', 'w'], ['p'], { transB: 1 });
  } else {
    b.node('MatMul', ['a', 'w'], ['p']);
  }
  maybeRequant(b, rng, 'p', 'y');
  return { builder: b, inputs: [randomValues(rng, at, [...batch, M, K])] };
}

function usesSimd(caseDir: string): boolean {
  return /i32x4\.(dot_i16x8_s|extmul_low_i16x8_s)/.test(readFileSync(join(caseDir, 'siracusa', 'as', 'network.ts'), 'utf8'));
}

for (let seed = 1; seed <= 8; seed++) {
  test(`conv SIMD path matches the reference (seed ${seed})`, async () => {
    const d = join(dir, `conv${seed}`);
    await checkKernelCase(d, convCase(new Rng(seed * 7919)), { op: 'Conv', kernel: 'conv2d', hostC: seed <= 2 });
    assert.ok(usesSimd(d), 'the SIMD path was generated');
  });
  test(`gemm SIMD paths match the reference (seed ${seed})`, async () => {
    const d = join(dir, `gemm${seed}`);
    const c = gemmCase(new Rng(seed * 6151));
    const op = c.builder.graph().nodes[0].op;
    await checkKernelCase(d, c, { op, kernel: 'gemm', hostC: seed <= 2 });
    assert.ok(usesSimd(d), 'a SIMD path was generated');
  });
}

test.after(cleanup);
test.run();
