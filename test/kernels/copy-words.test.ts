/**
 * Data movement in words (kernels/copy-words.ts): which copies move as int32 or int16 elements, with what loops, and
 * that the moved bytes are the reference's on every build: Transposes that keep runs of 2 or 4 bytes (a decoder's
 * head transpose), a Concat and a Slice along outer axes, a Pad whose fill is a replicated byte, and copies that must
 * stay bytewise (the last axis moved, an odd run), on Siracusa (tiled and untiled: the AS firmware, the C on the
 * emulator's RV32 cores, the host C) and generic (the AS firmware, its C on the RV32 core).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inWords, replicate } from '../../generator/kernels/copy-words.js';
import { IDENTITY, type PartSpec } from '../../generator/kernels/parts.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { checkEveryBuild, workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const range = { min: -128, max: 127 };
const copy = (dims: number[], src: number[], dst: number[], srcOff = 0, dstOff = 0): PartSpec => ({
  dims,
  leaves: [{ field: 'in0', dtype: 'int8', strides: src, offset: srcOff, range }],
  out: { field: 'y', dtype: 'int8', strides: dst, offset: dstOff },
  expr: IDENTITY,
});

test('a head transpose [16, 16, 4] -> [16, 16, 4] (perm 1, 0, 2) moves 256 words, the longest loop inside', () => {
  const w = inWords([copy([16, 16, 4], [4, 64, 1], [64, 4, 1])]);
  assert.ok(w);
  assert.is(w.dtype, 'int32');
  assert.equal(w.parts[0].dims, [16, 16]);
  assert.equal(w.parts[0].leaves[0].strides, [1, 16]);
  assert.equal(w.parts[0].out.strides, [16, 1]);
  // A run of 2 bytes at an odd offset stays bytes; at an even one it is an int16.
  assert.is(inWords([copy([16, 2], [4, 1], [2, 1], 2, 0)])?.dtype, 'int16');
});

test('runs of two bytes move as int16, and the runs of a few words leave the inside to the longest loop', () => {
  const w = inWords([copy([8, 66, 2], [2, 16, 1], [132, 2, 1])]);
  assert.ok(w);
  assert.is(w.dtype, 'int16');
  assert.equal(w.parts[0].dims, [8, 66]);
  assert.equal(w.parts[0].out.strides, [66, 1]);
});

test('bytewise where a run is not whole words or not on a word, or the last axis moves', () => {
  assert.is(inWords([copy([16, 3], [4, 1], [3, 1])]), undefined);
  assert.is(inWords([copy([16, 4], [4, 1], [4, 1], 1, 0)]), undefined);
  assert.is(inWords([copy([16, 4], [1, 16], [4, 1])]), undefined);
});

test('a fill repeats its byte across the word', () => {
  assert.is(replicate(-128, 1, 4), -2139062144);
  assert.is(replicate(5, 1, 4), 0x05050505);
  assert.is(replicate(-1, 2, 4), -1);
  assert.is(replicate(0x1234, 2, 4), 0x12341234);
});

const { dir, cleanup } = workDir('copy-words');

function model(name: string, shape: number[], build: (b: OnnxBuilder) => void): OnnxBuilder {
  const b = new OnnxBuilder(name).input('x', 'int8', shape);
  build(b);
  return b;
}

const CASES: { name: string; shape: number[]; words: string | null; build: (b: OnnxBuilder) => void; l1?: number }[] = [
  { name: 'head transpose', shape: [1, 16, 16, 4], words: 'int32_t', build: (b) => b.node('Transpose', ['x'], ['y'], { perm: [0, 2, 1, 3] }).output('y', 'int8') },
  { name: 'head transpose in tiles', shape: [1, 16, 16, 4], words: 'int32_t', l1: 600, build: (b) => b.node('Transpose', ['x'], ['y'], { perm: [0, 2, 1, 3] }).output('y', 'int8') },
  { name: 'pair transpose', shape: [1, 66, 8, 2], words: 'int16_t', build: (b) => b.node('Transpose', ['x'], ['y'], { perm: [0, 2, 1, 3] }).output('y', 'int8') },
  { name: 'concat of outer halves', shape: [2, 8, 12], words: 'int32_t', build: (b) => b.node('Concat', ['x', 'x'], ['y'], { axis: 1 }).output('y', 'int8') },
  {
    name: 'slice of rows', shape: [1, 12, 16], words: 'int32_t',
    build: (b) => {
      b.initializer('s', 'int64', [1], [4]).initializer('e', 'int64', [1], [10]).initializer('a', 'int64', [1], [1]);
      b.node('Slice', ['x', 's', 'e', 'a'], ['y']).output('y', 'int8');
    },
  },
  {
    name: 'pad by a row of -128', shape: [1, 6, 8], words: 'int32_t',
    build: (b) => {
      b.initializer('p', 'int64', [6], [0, 1, 0, 0, 2, 0]).initializer('v', 'int8', [], [-128]);
      b.node('Pad', ['x', 'p', 'v'], ['y'], { mode: 'constant' }).output('y', 'int8');
    },
  },
  { name: 'last axis moved', shape: [1, 8, 12], words: null, build: (b) => b.node('Transpose', ['x'], ['y'], { perm: [0, 2, 1] }).output('y', 'int8') },
];

for (const c of CASES) {
  test(`${c.name}: ${c.words ?? 'bytes'}, every build equal to the reference`, async () => {
    const n = c.shape.reduce((a, b) => a * b, 1);
    const x = ndarray('int8', c.shape, new Rng(n + c.name.length).ints(n, -128, 127));
    const w = writeCase(join(dir, c.name.replace(/ /g, '-')), { builder: model(c.name, c.shape, c.build), inputs: [x] });
    for (const platform of ['siracusa', 'generic']) {
      const out = join(dir, c.name.replace(/ /g, '-'), platform);
      const { manifest } = generateFirmware({ model: w.model, platform, out, sampleInputs: w.sample, ...(c.l1 && platform === 'siracusa' ? { l1: c.l1 } : {}) });
      if (c.l1 && platform === 'siracusa') assert.ok((manifest.layers[0].tiling?.tiles ?? 1) > 1, 'tiled');
      const src = readFileSync(join(out, 'c', 'network.c'), 'utf8');
      const arg = /const (int\d+_t) \*in0;/.exec(src)?.[1];
      assert.is(arg, c.words ?? 'int8_t', 'the copy\'s element type');
      await checkEveryBuild(out, platform, manifest.outputs, [x], w.expected);
    }
  });
}

test.after(cleanup);
test.run();
