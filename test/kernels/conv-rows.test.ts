/**
 * The conv C's depthwise row path (conv.c `rowdot`: window rows in the padding read with a zero filter word, the
 * pairs inside the input row apart from the ones at its ends) and its 1x1 gather by four channels (`pointwise`,
 * a row's lone last pixel included), on the RV32 core (XpulpV2 on Siracusa, portable rv32imc on generic) and the
 * host build, against the reference interpreter: widths around the four bytes a word reads, strides 1 and 2, pads 0
 * to 2, signed and unsigned activations, channel counts that leave one to three channels past the groups of four.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntType } from '../../generator/ir/dtype.js';
import { edgePairs, gatherWork, rowPairs } from '../../generator/kernels/conv.js';
import { tensorOf } from '../../generator/ir/graph.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { workDir, writeCase, type KernelCase } from '../helpers/kernel-check.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('k-conv-rows');

interface ConvShape {
  c: number;
  co: number;
  h: number;
  w: number;
  k: [number, number];
  stride: number;
  pad: number;
  dw: boolean;
  dtype: IntType;
  /** The output stage's variations (the row path's hardware loop, kernels/dw-asm.ts): a bias, per-channel
   *  mul/add, the output range (n_levels, signed), the shift. Default: none, scalar, int8, 14. */
  out?: { bias?: boolean; perChannel?: boolean; levels?: number; signed?: boolean; shift?: number; wide?: boolean | 'split' };
  /** The hardware loop must take this case's interior pairs on the XpulpV2 build. */
  asm?: boolean;
  /** The SIMD conv's unpaired gather must copy window rows as words (conv.c `word`, kernels/conv.ts wordPixel). */
  wordGather?: boolean;
}

function convCase(rng: Rng, s: ConvShape): KernelCase {
  const group = s.dw ? s.c : 1;
  const shape = [1, s.c, s.h, s.w];
  const b = new OnnxBuilder('conv-rows').input('x', s.dtype, shape);
  const wShape = [s.co, s.c / group, ...s.k];
  b.initializer('w', 'int8', wShape, rng.ints(wShape.reduce((a, v) => a * v, 1), -128, 127));
  const padX = Math.min(s.pad, s.k[1] - 1);
  const padY = Math.min(s.pad, s.k[0] - 1);
  const o = s.out ?? {};
  if (o.bias) b.initializer('bias', 'int32', [s.co], rng.ints(s.co, -3000, 3000));
  b.node('Conv', ['x', 'w', ...(o.bias ? ['bias'] : [])], ['p'], { kernel_shape: s.k, pads: [padY, padX, padY, padX], strides: [s.stride, s.stride], group });
  const shift = o.shift ?? 14;
  const params = o.perChannel ? s.co : 1;
  // Wide: multipliers of 2^17..2^19, so acc x m passes 2^31 (64-bit requantization) while the shifted value fits;
  // split: of 2^14..2^15, where the product split at bit 16 keeps every step in int32 (backend/expr.ts).
  const [m0, m1] = o.wide === 'split' ? [1 << 14, (1 << 15) - 1] : o.wide ? [1 << 17, 1 << 19] : [-60, 60];
  const mul = rng.ints(params, m0, m1).map((v, i) => (o.wide && i % 2 ? -v : v || 7));
  b.initializer('m', 'int32', [1, params, 1, 1].slice(o.perChannel ? 0 : 3), mul);
  b.initializer('a', 'int32', [1, params, 1, 1].slice(o.perChannel ? 0 : 3), rng.ints(params, -(1 << 15), 1 << 15));
  b.node('RequantShift', ['p', 'm', 'a'], ['y'], { div: float(2 ** shift), n_levels: float(o.levels ?? 256), signed: float(o.signed === false ? 0 : 1) });
  b.output('y', 'float32');
  return { builder: b, inputs: [randomValues(rng, s.dtype, shape)] };
}

const shapes: [string, ConvShape][] = [];
for (const w of [4, 5, 7]) {
  for (const stride of [1, 2]) {
    for (const pad of [0, 1, 2]) {
      if ((w + 2 * Math.min(pad, 2) - 3) / stride < 0) continue;
      const dtype: IntType = (w + stride + pad) % 2 ? 'uint8' : 'int8';
      shapes.push([`dw3x3 w${w} s${stride} p${pad} ${dtype}`, { c: 3, co: 3, h: 5, w, k: [3, 3], stride, pad, dw: true, dtype }]);
    }
  }
  shapes.push([`dw1x3 w${w}`, { c: 2, co: 2, h: 3, w, k: [1, 3], stride: 1, pad: 1, dw: true, dtype: 'int8' }]);
}
// The hardware loop's output stages: bias folded into its constant, per-channel parameters, uint8 (p.clipu), 4-bit
// and a shift of 0 (no rounding term); 1 to 3 window rows, strides 1 and 2, rows long enough for several pairs.
const outs = [
  { bias: true },
  { perChannel: true, signed: false },
  { bias: true, perChannel: true, levels: 16 },
  { shift: 0, levels: 16, signed: false },
  { bias: true, perChannel: true, wide: true, shift: 24 },
  { wide: true, shift: 25, signed: false },
  { bias: true, perChannel: true, wide: 'split' as const, shift: 20 },
  { wide: 'split' as const, shift: 16, signed: false },
];
outs.forEach((out, i) => {
  for (const [kh, stride] of [[3, 1], [3, 2], [1, 1], [2, 2]] as const) {
    const dtype: IntType = (i + kh) % 2 ? 'uint8' : 'int8';
    shapes.push([`dw${kh}x3 w16 s${stride} out ${i} ${dtype}`, { c: 3, co: 3, h: 5, w: 16, k: [kh, 3], stride, pad: 1, dw: true, dtype, out, asm: true }]);
  }
});
// The plane path (conv.c `plane`, kernels/dw-plane.ts) takes every case above (one band a channel); these take the
// others: bands of a few rows (rows of 60: the first and last bands zero the padding's rows another band filled),
// rows narrower than a word (the row path needed 4; a channel's map in one band or, with few channels, several), and
// rows too wide for the buffer (the row path's edges).
const planes: [string, ConvShape, 'bands' | 'plane' | 'row'][] = [
  ['dw3x3 w60 h12 bands s1', { c: 3, co: 3, h: 12, w: 60, k: [3, 3], stride: 1, pad: 1, dw: true, dtype: 'uint8', out: { bias: true, perChannel: true, wide: 'split', shift: 20 }, asm: true }, 'bands'],
  ['dw3x3 w60 h12 bands s2', { c: 2, co: 2, h: 12, w: 60, k: [3, 3], stride: 2, pad: 1, dw: true, dtype: 'int8', out: { bias: true } }, 'bands'],
  ['dw3x3 w3 s1', { c: 5, co: 5, h: 3, w: 3, k: [3, 3], stride: 1, pad: 1, dw: true, dtype: 'uint8', out: { perChannel: true, signed: false } }, 'plane'],
  ['dw3x3 w2 s2', { c: 3, co: 3, h: 4, w: 2, k: [3, 3], stride: 2, pad: 1, dw: true, dtype: 'int8' }, 'plane'],
  ['dw1x3 w1', { c: 2, co: 2, h: 3, w: 1, k: [1, 3], stride: 1, pad: 1, dw: true, dtype: 'int8' }, 'plane'],
  ['dw3x3 w200 s1 row path', { c: 2, co: 2, h: 3, w: 200, k: [3, 3], stride: 1, pad: 1, dw: true, dtype: 'int8', out: { bias: true }, asm: true }, 'row'],
];
for (const [name, s] of planes) shapes.push([name, s]);
// The SIMD conv's unpaired gather (stride 2, or windows 4 wide): on Siracusa window rows of 3 or 4 taps copied as
// words where the word lies inside the input row, bytes at the right edge (the last pixels' words would pass the row)
// and in the padding, so that the bytes a word carries past its taps land on the next window row, on the zeros up to
// the next word, or on the column's spare bytes; windows of 2 taps byte by byte.
shapes.push(
  ['gather 3x3 s2 c3 w13', { c: 3, co: 8, h: 7, w: 13, k: [3, 3], stride: 2, pad: 1, dw: false, dtype: 'uint8', out: { bias: true, perChannel: true }, wordGather: true }],
  ['gather 3x4 s2 c2 w11', { c: 2, co: 5, h: 6, w: 11, k: [3, 4], stride: 2, pad: 1, dw: false, dtype: 'int8', wordGather: true }],
  ['gather 2x2 s2 c4 w9 bytes', { c: 4, co: 6, h: 5, w: 9, k: [2, 2], stride: 2, pad: 0, dw: false, dtype: 'int8' }],
  ['gather 3x4 s1 c2 w9', { c: 2, co: 4, h: 5, w: 9, k: [3, 4], stride: 1, pad: 2, dw: false, dtype: 'uint8', wordGather: true }],
);
const pathOf = new Map(planes.map(([name, , path]) => [name, path]));
for (const [c, w] of [[4, 5], [6, 6], [13, 7], [7, 4]] as const) {
  for (const dtype of ['int8', 'uint8'] as const) {
    shapes.push([`1x1 ${c}->5 w${w} ${dtype}`, { c, co: 5, h: 3, w, k: [1, 1], stride: 1, pad: 0, dw: false, dtype }]);
  }
}

test('each row path case takes the path under test', () => {
  // The generator's split of a row's pixel pairs: the pairs inside [ix0, ix1) read their words inside the row.
  for (const [W, PL, SX, WO] of [[16, 1, 1, 16], [7, 1, 2, 4], [4, 2, 1, 6], [6, 1, 2, 3]]) {
    const r = rowPairs(WO, W, PL, SX);
    for (let ox = 0; ox < WO; ox += 2) {
      const px = [ox * SX - PL, ox * SX - PL + SX].slice(0, SX === 1 ? 1 : 2);
      const inside = px.every((p) => p >= 0 && p <= W - 4);
      assert.is(ox >= r.ix0 && ox < r.ix1, inside, `W ${W} pad ${PL} stride ${SX}: pair at ${ox}`);
    }
    // The edge pairs the C takes one by one are every pair not inside, each once, in order on each side.
    const { left, right } = edgePairs(WO, r.ix0, r.ix1);
    const all = Array.from({ length: Math.ceil(WO / 2) }, (_, i) => 2 * i);
    assert.equal([...left, ...right], all.filter((ox) => ox < r.ix0 || ox >= r.ix1), `W ${W} pad ${PL} stride ${SX}: edges`);
  }
});

for (const [name, s] of shapes) {
  test(`${name}: the C on both RV32 builds and the host equals the reference`, async () => {
    const c = convCase(new Rng(name.length * 131 + s.w * 7 + s.c), s);
    const caseDir = join(dir, name.replace(/[^a-z0-9]+/gi, '-'));
    const { model, sample, expected } = writeCase(caseDir, c);
    for (const platform of ['siracusa', 'generic']) {
      const out = join(caseDir, platform);
      const g = generateFirmware({ model, sampleInputs: sample, platform, out });
      const conv = g.layers.find((l) => l.node.op === 'Conv');
      assert.ok(conv && conv.kernel !== 'alias' && conv.kernel.name === 'conv2d', `${platform}: the conv kernel`);
      const text = readFileSync(join(out, 'c', 'network.c'), 'utf8');
      const path = pathOf.get(name);
      if (path) {
        const bands = /One unit = a band of \d+ output rows/.test(text) ? text.match(/int32_t band = start % (\d+)/)?.[1] : undefined;
        const taken = bands === undefined ? 'row' : bands === '1' ? 'plane' : 'bands';
        // 'plane': the plane path in one band or more (few channels take more bands on 8 cores than on one).
        assert.is(path === 'plane' && taken === 'bands' ? 'plane' : taken, path, `${platform}: the path under test`);
      }
      if (s.wordGather) {
        assert.is(text.includes('const int word = inside && ix0 + 4 <='), platform === 'siracusa', `${platform}: the word gather where words load at any address`);
        if (platform === 'siracusa') {
          // The tiler's count of the gather (gatherWork) is what the AS charges (one core: one tile of the whole layer).
          const one = `${out}-gather`;
          const g1 = generateFirmware({ model, sampleInputs: sample, platform, out: one, cores: 1 });
          const conv1 = g1.layers.find((l) => l.node.op === 'Conv')!;
          const units = (await runFirmware(one, c.inputs)).units;
          const work = gatherWork(conv1.node, g1.lowered, tensorOf(g1.lowered, conv1.node.outputs[0]).shape, g1.platform);
          assert.ok(work.words > 0, 'some window rows as words');
          assert.is(units[COST_CLASSES.indexOf('GATHER_WORD')], work.words, 'GATHER_WORD: the AS against gatherWork');
          assert.is(units[COST_CLASSES.indexOf('COPY_BYTE')], work.bytes, 'COPY_BYTE: the AS against gatherWork');
        }
      }
      if (s.asm && platform === 'siracusa') {
        assert.match(text, 'one hardware loop (kernels/dw-asm.ts)', 'the hardware loop');
        assert.is(text.includes('"mulh %[hi]'), s.out?.wide === true, 'the 64-bit output stage where the product needs it');
        // (A 1x3 window's accumulators are smaller: there the split depends on the drawn bias and add terms.)
        const split = text.includes('"srai %[hi], %[a0], 16');
        if (s.out?.wide !== 'split') assert.not.ok(split, 'no split where the multipliers are small or large');
        else if (s.k[0] > 1) assert.ok(split, 'the product split at bit 16 where its halves fit');
      }
      const iss = compareOutputs(g.manifest.outputs, (await runIss(out, c.inputs)).outputs, expected);
      assert.is(iss.errors, 0, `${platform} ISS: ${iss.details.slice(0, 3).join('; ')}`);
      if (platform === 'siracusa' && /One unit = a band of/.test(text)) {
        // The plane path's word accesses off a word (kernels/dw-plane.ts misaligned), as the AS charges them, are the
        // ones the RV32 core pays for (a cycle each, STALL_MISALIGNED = 4): on one core, where no share is pro-rated.
        const one = `${out}-one`;
        generateFirmware({ model, sampleInputs: sample, platform, out: one, cores: 1 });
        const measured = (await runIss(one, c.inputs)).stalls[4];
        const charged = (await runFirmware(one, c.inputs)).units[COST_CLASSES.indexOf('MISALIGNED')];
        assert.is(charged, measured, 'misaligned words: the AS count against the ISS');
      }
      if (platform === 'generic') {
        const host = compareOutputs(g.manifest.outputs, runHostC(out, c.inputs), expected);
        assert.is(host.errors, 0, `host C: ${host.details.slice(0, 3).join('; ')}`);
      }
    }
  });
}

test.after(cleanup);
test.run();
