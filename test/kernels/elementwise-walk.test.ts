/**
 * The elementwise loops' operands walked by post-increment (kernels/parts.ts walkOf, firmgen_simd.h FG_NEXT / FG_PUT):
 * which operands walk and with which access, that a walked operand keeps no index step in the loop, that the copies keep
 * their indexed loop, and that the walked loops compute the reference's values on every build (the AS firmware, the C
 * on the emulator's RV32 cores with XpulpV2's p.lb / p.lh / p.lw / p.sb, the host C; generic's portable pointer walk on
 * its core), at element types of every width code, an operand broadcast along the inner loop and a nest whose short
 * inner loop swapped places (a stride of 2).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { IDENTITY, renderPart, type PartSpec } from '../../generator/kernels/parts.js';
import type { DType } from '../../generator/ir/dtype.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { checkEveryBuild, workDir, writeCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const site = { node: 'n', op: 'Add' };
const part = (dtype: DType, out: DType, inner: number): PartSpec => ({
  dims: [8, 16],
  leaves: [{ field: 'in0', dtype, strides: [inner * 16, inner], offset: 0, range: { min: 0, max: 100 } }],
  out: { field: 'y', dtype: out, strides: [16, 1], offset: 0 },
  expr: IDENTITY,
});
type Walk = { f3: number; step: number } | false;
const walks = (view: Record<string, unknown>): { leaf: Walk; out: Walk } => ({
  leaf: (view.leaves as { walk: Walk }[])[0].walk,
  out: view.outWalk as Walk,
});

test('each type walks with its access (lb 0, lh 1, lw 2, lbu 4, lhu 5; sb 0, sh 1, sw 2)', () => {
  const cases: [DType, DType, number, number][] = [['int8', 'int8', 0, 0], ['uint8', 'uint8', 4, 0], ['int16', 'int16', 1, 1], ['uint16', 'int32', 5, 2], ['int32', 'int16', 2, 1]];
  for (const [leaf, out, load, store] of cases) {
    const w = walks(renderPart(part(leaf, out, 1), site));
    assert.equal(w.leaf, { f3: load, step: 1 }, `${leaf} load`);
    assert.equal(w.out, { f3: store, step: 1 }, `${out} store`);
  }
});

test('a step past the 12-bit immediate in bytes is indexed; so are the copies', () => {
  assert.equal(walks(renderPart(part('int8', 'int8', 2047), site)).leaf, { f3: 0, step: 2047 });
  assert.is(walks(renderPart(part('int8', 'int8', 2048), site)).leaf, false);
  // 1024 int16 elements are 2,048 bytes.
  assert.is(walks(renderPart(part('int16', 'int8', 1024), site)).leaf, false);
  assert.equal(walks(renderPart(part('int16', 'int8', -1024), site)).leaf, { f3: 1, step: -1024 });
  const copy = walks(renderPart(part('int8', 'int8', 1), site, { walk: false }));
  assert.is(copy.leaf, false);
  assert.is(copy.out, false);
});

test('only an operand indexed in the inner loop steps its index there', () => {
  const stepped = (view: Record<string, unknown>): boolean[] => (view.operands as { stepped: boolean }[]).map((o) => o.stepped);
  // operand 0 the leaf, 1 the output
  assert.equal(stepped(renderPart(part('int8', 'int8', 1), site)), [false, false], 'both walk');
  assert.equal(stepped(renderPart(part('int8', 'int8', 2048), site)), [true, false], 'the leaf indexed');
  assert.equal(stepped(renderPart(part('int8', 'int8', 0), site)), [false, false], 'the leaf invariant');
  assert.equal(stepped(renderPart(part('int8', 'int8', 1), site, { walk: false })), [true, true], 'a copy indexes both');
});

const { dir, cleanup } = workDir('elementwise-walk');

const CASES: { name: string; x: DType; y: DType; shape: number[]; yShape: number[]; requant: boolean }[] = [
  { name: 'int8 plus int8 requantized', x: 'int8', y: 'int8', shape: [1, 8, 40], yShape: [1, 8, 40], requant: true },
  { name: 'uint8 plus a broadcast row', x: 'uint8', y: 'int8', shape: [1, 6, 36], yShape: [1, 1, 36], requant: true },
  { name: 'int16 plus int16 to int32', x: 'int16', y: 'int16', shape: [1, 4, 50], yShape: [1, 4, 50], requant: false },
  { name: 'short inner runs swapped (stride 2)', x: 'int8', y: 'int8', shape: [1, 90, 2], yShape: [1, 90, 2], requant: true },
];

const valuesOf = (rng: Rng, dtype: DType, n: number): number[] =>
  dtype === 'uint8' ? rng.ints(n, 0, 255) : dtype === 'int16' ? rng.ints(n, -3000, 3000) : rng.ints(n, -128, 127);

for (const c of CASES) {
  test(`${c.name}: walked on the XpulpV2 build, every build equal to the reference`, async () => {
    const rng = new Rng(c.name.length * 31 + 7);
    const b = new OnnxBuilder(c.name).input('x', c.x, c.shape).input('y', c.y, c.yShape);
    b.node('Add', ['x', 'y'], ['s']);
    if (c.requant) {
      b.initializer('m', 'int32', [1], [23]).initializer('a', 'int32', [1], [64]);
      b.node('RequantShift', ['s', 'm', 'a'], ['z'], { div: float(128), n_levels: float(256), signed: float(1) });
      b.output('z', 'float32');
    } else {
      b.output('s', 'int32');
    }
    const inputs = [
      ndarray(c.x, c.shape, valuesOf(rng, c.x, c.shape.reduce((p, q) => p * q, 1))),
      ndarray(c.y, c.yShape, valuesOf(rng, c.y, c.yShape.reduce((p, q) => p * q, 1))),
    ];
    const w = writeCase(join(dir, c.name.replace(/[^a-z0-9]+/gi, '-')), { builder: b, inputs });
    for (const platform of ['siracusa', 'generic']) {
      const out = join(dir, c.name.replace(/[^a-z0-9]+/gi, '-'), platform);
      const { manifest } = generateFirmware({ model: w.model, platform, out, sampleInputs: w.sample });
      const src = readFileSync(join(out, 'c', 'network.c'), 'utf8');
      assert.match(src, /FG_NEXT\(\d, p\d+, -?\d+\)/, 'a walked operand');
      assert.match(src, /FG_PUT\(\d, q, /, 'a walked output');
      assert.not.match(src, /\bo\d+ \+= /, 'no index step left for a walked operand');
      await checkEveryBuild(out, platform, manifest.outputs, inputs, w.expected);
    }
  });
}

test.after(cleanup);
test.run();
