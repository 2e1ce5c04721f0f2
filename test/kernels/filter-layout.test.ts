/**
 * Padded conv filters in L1 (generator/midend/tiling/filter-layout.ts): the stride choice, hand-worked from the bank
 * formula (bank = (addr >> 2) & 15); the row-by-row DMA commands that lay the weights out; in the emulator, a conv
 * whose filters are 64 bytes pays (near) no L1 bank stalls where the dense layout pays many; and the results stay
 * bit-exact: against the reference interpreter (generic, siracusa emulated and host C, siracusa untiled) and
 * against a Deeploy folder's outputs.npz.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterWordsApart, paddedFilterStride, paddedTransfers } from '../../generator/midend/tiling/filter-layout.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { checkKernelCase, padVsDense, workDir } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * The layouts' stalls are compared in the bank replay with the cores in lockstep (skew 0), the replay in which they
 * differ. The C itself runs both in the same cycles on the ISS (the 64-byte-filter conv below: 21,648 padded, 21,481
 * dense), and the chip's measured skew (docs/timing.md "The start skew") finds no stall in either.
 */
const LOCKSTEP = { bankSkew: 0 };

/** Banks of the words 4 consecutive channels' filters give at byte offset r (0..3) of a word, written out. */
function banks(stride: number, r: number): number[] {
  return [0, 1, 2, 3].map((j) => ((r + j * stride) >> 2) & 15);
}
const distinct = (xs: number[]): boolean => new Set(xs).size === xs.length;

test('stride: hand-worked cases, each checked against the bank formula', () => {
  // [filter bytes, stride]: multiples of 64 (s = 0 mod 16 words) and of 32 (s = 8 mod 16) get one word more.
  const cases: [number, number][] = [
    [576, 580], // 64 x 3 x 3: 144 words, all 4 filter words in one bank; 145 words: banks b, b+1, b+2, b+3
    [1152, 1156],
    [128, 132],
    [64, 68],
    [288, 292], // 32 x 3 x 3: 72 words = 8 mod 16, banks b, b+8, b, b+8; 73 words: b, b+9, b+2, b+11
    [32, 36],
    [36, 36], // 9 words: b, b+9, b+2, b+11 already
    [48, 48], // 12 words: b, b+12, b+8, b+4
    [16, 16], // 4 words: b, b+4, b+8, b+12
    [27, 28], // 3 x 3 x 3: not a whole number of words, padded to one (aligned loads); 7 words: b, b+7, b+14, b+5
    [63, 68], // 7 x 3 x 3: 63 bytes is one byte short of a 64-byte round: channel 1's word shares channel 0's bank
    [3, 4], // 3 x 1 x 1: two channels' bytes in one word
  ];
  for (const [bytes, stride] of cases) {
    assert.is(paddedFilterStride(bytes), stride, `${bytes} bytes`);
    for (let r = 0; r < 4; r++) assert.ok(distinct(banks(stride, r)), `${bytes} -> ${stride}: banks ${banks(stride, r)} at +${r}`);
    assert.is(filterWordsApart(stride), true);
  }
  // Without padding the same cases do collide (for the aligned ones, at offset 0).
  assert.equal(banks(576, 0), [0, 0, 0, 0]);
  assert.equal(banks(288, 0), [0, 8, 0, 8]);
  assert.equal(banks(63, 1), [0, 0, 15, 15]);
  assert.is(filterWordsApart(576), false);
  assert.is(filterWordsApart(288), false);
});

test('transfers: whole filters of the box, contiguous in L2, one row per filter every stride bytes in L1', () => {
  const layout = { filterBytes: 576, stride: 580, strideElements: 580 };
  // Channels 2..4 of a [8, 64, 3, 3] weight: L2 bytes 1152..2879 in one command, L1 rows at 0, 580, 1160.
  assert.equal(paddedTransfers(layout, { start: [2, 0, 0, 0], size: [3, 64, 3, 3] }), [
    { ext: 1152, l1: 0, bytes: 1728, stride: 0, length: 576, l1Stride: 580 },
  ]);
  // One channel: a plain 1-D copy.
  assert.equal(paddedTransfers(layout, { start: [5, 0, 0, 0], size: [1, 64, 3, 3] }), [
    { ext: 2880, l1: 0, bytes: 576, stride: 0, length: 576, l1Stride: 0 },
  ]);
  // 131071 / 40000 = 3 rows per command: 7 channels in 3 + 3 + 1.
  const big = { filterBytes: 40000, stride: 40004, strideElements: 40004 };
  assert.equal(paddedTransfers(big, { start: [0, 0], size: [7, 40000] }).map((t) => [t.ext, t.l1, t.bytes, t.l1Stride]), [
    [0, 0, 120000, 40004], [120000, 120012, 120000, 40004], [240000, 240024, 40000, 0],
  ]);
});

// A conv with 64-byte filters (16 input channels, 2 x 2): x [1, 16, 17, 17] int8, w [8, 16, 2, 2] -> y [1, 8, 16, 16].
const C = 16;
const CO = 8;
const H = 17;
const K = 2;
const HO = H - K + 1;
const rng = new Rng(64);
const weights = rng.ints(CO * C * K * K, -128, 127);
const x: NDArray = { shape: [1, C, H, H], dtype: 'int8', data: Float64Array.from(rng.ints(C * H * H, -128, 127)) };
const builder = new OnnxBuilder('filter-layout')
  .input('x', 'int8', [1, C, H, H])
  .initializer('w', 'int8', [CO, C, K, K], weights)
  .node('Conv', ['x', 'w'], ['y'], { pads: [0, 0, 0, 0] })
  .output('y', 'int32', [1, CO, HO, HO]);

test('64-byte filters: bit-exact on generic and siracusa (emulated, host C)', async () => {
  const { dir, cleanup } = workDir('filter-layout');
  try {
    await checkKernelCase(join(dir, 'case'), { builder, inputs: [x] }, { kernel: 'conv2d', op: 'Conv', hostC: true });
  } finally {
    cleanup();
  }
});

test('64-byte filters: padded to 68 in L1, near zero bank stalls; dense: the stalls of one bank per iteration', async () => {
  const { dir, cleanup } = workDir('filter-layout-stalls');
  try {
    // padVsDense also checks every run bit-exact and both tiled runs on the same tiles.
    const { padded, dense } = await padVsDense(dir, { builder, inputs: [x] }, undefined, LOCKSTEP);

    const tp = padded.g.manifest.layers[0].tiling!;
    const td = dense.g.manifest.layers[0].tiling!;
    // The same tiles in both (padVsDense checks it), so the loops compared are the same; whatever the tiler chose,
    // a weight tile holds `channels` whole filters, 64 bytes apart dense and 68 padded.
    const channels = tp.sizes[0];
    assert.ok(CO % channels === 0, `${channels} channels per tile`);
    const wp = tp.operands.find((o) => o.tensor === 'w')!;
    const wd = td.operands.find((o) => o.tensor === 'w')!;
    assert.is(wd.bytes, channels * 64);
    assert.is(wp.bytes, channels * 68, `${channels} filters of 64 bytes, 68 apart`);
    // The weight tiles go by the L1-side 2-D command (mchan bit 23), one per fetch of the weights.
    const l1Rows = padded.r.dma.filter((d) => d.l12d);
    assert.equal(l1Rows.map((d) => [d.bytes, d.toL1, d.ext2d]), Array.from({ length: wp.transfers }, () => [channels * 64, true, false]));
    assert.is(dense.r.dma.filter((d) => d.l12d).length, 0);

    // Per core over the layer: 8 channels x 16 x 16 pixels x 64 MACs / 8 cores = 16384 MACs = 512 iterations of the
    // 4x2 loop (32 MACs, 14 cycles). Dense: each core's 4 filter words, 64 bytes apart, are in one bank, and every
    // core's in the same one (their first channels are whole filters apart): 32 requests per iteration on a bank
    // that serves one a cycle. Cores in step take >= 32 cycles an iteration: >= 18 stalls each.
    const iterations = 128 * 4;
    const cores = 8;
    const denseBound = 18 * iterations * cores;
    assert.ok(dense.r.l1StallCycles >= denseBound, `dense: ${dense.r.l1StallCycles} >= ${denseBound}`);
    // Padded: 4 banks per core. When the cores share their channels (tiles of few channels, many rows) nothing else
    // collides: under 1 % of the loop's cycles. When each core has channels of its own (tiles of all 8 channels: the
    // tiler's choice since it counts the C's gather), core k's window of 4 filters sits on banks k..k+3 and meets its
    // neighbours': still under 1/10 of the dense stalls (measured: 4596 against 73728 and more).
    const loopCycles = 14 * iterations * cores;
    const sharedChannels = channels < cores;
    const paddedBound = sharedChannels ? loopCycles / 100 : dense.r.l1StallCycles / 10;
    assert.ok(padded.r.l1StallCycles < paddedBound, `padded: ${padded.r.l1StallCycles} < ${paddedBound}`);
    // The layer is faster by the stalls the padding removed (each core's share; the cores stall in parallel), up to
    // the DMA and the cores' other work that overlap them.
    const saved = (dense.r.l1StallCycles - padded.r.l1StallCycles) / cores;
    assert.ok(dense.r.cycles - padded.r.cycles >= saved / 2, `padded ${padded.r.cycles} vs dense ${dense.r.cycles} cycles, ${saved} stall cycles a core removed`);
  } finally {
    cleanup();
  }
});

test('Deeploy Conv/PW_2D (128-byte filters, padded to 132): outputs.npz bit for bit, emulated and host C', async () => {
  const f = integerFolders().find((x) => x.name === 'Kernels/Integer/Conv/PW_2D');
  assert.ok(f, 'the folder exists');
  const { dir, cleanup } = workDir('filter-layout-pw');
  try {
    const g = generateFirmware({ model: f!.model, platform: 'siracusa', out: dir });
    const w = g.manifest.layers[0].tiling!.operands[1];
    const channels = g.manifest.layers[0].tiling!.sizes[0];
    assert.is(w.bytes, channels * 132, `${channels} filters 132 bytes apart`);
    const inputs = arrays(join(f!.dir, 'inputs.npz')).slice(0, g.manifest.inputs.length);
    const expected = arrays(join(f!.dir, 'outputs.npz'));
    const r = await runFirmware(dir, inputs);
    const emu = compareOutputs(g.manifest.outputs, r.outputs, expected);
    assert.is(emu.errors, 0, emu.details.join('; '));
    const host = compareOutputs(g.manifest.outputs, runHostC(dir, inputs), expected);
    assert.is(host.errors, 0, host.details.join('; '));
  } finally {
    cleanup();
  }
});

test.run();
