/**
 * GEMMs with fewer output rows than cores split each row into column slices (kernels/gemm.ts gemmSplit), so a
 * classifier's single row runs on every core: the slices (hand-worked), the busiest core's work the tiler assumes, the
 * cycles the emulator charges for it, and the results, bit-exact against the reference on shapes that exercise every
 * AS path (dot products along k, 16-column blocks along n, scalar tails) and the C.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gemmBusiestColumns, gemmSplit } from '../../generator/kernels/gemm.js';
import { checkKernelCase, workDir } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

test('slices: whole rows from 8 rows on; else ceil(cores / rows) slices, widths above 16 in whole SIMD blocks', () => {
  assert.equal(gemmSplit(8, 100, 8), { chunks: 1, width: 100 });
  assert.equal(gemmSplit(1, 1, 8), { chunks: 1, width: 1 });
  // 1 x 10 on 8 cores: width ceil(10 / 8) = 2, so 5 slices of 2 columns (three cores idle, none does two slices).
  assert.equal(gemmSplit(1, 10, 8), { chunks: 5, width: 2 });
  // 1 x 100: width ceil(100 / 8) = 13 (<= 16, kept), 8 slices, the last 9 wide.
  assert.equal(gemmSplit(1, 100, 8), { chunks: 8, width: 13 });
  // 1 x 256: width 32, a multiple of 16: 8 slices.
  assert.equal(gemmSplit(1, 256, 8), { chunks: 8, width: 32 });
  // 3 x 50: ceil(8 / 3) = 3 slices wanted, width ceil(50 / 3) = 17 -> 32, so 2 slices (32 and 18): 6 units.
  assert.equal(gemmSplit(3, 50, 8), { chunks: 2, width: 32 });
  assert.equal(gemmSplit(1, 10, 1), { chunks: 1, width: 10 }, 'one core: whole rows');
});

test('the busiest core: contiguous ceil(units / cores) units, each its slice\'s real width', () => {
  assert.is(gemmBusiestColumns(1, 10, 8), 2);
  assert.is(gemmBusiestColumns(1, 100, 8), 13);
  assert.is(gemmBusiestColumns(3, 50, 8), 32);
  // 9 rows on 8 cores: whole rows, 2 per core for the first: 2 x 20 columns.
  assert.is(gemmBusiestColumns(9, 20, 8), 40);
  // 2 x 40: 4 slices of 16 wanted -> width ceil(40 / 4) = 10, 4 slices a row, 8 units: one each, 10 columns.
  assert.is(gemmBusiestColumns(2, 40, 8), 10);
});

const cases: { name: string; m: number; k: number; n: number; transB?: boolean }[] = [
  { name: '1 x 64 x 10 (miniMobileNet-like classifier), B k-major', m: 1, k: 64, n: 10 },
  { name: '1 x 48 x 100, B transposed (dot products along k)', m: 1, k: 48, n: 100, transB: true },
  { name: '3 x 40 x 50 (16-column blocks and tails)', m: 3, k: 40, n: 50 },
  { name: '1 x 20 x 256, B transposed', m: 1, k: 20, n: 256, transB: true },
];

for (const c of cases) {
  test(`${c.name}: exact on generic and siracusa, emulated and host C`, async () => {
    const rng = new Rng(c.m * 1000 + c.n);
    const w = rng.ints(c.k * c.n, -128, 127);
    const b = new OnnxBuilder('gemm-split')
      .input('a', 'int8', [c.m, c.k])
      .initializer('w', 'int8', c.transB ? [c.n, c.k] : [c.k, c.n], w);
    if (c.transB) b.node('Gemm', ['a', 'w'], ['y'], { transB: 1 });
    else b.node('MatMul', ['a', 'w'], ['y']);
    b.output('y', 'int32', [c.m, c.n]);
    const a = { shape: [c.m, c.k], dtype: 'int8' as const, data: Float64Array.from(rng.ints(c.m * c.k, -128, 127)) };
    const { dir, cleanup } = workDir('gemm-split');
    try {
      await checkKernelCase(join(dir, 'case'), { builder: b, inputs: [a] }, { kernel: 'gemm', op: c.transB ? 'Gemm' : 'MatMul', hostC: true });
    } finally {
      cleanup();
    }
  });
}

test.run();
