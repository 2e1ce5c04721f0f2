import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import type { IntType } from '../../generator/ir/dtype.js';
import { ndarray, sizeOf } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { checkKernelCase, workDir, type KernelCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

/**
 * ReduceSum / ReduceMean / IntegerMean over random axis sets of rank-1..4 tensors (every axis set of rank <= 4
 * merges into at most two kept and two reduced loops), axes as attribute or input, keepdims on and off, and
 * input types up to int32 so the 64-bit accumulator is exercised too.
 */
const { dir, cleanup } = workDir('k-reduce');
const OPS = ['ReduceSum', 'ReduceMean', 'IntegerMean'] as const;

function reduceCase(rng: Rng, op: (typeof OPS)[number]): KernelCase {
  const rank = rng.int(1, 4);
  const shape = Array.from({ length: rank }, () => rng.int(1, 6));
  let axes = shape.map((_, i) => i).filter(() => rng.next() < 0.5);
  if (axes.length === 0) axes = [rng.int(0, rank - 1)];
  const L = sizeOf(axes.map((a) => shape[a]));
  const spelled = axes.map((a) => (rng.next() < 0.3 ? a - rank : a));
  const dtype = rng.pick<IntType>(['int8', 'uint8', 'int16', 'int32']);
  // A sum must stay an int32 (SEMANTICS.md: ReduceSum gives int32); a mean may sum past it in 64 bits.
  const limit = op === 'ReduceSum' ? Math.floor(2147483647 / L) : undefined;
  const b = new OnnxBuilder('reduce').input('x', dtype, shape);
  const attrs: Record<string, number | number[]> = { keepdims: rng.int(0, 1) };
  const inputs = ['x'];
  if (op !== 'IntegerMean' && rng.next() < 0.4) {
    b.initializer('axes', 'int64', [spelled.length], spelled);
    inputs.push('axes');
  } else {
    attrs.axes = spelled;
  }
  b.node(op, inputs, ['y'], attrs).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape, limit)] };
}

OPS.forEach((op, k) => {
  for (let seed = 1; seed <= 8; seed++) {
    test(`${op} matches the reference (seed ${seed})`, async () => {
      const rng = new Rng(seed * 7907 + k);
      await checkKernelCase(join(dir, `${op}_${seed}`), reduceCase(rng, op), { op, kernel: 'reduce', hostC: seed === 1 });
    });
  }
});

test('a mean over a non-power-of-two count rounds half away from zero, sign(0) = +1', async () => {
  // Row sums 3, -3, 0, 2 and -7 over L = 6: exact halves both ways, zero, and ordinary rounding.
  const b = new OnnxBuilder('mean6').input('x', 'int8', [5, 6]);
  b.node('ReduceMean', ['x'], ['y'], { axes: [1], keepdims: 0 }).output('y', 'float32');
  const rows = [[3, 0, 0, 0, 0, 0], [-3, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0], [-128, 127, -6, 0, 0, 0]];
  const x = ndarray('int8', [5, 6], rows.flat());
  await checkKernelCase(join(dir, 'mean6'), { builder: b, inputs: [x] }, { op: 'ReduceMean', kernel: 'reduce' });
  const y = runReference(loadOnnxFile(join(dir, 'mean6', 'model.onnx')), [x]).get('y')!;
  assert.equal(Array.from(y.data), [1, -1, 0, 0, -1]);
});

test('axes that need three reduced loops are refused with a clear error', () => {
  const b = new OnnxBuilder('rank5').input('x', 'int8', [2, 3, 2, 3, 2]);
  b.node('ReduceSum', ['x'], ['y'], { axes: [0, 2, 4], keepdims: 1 }).output('y', 'float32');
  const model = join(dir, 'rank5.onnx');
  writeFileSync(model, b.bytes());
  try {
    generateFirmware({ model, platform: 'generic', out: join(dir, 'rank5') });
    assert.unreachable('generation should fail');
  } catch (e) {
    assert.instance(e, GenError);
    assert.is((e as GenError).kind, 'unsupported');
    assert.match((e as GenError).message, /axes \[0, 2, 4\]/);
  }
});

test.after(cleanup);
test.run();
