import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import type { IntType } from '../../generator/ir/dtype.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { checkKernelCase, workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

/** MaxPool on random 1-D and 2-D geometries and input types, against the reference interpreter. */
const { dir, cleanup } = workDir('k-maxpool');

function maxPoolCase(rng: Rng, types: IntType[] = ['int8', 'uint8', 'int16', 'int32']): KernelCase {
  const twoD = rng.next() < 0.6;
  const dtype = rng.pick<IntType>(types);
  const N = rng.int(1, 2);
  const C = rng.int(1, 4);
  const spatial = twoD ? [rng.int(3, 10), rng.int(3, 10)] : [rng.int(3, 24)];
  const r = spatial.length;
  const k = spatial.map((s) => rng.int(1, Math.min(4, s)));
  const d = k.map((kk, i) => (kk > 1 && rng.next() < 0.3 && (kk - 1) * 2 + 1 <= spatial[i] ? 2 : 1));
  const s = k.map(() => rng.int(1, 3));
  // Pads up to the window's reach: every window keeps at least one input position.
  const pads = [...k, ...k].map((kk, i) => rng.int(0, Math.min((kk - 1) * d[i % r], 2)));
  const shape = [N, C, ...spatial];
  const b = new OnnxBuilder('maxpool').input('x', dtype, shape);
  const attrs: Record<string, number | number[]> = { kernel_shape: k, strides: s, pads, ceil_mode: rng.next() < 0.3 ? 1 : 0 };
  if (d.some((v) => v > 1) || rng.next() < 0.5) attrs.dilations = d;
  b.node('MaxPool', ['x'], ['y'], attrs).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape)] };
}

for (let seed = 1; seed <= 10; seed++) {
  test(`MaxPool matches the reference (seed ${seed})`, async () => {
    await checkKernelCase(join(dir, `s${seed}`), maxPoolCase(new Rng(seed * 104729)), { op: 'MaxPool', kernel: 'maxpool', hostC: seed <= 2 });
  });
}

/** A 2x2 stride-2 pool whose rows end in an unpaired output and whose last row (ceil_mode) has one input row. */
function pairedCase(rng: Rng, dtype: IntType): KernelCase {
  const shape = [1, 3, 7, 10];
  const b = new OnnxBuilder('maxpool2x2').input('x', dtype, shape);
  b.node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 }).output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, dtype, shape)] };
}

test('the C on the RV32 core: XpulpV2 (p.max, pv.max.b) on Siracusa, portable rv32imc on generic, paired and scalar windows', async () => {
  const cases: [string, KernelCase][] = [
    ['paired-s8', pairedCase(new Rng(5), 'int8')],
    ['paired-u8', pairedCase(new Rng(6), 'uint8')],
    ...[1, 2, 3, 4, 5, 6].map((seed): [string, KernelCase] => [`random${seed}`, maxPoolCase(new Rng(seed * 7919), ['int8', 'uint8', 'int16'])]),
  ];
  for (const [name, c] of cases) {
    for (const platform of ['siracusa', 'generic']) {
      const { model, sample, expected } = writeCase(join(dir, `iss-${name}-${platform}`), c);
      const out = join(dir, `iss-${name}-${platform}`, 'out');
      const g = generateFirmware({ model, sampleInputs: sample, platform, out });
      const cmp = compareOutputs(g.manifest.outputs, (await runIss(out, c.inputs)).outputs, expected);
      assert.is(cmp.errors, 0, `${name} on ${platform}: ${cmp.details.slice(0, 3).join('; ')}`);
    }
  }
});

test('a window entirely in the padding is refused with a clear error', () => {
  const b = new OnnxBuilder('allpad').input('x', 'int8', [1, 1, 4, 4]);
  b.node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], pads: [2, 0, 0, 0] }).output('y', 'float32');
  const model = join(dir, 'allpad.onnx');
  writeFileSync(model, b.bytes());
  try {
    generateFirmware({ model, platform: 'generic', out: join(dir, 'allpad') });
    assert.unreachable('generation should fail');
  } catch (e) {
    assert.instance(e, GenError);
    // Outside ONNX's domain (a pad not smaller than the window): the model validation refuses it at load.
    assert.is((e as GenError).kind, 'model');
    assert.match((e as GenError).message, /entirely in the padding/);
  }
});

test.after(cleanup);
test.run();
