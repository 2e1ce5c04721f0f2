import { join } from 'node:path';
import { test } from 'uvu';
import type { IntType } from '../../generator/ir/dtype.js';
import { sizeOf } from '../../generator/ir/ndarray.js';
import { checkKernelCase, workDir, type KernelCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

/**
 * iRMSNorm and iLayerNorm on random row shapes, input types (int16 pushes the sums of squares past 32 bits),
 * parameter shapes (per column, full shape, per row) and D, against the reference interpreter.
 */
const { dir, cleanup } = workDir('k-norm');

function shapes(rng: Rng): { x: number[]; param: () => number[] } {
  const rank = rng.int(1, 3);
  const x = Array.from({ length: rank }, (_, i) => (i === rank - 1 ? rng.int(1, 48) : rng.int(1, 4)));
  // Parameters broadcast as numpy does: per column, the full shape, or per row (trailing 1).
  const param = (): number[] => {
    const k = rng.int(0, rank > 1 ? 2 : 1);
    if (k === 0) return [x[rank - 1]];
    if (k === 1) return [...x];
    return [...x.slice(0, rank - 1), 1];
  };
  return { x, param };
}

function rmsCase(rng: Rng): KernelCase {
  const { x, param } = shapes(rng);
  const dtype = rng.pick<IntType>(['int8', 'int8', 'uint8', 'int16']);
  const wShape = param();
  const wType = rng.pick<IntType>(['int8', 'int16', 'int32']);
  const b = new OnnxBuilder('rmsnorm').input('x', dtype, x);
  b.initializer('w', wType, wShape, randomValues(rng, wType, wShape, 1 << 20).data);
  b.node('iRMSNorm', ['x', 'w'], ['y'], { D: 2 ** rng.int(0, 20), n_levels: 256 }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, x)] };
}

function layerNormCase(rng: Rng): KernelCase {
  const { x, param } = shapes(rng);
  const dtype = rng.pick<IntType>(['int8', 'int8', 'uint8', 'int16']);
  const wShape = param();
  const bShape = param();
  const b = new OnnxBuilder('layernorm').input('x', dtype, x);
  b.initializer('w', 'int32', wShape, rng.ints(sizeOf(wShape), -(1 << 12), 1 << 12));
  b.initializer('b', 'int32', bShape, rng.ints(sizeOf(bShape), -(1 << 16), 1 << 16));
  b.node('iLayerNorm', ['x', 'w', 'b'], ['y'], { D: 2 ** rng.int(0, 12), n_levels: 256 }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, x)] };
}

for (let seed = 1; seed <= 8; seed++) {
  test(`iRMSNorm matches the reference (seed ${seed})`, async () => {
    await checkKernelCase(join(dir, `rms_${seed}`), rmsCase(new Rng(seed * 4993)), { op: 'iRMSNorm', kernel: 'irmsnorm', hostC: seed === 1 });
  });
  test(`iLayerNorm matches the reference (seed ${seed})`, async () => {
    const c = layerNormCase(new Rng(seed * 8117));
    await checkKernelCase(join(dir, `ln_${seed}`), c, { op: 'iLayerNorm', kernel: 'ilayernorm', hostC: seed === 1 });
  });
}

test.after(cleanup);
test.run();
