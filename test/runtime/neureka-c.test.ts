/**
 * The C driver of the N-EUREKA NPU (runtime/c/include/firmgen_neureka.h) on its functional model
 * (runtime/c/common/neureka_model.c), built with the host compiler and for bare-metal rv32 (run by qemu): jobs
 * programmed through hal_neureka_* on seeded random convolutions (1x1, 3x3, 3x3 depthwise; channel counts and
 * sizes that are not multiples of the subtiles; padding 0..2 with a padding value; int8/uint8 input; ReLU/identity;
 * 8/32-bit scale; bias; per-channel shift; int32 output; 2..8-bit weights from L1, MRAM and SRAM) must write what
 * the project's reference interpreter computes (Pad + Conv, then RequantShift), weights encoded by
 * generator/platforms/siracusa/npu/weights.ts. Hand-checked cases pin the output stage's corners (wrap, saturation, 64-bit product,
 * floor shift), and the queue's registers (ACQUIRE, STATUS, RUNNING_JOB, FINISHED, ids wrapping at 256, the event)
 * follow docs/neureka.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addCProject } from '../../generator/backend/c-project.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { encodedStride, encodeWeights, weightOffset, type NpuMode } from '../../generator/platforms/siracusa/npu/weights.js';
import { siracusa } from '../../generator/platforms/siracusa/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { readElfSections } from '../../runtime/node/elf.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { QEMU, qemuArgs } from '../../runtime/node/qemu.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const C = join(REPO_ROOT, 'runtime', 'c');
const CFLAGS = ['-O2', '-std=c11', '-Wall', '-Wextra', '-Werror'];
const work = mkdtempSync(join(tmpdir(), 'firmgen-neureka-c-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

type WeightSource = 'tcdm' | 'mram' | 'sram';

interface Case {
  name: string;
  mode: NpuMode;
  bits: number;
  cin: number;
  cout: number;
  ho: number;
  wo: number;
  /** top, right, bottom, left */
  pad: [number, number, number, number];
  padValue: number;
  signed: boolean;
  norm: boolean;
  relu: boolean;
  scale32: boolean;
  bias: boolean;
  perChannelShift: boolean;
  /** The CONF0 shift, or each channel's with perChannelShift. */
  shifts: number[];
  scales: number[];
  biases: number[];
  wsrc: WeightSource;
  /** Extra bytes between input pixels / rows, output pixels / rows (never read, never written). */
  gaps: [number, number, number, number];
  /** Input values HWC (hin x win x cin; depthwise cin = cout). */
  x: number[];
  /** weight(co, ci, tap), dense [cout][cin][k*k], depthwise [ch][9]. */
  w: number[];
  /** WEIGHT_OFFSET_FACTOR other than -2^(bits-1) (hand cases only). */
  weightOffsetFactor?: number;
  /** Bytes of the whole output buffer, untouched bytes 0xAA. */
  expected?: Uint8Array;
}

const kOf = (mode: NpuMode): number => (mode === '1x1' ? 1 : 3);
const cinOf = (c: Case): number => (c.mode === '3x3dw' ? c.cout : c.cin);
const hin = (c: Case): number => c.ho + kOf(c.mode) - 1 - c.pad[0] - c.pad[2];
const win = (c: Case): number => c.wo + kOf(c.mode) - 1 - c.pad[3] - c.pad[1];
const weightIndex = (c: Case, co: number, ci: number, tap: number): number =>
  c.mode === '3x3dw' ? co * 9 + tap : (co * c.cin + ci) * kOf(c.mode) ** 2 + tap;

/** Strides and sizes of the buffers as the C program lays them out. */
function layout(c: Case) {
  const d0 = cinOf(c) + c.gaps[0];
  const d1 = win(c) * d0 + c.gaps[1];
  const bytes = c.norm ? 1 : 4;
  const od1 = c.cout * bytes + c.gaps[2];
  const od2 = c.wo * od1 + c.gaps[3];
  return { d0, d1, inBytes: hin(c) * d1, bytes, od1, od2, outBytes: c.ho * od2 };
}

/** The job registers of docs/neureka.md, pointers left 0 (the C program sets them). */
function registers(c: Case): number[] {
  const k = kOf(c.mode);
  const dw = c.mode === '3x3dw';
  const koSub = dw ? 28 : 32;
  const kiSub = c.mode === '1x1' ? 32 : 28;
  const count = (n: number, s: number) => Math.ceil(n / s);
  const rem = (n: number, s: number) => n - (count(n, s) - 1) * s;
  const cin = cinOf(c);
  const { d0, d1, od1, od2 } = layout(c);
  const [top, right, bottom, left] = c.pad;
  const modeBits = c.mode === '3x3' ? 0 : dw ? 1 : 2;
  let conf = (c.bits - 1) | (modeBits << 5) | (c.wsrc === 'tcdm' ? 0 : 1 << 9) | (c.signed ? 1 << 26 : 0);
  if (c.norm) {
    conf |= 1 << 4;
    conf |= (c.scale32 ? 2 : 0) << 12;
    conf |= (c.perChannelShift ? 0 : c.shifts[0]) << 16;
    conf |= (c.relu ? 0 : 1) << 23;
    if (c.perChannelShift) conf |= 1 << 24;
    if (c.bias) conf |= 1 << 25;
  } else {
    conf |= 2 << 21;
  }
  const pair = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const r = new Array<number>(24).fill(0);
  r[6] = d0; r[7] = d1; r[8] = 0;
  r[9] = 32; r[10] = od1; r[11] = od2;
  r[12] = 32; r[13] = dw ? 0 : encodedStride(c.mode, c.bits, cin); r[14] = 0;
  r[15] = pair(rem(c.cout, koSub), rem(cin, kiSub));
  r[16] = pair(rem(c.ho, 6), rem(c.wo, 6));
  r[17] = pair(rem(c.ho, 6) + k - 1 - bottom, rem(c.wo, 6) + k - 1 - right);
  r[18] = pair(count(c.cout, koSub), count(cin, kiSub));
  r[19] = pair(count(c.ho, 6), count(c.wo, 6));
  r[20] = ((top << 28) | (right << 24) | (bottom << 20) | (left << 16) | (c.padValue & 0xff)) >>> 0;
  r[21] = (c.weightOffsetFactor ?? weightOffset(c.bits)) >>> 0;
  r[22] = 0;
  r[23] = conf >>> 0;
  return r;
}

function encoded(c: Case): Uint8Array {
  return encodeWeights({ mode: c.mode, bits: c.bits, cout: c.cout, cin: cinOf(c), weight: (co, ci, tap) => c.w[weightIndex(c, co, ci, tap)] });
}

/** The accumulators by the reference interpreter: Pad (the padding value) then Conv, NCHW int32. */
function referenceConv(c: Case): NDArray {
  const k = kOf(c.mode);
  const cin = cinOf(c);
  const [top, right, bottom, left] = c.pad;
  const nchw = new Array<number>(cin * hin(c) * win(c));
  for (let y = 0; y < hin(c); y++) {
    for (let x = 0; x < win(c); x++) for (let ch = 0; ch < cin; ch++) nchw[(ch * hin(c) + y) * win(c) + x] = c.x[(y * win(c) + x) * cin + ch];
  }
  const dw = c.mode === '3x3dw';
  const g = new OnnxBuilder('npu')
    .input('x', 'int32', [1, cin, hin(c), win(c)])
    .initializer('pads', 'int64', [8], [0, 0, top, left, 0, 0, bottom, right])
    .initializer('value', 'int32', [], [c.padValue])
    .initializer('W', 'int32', dw ? [c.cout, 1, 3, 3] : [c.cout, c.cin, k, k], c.w)
    .node('Pad', ['x', 'pads', 'value'], ['xp'], { mode: 'constant' })
    .node('Conv', ['xp', 'W'], ['acc'], { kernel_shape: [k, k], group: dw ? c.cout : 1 })
    .output('acc', 'int32', [1, c.cout, c.ho, c.wo])
    .graph();
  return runReference(g, [ndarray('int32', [1, cin, hin(c), win(c)], nchw)]).get('acc') as NDArray;
}

/** The output stage by the reference interpreter: one RequantShift per shift in use (div 2^s, add = bias - 2^(s-1)
 * cancelling its rounding term, so that it floors as the engine does), uint8 [0, 255] with ReLU, else int8. */
function referenceRequant(c: Case, acc: NDArray): Map<number, NDArray> {
  const shifts = [...new Set(c.perChannelShift ? c.shifts : [c.shifts[0]])];
  const b = new OnnxBuilder('npu-requant').input('acc', 'int32', [1, c.cout, c.ho, c.wo]);
  for (const s of shifts) {
    const add = c.biases.map((v) => (c.bias ? v : 0) - (s > 0 ? 2 ** (s - 1) : 0));
    b.initializer(`mul${s}`, 'int64', [c.cout, 1, 1], c.scales)
      .initializer(`add${s}`, 'int64', [c.cout, 1, 1], add)
      .node('RequantShift', ['acc', `mul${s}`, `add${s}`], [`y${s}`], { div: 2 ** s, n_levels: 256, signed: c.relu ? 0 : 1 })
      .output(`y${s}`, 'int32', [1, c.cout, c.ho, c.wo]);
  }
  const v = runReference(b.graph(), [acc]);
  return new Map(shifts.map((s) => [s, v.get(`y${s}`) as NDArray]));
}

function expectedBuffer(c: Case, acc: NDArray): Uint8Array {
  const { bytes, od1, od2, outBytes } = layout(c);
  const out = new Uint8Array(outBytes).fill(0xaa);
  const view = new DataView(out.buffer);
  const requant = c.norm ? referenceRequant(c, acc) : undefined;
  for (let y = 0; y < c.ho; y++) {
    for (let x = 0; x < c.wo; x++) {
      for (let co = 0; co < c.cout; co++) {
        const at = y * od2 + x * od1 + co * bytes;
        const i = (co * c.ho + y) * c.wo + x;
        if (!requant) view.setInt32(at, acc.data[i], true);
        else out[at] = (requant.get(c.perChannelShift ? c.shifts[co] : c.shifts[0]) as NDArray).data[i] & 0xff;
      }
    }
  }
  return out;
}

function randomCase(rng: Rng, i: number): Case {
  const mode = (['1x1', '3x3', '3x3dw'] as const)[i % 3];
  const k = kOf(mode);
  const bits = 2 + (i % 7);
  const cout = mode === '3x3dw' ? rng.int(1, 62) : mode === '1x1' ? rng.int(1, 70) : rng.int(1, 36);
  const cin = mode === '3x3dw' ? cout : mode === '1x1' ? rng.int(1, 70) : rng.int(1, 60);
  const ho = rng.int(1, 14);
  const wo = rng.int(1, 14);
  const side = () => (mode === '1x1' ? (rng.next() < 0.2 ? 1 : 0) : rng.int(0, 2));
  const pad: [number, number, number, number] = [side(), side(), side(), side()];
  while (ho + k - 1 - pad[0] - pad[2] < 1) pad[pad[0] > 0 ? 0 : 2]--;
  while (wo + k - 1 - pad[1] - pad[3] < 1) pad[pad[1] > 0 ? 1 : 3]--;
  const signed = rng.next() < 0.5;
  const norm = i % 4 !== 3;
  const c: Case = {
    name: `random ${i}`, mode, bits, cin, cout, ho, wo, pad,
    padValue: rng.next() < 0.3 ? 0 : signed ? rng.int(-128, 127) : rng.int(0, 255),
    signed, norm, relu: rng.next() < 0.5, scale32: rng.next() < 0.5, bias: rng.next() < 0.6,
    perChannelShift: rng.next() < 0.3, shifts: [], scales: [], biases: [],
    wsrc: (['tcdm', 'mram', 'sram'] as const)[rng.int(0, 2)],
    gaps: [rng.next() < 0.5 ? 0 : rng.int(1, 3), rng.next() < 0.5 ? 0 : rng.int(1, 5), rng.next() < 0.5 ? 0 : rng.int(1, 3), rng.next() < 0.5 ? 0 : rng.int(1, 5)],
    x: [], w: [],
  };
  const hw = (ho + k - 1 - pad[0] - pad[2]) * (wo + k - 1 - pad[1] - pad[3]);
  c.x = rng.ints(hw * cinOf(c), signed ? -128 : 0, signed ? 127 : 255);
  const lo = -(2 ** (bits - 1));
  c.w = rng.ints(mode === '3x3dw' ? cout * 9 : cout * cin * k * k, lo, -lo - 1);
  return c;
}

/** Scales, biases and shifts that keep the outputs off the rails and, with a bias, wrap_int32(acc*scale) + bias
 * within int32 (the reference's RequantShift is exact; the engine wraps and saturates there: the hand cases). */
function chooseOutputStage(c: Case, rng: Rng, acc: NDArray): void {
  const plane = c.ho * c.wo;
  const limit = 2 ** 31 - 1;
  const shiftFor = (mag: number) => Math.max(0, Math.min(31, Math.round(Math.log2(Math.max(1, mag))) - 7 + rng.int(-1, 1)));
  let widest = 1;
  for (let co = 0; co < c.cout; co++) {
    let maxAbs = 1;
    for (let p = 0; p < plane; p++) maxAbs = Math.max(maxAbs, Math.abs(acc.data[co * plane + p]));
    const bias = c.bias ? rng.int(-(2 ** 20), 2 ** 20) : 0;
    const cap = c.bias ? Math.floor((limit - Math.abs(bias)) / maxAbs) : 2 ** 32 - 1;
    const scale = c.scale32 ? Math.min(cap, Math.floor(2 ** (rng.next() * 32))) : Math.min(cap, rng.int(1, 255));
    c.biases.push(bias);
    c.scales.push(scale);
    c.shifts.push(shiftFor(maxAbs * scale));
    widest = Math.max(widest, maxAbs * scale);
  }
  if (!c.perChannelShift) c.shifts = [shiftFor(widest)];
}

// ---------------------------------------------------------------- hand-checked cases

function hand(p: Partial<Case> & Pick<Case, 'name' | 'mode' | 'bits' | 'cin' | 'cout' | 'ho' | 'wo' | 'x' | 'w'>, expected: number[]): Case {
  const c: Case = {
    pad: [0, 0, 0, 0], padValue: 0, signed: true, norm: false, relu: false, scale32: false, bias: false,
    perChannelShift: false, shifts: [0], scales: [], biases: [], wsrc: 'tcdm', gaps: [0, 0, 0, 0], ...p,
  };
  const { outBytes, bytes } = layout(c);
  const out = new Uint8Array(outBytes);
  const view = new DataView(out.buffer);
  expected.forEach((v, i) => (bytes === 4 ? view.setInt32(i * 4, v, true) : (out[i] = v & 0xff)));
  c.expected = out;
  return c;
}

const HAND: Case[] = [
  // 1x1, two int8 channels, one output channel, int32 output: 3*5 + (-2)*(-7) = 15 + 14 = 29.
  hand({ name: 'hand 1x1 int32', mode: '1x1', bits: 8, cin: 2, cout: 1, ho: 1, wo: 1, x: [3, -2], w: [5, -7] }, [29]),
  // 3x3 on a 1x1 uint8 input padded by 1 on every side with the value 2: weights 1 around, 3 in the centre:
  // 8 * (2 * 1) + 10 * 3 = 16 + 30 = 46.
  hand({ name: 'hand 3x3 padding value', mode: '3x3', bits: 3, cin: 1, cout: 1, ho: 1, wo: 1, pad: [1, 1, 1, 1], padValue: 2,
    signed: false, x: [10], w: [1, 1, 1, 1, 3, 1, 1, 1, 1] }, [46]),
  // Depthwise, 2 channels, 1x1 output from a 3x3 input without padding: channel 0 sums 1..9 with weight 1 = 45;
  // channel 1 takes 10*x with weight -1 only at tap 0 (x = 10): -10.
  hand({ name: 'hand depthwise', mode: '3x3dw', bits: 2, cin: 2, cout: 2, ho: 1, wo: 1,
    x: [1, 10, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 9, 0], w: [1, 1, 1, 1, 1, 1, 1, 1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0] }, [45, -10]),
  // wrap_int32 of the accumulator: stored weight 0 with WEIGHT_OFFSET_FACTOR 2^30 is the weight 2^30; x = 4 gives
  // 4 * 2^30 = 2^32 -> 0; x = 3 gives 3 * 2^30 = 3221225472 -> 3221225472 - 2^32 = -1073741824.
  hand({ name: 'hand accumulator wraps', mode: '1x1', bits: 2, cin: 1, cout: 1, ho: 1, wo: 2, x: [4, 3], w: [-2, -2],
    weightOffsetFactor: 2 ** 30 }, [0, -1073741824]),
  // Bias after a wrapped product: acc = 100 * 100 = 10000, scale 300000: 3e9 wraps to 3e9 - 2^32 = -1294967296,
  // + bias 5 = -1294967291; identity; >> 24: floor(-77.19) = -78 (int8).
  hand({ name: 'hand product wraps before the bias', mode: '1x1', bits: 8, cin: 1, cout: 1, ho: 1, wo: 1, x: [100], w: [100],
    norm: true, relu: false, scale32: true, scales: [300000], bias: true, biases: [5], shifts: [24] }, [-78]),
  // sat_int32 after the bias: 10000 * 200000 = 2e9, + 2e9 = 4e9 -> 2147483647; ReLU; >> 24 = 127.99 -> 127 (uint8).
  hand({ name: 'hand bias saturates', mode: '1x1', bits: 8, cin: 1, cout: 1, ho: 1, wo: 1, x: [100], w: [100],
    norm: true, relu: true, scale32: true, scales: [200000], bias: true, biases: [2000000000], shifts: [24] }, [127]),
  // No bias: the 64-bit product. 1 * 1 * 0xFFFFFFFF = 4294967295 >> 31 = 1 (a 32-bit product would be -1 -> -1).
  hand({ name: 'hand 64-bit product without bias', mode: '1x1', bits: 2, cin: 1, cout: 1, ho: 1, wo: 1, x: [1], w: [1],
    norm: true, relu: false, scale32: true, scales: [0xffffffff], shifts: [31] }, [1]),
  // Floor shift and ReLU, per-channel shift and 8-bit scale: acc = -5 and 7 (x = 1, weights -5 and 7), scale 1:
  // channel 0: identity, -5 >> 1 = floor(-2.5) = -3; channel 1: 7 * 1 >> 2 = 1.
  hand({ name: 'hand floor shift per channel', mode: '1x1', bits: 4, cin: 1, cout: 2, ho: 1, wo: 1, x: [1], w: [-5, 7],
    norm: true, relu: false, scales: [1, 1], perChannelShift: true, shifts: [1, 2] }, [-3, 1]),
  // ReLU clamps the negative channel to 0 before the shift; uint8 saturates 300 * 1 >> 0 at 255.
  hand({ name: 'hand relu and uint8 saturation', mode: '1x1', bits: 8, cin: 2, cout: 2, ho: 1, wo: 1, x: [100, 3], w: [-1, 0, 3, 0],
    norm: true, relu: true, scales: [1, 1], shifts: [0] }, [0, 255]),
];

// ---------------------------------------------------------------- the C program

const hexBytes = (b: ArrayLike<number>): string => Array.from(b, (v) => `0x${(v & 0xff).toString(16)}`).join(',');

interface Placed { c: Case; woff: number; w: Uint8Array }

function program(cases: Case[]): string {
  const mram: number[] = [];
  const sram: number[] = [];
  const placed: Placed[] = cases.map((c) => {
    const w = encoded(c);
    if (c.wsrc === 'tcdm') return { c, woff: 0, w };
    const mem = c.wsrc === 'mram' ? mram : sram;
    while (mem.length % 32) mem.push(0);
    const at = mem.length;
    mem.push(...w);
    return { c, woff: at + (c.wsrc === 'sram' ? 0x400000 : 0), w };
  });
  for (const mem of [mram, sram]) while (mem.length < 32) mem.push(0);
  const lines: string[] = [
    '#include <stdio.h>', '#include <stdlib.h>', '#include <string.h>', '#include "firmgen_neureka.h"', '',
    `FG_NMS_MRAM_SECTION const uint8_t fg_nms_mram[${mram.length}] = {${hexBytes(mram)}};`,
    `FG_NMS_SRAM_SECTION const uint8_t fg_nms_sram[${sram.length}] = {${hexBytes(sram)}};`,
  ];
  const rows: string[] = [];
  placed.forEach(({ c, woff, w }, i) => {
    const { d0, d1, inBytes, outBytes } = layout(c);
    const inBuf = new Uint8Array(inBytes).fill(0x5d);
    const cin = cinOf(c);
    for (let y = 0; y < hin(c); y++) for (let x = 0; x < win(c); x++) for (let ch = 0; ch < cin; ch++) inBuf[y * d1 + x * d0 + ch] = c.x[(y * win(c) + x) * cin + ch] & 0xff;
    lines.push(`static const uint8_t c${i}_in[${inBytes}] = {${hexBytes(inBuf)}};`);
    lines.push(`static uint8_t c${i}_out[${outBytes}];`);
    let wExpr: string;
    if (c.wsrc === 'tcdm') {
      lines.push(`static const uint8_t c${i}_w[${w.length}] = {${hexBytes(w)}};`);
      wExpr = `c${i}_w`;
    } else wExpr = c.wsrc === 'mram' ? `fg_nms_mram + ${woff}` : `fg_nms_sram + ${woff - 0x400000}`;
    const u8 = (v: number[]) => hexBytes(v);
    const u32 = (v: number[]) => hexBytes(v.flatMap((x) => [x & 0xff, (x >>> 8) & 0xff, (x >>> 16) & 0xff, (x >>> 24) & 0xff]));
    let scale = 'NULL', shift = 'NULL', bias = 'NULL';
    if (c.norm) {
      lines.push(`static const uint8_t c${i}_scale[] __attribute__((aligned(4))) = {${c.scale32 ? u32(c.scales) : u8(c.scales)}};`);
      scale = `c${i}_scale`;
      if (c.perChannelShift) { lines.push(`static const uint8_t c${i}_shift[] = {${u8(c.shifts)}};`); shift = `c${i}_shift`; }
      if (c.bias) { lines.push(`static const uint8_t c${i}_bias[] __attribute__((aligned(4))) = {${u32(c.biases)}};`); bias = `c${i}_bias`; }
    }
    const { d0: id0, d1: id1 } = layout(c);
    const back = c.pad[0] * id1 + c.pad[3] * id0;
    rows.push(`  { c${i}_in, ${back}u, ${wExpr}, ${c.wsrc === 'tcdm' ? 0 : 1}, ${woff}u, ${scale}, ${shift}, ${bias}, c${i}_out, ${outBytes}u, {${registers(c).map((r) => `${r}u`).join(', ')}} },`);
  });
  lines.push(`
struct fg_case {
  const uint8_t *in; uint32_t in_back; const uint8_t *w; int wmem; uint32_t woff;
  const uint8_t *scale, *shift, *bias; uint8_t *out; uint32_t out_bytes; uint32_t regs[NEUREKA_JOB_REGISTERS];
};
static const struct fg_case cases[] = {
${rows.join('\n')}
};
#define CASES ((int)(sizeof cases / sizeof cases[0]))

static int program_job(const struct fg_case *c) {
  memset(c->out, 0xaa, c->out_bytes);
  const int id = hal_neureka_acquire();
  for (int r = 0; r < NEUREKA_JOB_REGISTERS; r++) hal_neureka_set(r, c->regs[r]);
  if (c->wmem && hal_neureka_wmem_offset(c->w) != c->woff) {
    printf("wmem offset %lu, expected %lu\\n", (unsigned long)hal_neureka_wmem_offset(c->w), (unsigned long)c->woff);
    exit(4);
  }
  hal_neureka_set(NEUREKA_REG_WEIGHTS_PTR, c->wmem ? c->woff : hal_neureka_addr(c->w));
  hal_neureka_set_ptr(NEUREKA_REG_INFEAT_PTR, c->in, c->in_back);
  hal_neureka_set_ptr(NEUREKA_REG_OUTFEAT_PTR, c->out, 0);
  hal_neureka_set_ptr(NEUREKA_REG_SCALE_PTR, c->scale, 0);
  hal_neureka_set(NEUREKA_REG_SCALE_SHIFT_PTR, hal_neureka_addr(c->shift));
  hal_neureka_set_ptr(NEUREKA_REG_SCALE_BIAS_PTR, c->bias, 0);
  hal_neureka_trigger();
  return id;
}

static void print_case(int i) {
  printf("case %d ", i);
  for (uint32_t b = 0; b < cases[i].out_bytes; b++) printf("%02x", cases[i].out[b]);
  printf("\\n");
}

#define Q(label, value) printf("q %s %lu\\n", label, (unsigned long)(value))

static void queue(void) {
  hal_neureka_init();
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  int a = program_job(&cases[0]);
  Q("a", a);
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("running", hal_npu_read(NEUREKA_RUNNING_JOB));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  hal_neureka_wait(a);
  Q("b", hal_neureka_acquire());
  Q("c", hal_neureka_acquire());
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("busy", hal_npu_read(NEUREKA_ACQUIRE));
  hal_neureka_trigger();
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("running", hal_npu_read(NEUREKA_RUNNING_JOB));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  Q("b finished", hal_neureka_finished(1));
  hal_neureka_trigger();
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("running", hal_npu_read(NEUREKA_RUNNING_JOB));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  Q("b finished", hal_neureka_finished(1));
  Q("c finished", hal_neureka_finished(2));
  Q("next finished", hal_neureka_finished(3));
  hal_neureka_wait(2);
  int first = -1, wrapped = -1, last = -1;
  for (int j = 0; j < 300; j++) {
    const int id = hal_neureka_acquire();
    hal_neureka_trigger();
    hal_neureka_wait(id);
    if (j == 0) first = id;
    if (j == 253) wrapped = id;
    last = id;
  }
  Q("first", first);
  Q("wrapped", wrapped);
  Q("last", last);
  Q("running", hal_npu_read(NEUREKA_RUNNING_JOB));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  hal_npu_event_wait(); /* the last job's event is pending: returns at once */
  hal_neureka_init();
  Q("status", hal_npu_read(NEUREKA_STATUS));
  Q("finished", hal_npu_read(NEUREKA_FINISHED));
  Q("after clear", hal_neureka_acquire());
  hal_neureka_trigger();
  hal_neureka_wait_all();
  Q("status", hal_npu_read(NEUREKA_STATUS));
}

static void fault(const char *what) {
  hal_neureka_init();
  if (!strcmp(what, "event")) hal_npu_event_wait();
  if (!strcmp(what, "reserved")) { (void)hal_neureka_acquire(); hal_neureka_wait_all(); }
  if (!strcmp(what, "trigger")) hal_neureka_trigger();
  (void)program_job(&cases[0]); /* the registers of a valid job, then one register spoilt */
  (void)hal_neureka_acquire();
  if (!strcmp(what, "streamin")) hal_neureka_set(NEUREKA_REG_CONF0, cases[0].regs[NEUREKA_REG_CONF0] | NEUREKA_FLAG_STREAMIN);
  if (!strcmp(what, "padding")) hal_neureka_set(NEUREKA_REG_PADDING, NEUREKA_PADDING(3, 0, 0, 0, 0));
  if (!strcmp(what, "norm32")) hal_neureka_set(NEUREKA_REG_CONF0, cases[0].regs[NEUREKA_REG_CONF0] | NEUREKA_FLAG_NORM_QUANT | NEUREKA_QUANT_MODE_32BIT);
  if (!strcmp(what, "wmem")) {
    hal_neureka_set(NEUREKA_REG_CONF0, cases[0].regs[NEUREKA_REG_CONF0] | NEUREKA_FLAG_WEIGHT_SOURCE_WMEM);
    hal_neureka_set(NEUREKA_REG_WEIGHTS_PTR, 0x900000);
  }
  hal_neureka_trigger(); /* "unobserved": a valid job, and the program ends without observing it */
  printf("no fault\\n");
}

int main(int argc, char **argv) {
  /* Only the host passes arguments (qemu's semihosting gives the program its own command line). */
  if (argc > 1 && !strncmp(argv[1], "fault:", 6)) { fault(argv[1] + 6); return 0; }
  hal_neureka_init();
  /* Two jobs in the queue at a time: both triggered, then both waited for (the second by wait_all). */
  for (int i = 0; i < CASES; i += 2) {
    const int a = program_job(&cases[i]);
    if (i + 1 < CASES) (void)program_job(&cases[i + 1]);
    hal_neureka_wait(a);
    print_case(i);
    hal_neureka_wait_all();
    if (i + 1 < CASES) print_case(i + 1);
  }
  queue();
  return 0;
}
`);
  return lines.join('\n');
}

const QUEUE_EXPECTED = [
  'status 0', 'finished 0',
  // job 0 triggered and finished at once: entry free, RUNNING_JOB 0, one finished
  'a 0', 'status 0', 'running 0', 'finished 1',
  // two entries reserved (ids 1 and 2: entries 1 and 0), a third ACQUIRE is refused
  'b 1', 'c 2', 'status 257', 'busy 256',
  // job 1 runs; id 2 still holds entry 0; by the resolve rule job 1 reads as unfinished while it is the last started
  // and the queue is not empty
  'status 1', 'running 1', 'finished 2', 'b finished 0',
  'status 0', 'running 2', 'finished 3', 'b finished 1', 'c finished 1', 'next finished 0',
  // 300 jobs from id 3: the 254th is id 256 -> 0, the last (3 + 299) & 255 = 46; 3 + 300 finished
  'first 3', 'wrapped 0', 'last 46', 'running 46', 'finished 303',
  // SOFT_CLEAR resets the ids and the count
  'status 0', 'finished 0', 'after clear 0', 'status 0',
];

// ---------------------------------------------------------------- the tests

const rng = new Rng(0x4e4555);
const RANDOM: Case[] = Array.from({ length: 42 }, (_, i) => randomCase(rng, i));
for (const c of RANDOM) {
  const acc = referenceConv(c);
  if (c.norm) chooseOutputStage(c, rng, acc);
  c.expected = expectedBuffer(c, acc);
}
const CASES = [...HAND, ...RANDOM];
const source = join(work, 'neureka_test.c');
writeFileSync(source, program(CASES));

function check(stdout: string, what: string): void {
  const lines = stdout.trim().split('\n');
  const outputs = new Map(lines.filter((l) => l.startsWith('case ')).map((l) => {
    const [, i, hex] = l.split(' ');
    return [Number(i), hex];
  }));
  CASES.forEach((c, i) => {
    const want = Buffer.from(c.expected as Uint8Array).toString('hex');
    const got = outputs.get(i);
    if (got === want) return;
    const at = got === undefined ? -1 : [...want].findIndex((ch, j) => got[j] !== ch);
    assert.unreachable(`${what}: ${c.name} (${c.mode}, ${c.bits} bits, ${c.cin}->${c.cout}, ${c.ho}x${c.wo}, pad ${c.pad}, ` +
      `${c.wsrc}, ${c.norm ? `norm relu=${c.relu} scale32=${c.scale32} bias=${c.bias} perChannel=${c.perChannelShift}` : 'int32'}) ` +
      `differs from byte ${at >> 1}: got ${got?.slice(Math.max(0, at - 8), at + 24)}, want ${want.slice(Math.max(0, at - 8), at + 24)}`);
  });
  assert.equal(lines.filter((l) => l.startsWith('q ')).map((l) => l.slice(2)), QUEUE_EXPECTED, `${what}: the queue's registers`);
}

test('the random cases cover what the brief lists', () => {
  const has = (f: (c: Case) => boolean) => RANDOM.some(f);
  for (const mode of ['1x1', '3x3', '3x3dw'] as const) assert.ok(has((c) => c.mode === mode), mode);
  for (let b = 2; b <= 8; b++) assert.ok(has((c) => c.bits === b), `${b} bits`);
  for (const src of ['tcdm', 'mram', 'sram'] as const) assert.ok(has((c) => c.wsrc === src), src);
  assert.ok(has((c) => c.mode !== '1x1' && c.cin > 28 && c.cin % 28 !== 0), 'input channels beyond one 28-channel subtile');
  assert.ok(has((c) => c.mode === '1x1' && c.cin > 32 && c.cin % 32 !== 0), 'input channels beyond one 32-channel subtile');
  assert.ok(has((c) => c.mode !== '3x3dw' && c.cout > 32), 'output channels beyond one subtile');
  assert.ok(has((c) => c.mode === '3x3dw' && c.cout > 56), 'three depthwise subtiles');
  assert.ok(has((c) => c.ho > 6 && c.ho % 6 !== 0 && c.wo > 6 && c.wo % 6 !== 0), 'H and W beyond a subtile, not multiples of 6');
  for (let p = 0; p <= 2; p++) assert.ok(has((c) => c.pad.includes(p) && c.mode === '3x3'), `padding ${p}`);
  assert.ok(has((c) => c.signed) && has((c) => !c.signed), 'int8 and uint8');
  assert.ok(has((c) => c.norm && c.relu) && has((c) => c.norm && !c.relu), 'ReLU and identity');
  assert.ok(has((c) => c.norm && c.scale32) && has((c) => c.norm && !c.scale32), '8- and 32-bit scale');
  assert.ok(has((c) => c.norm && c.bias) && has((c) => c.norm && c.perChannelShift), 'bias, per-channel shift');
  assert.ok(has((c) => !c.norm), 'int32 output');
  assert.ok(has((c) => c.padValue !== 0 && c.pad.some((p) => p > 0)), 'a padding value');
  // The outputs are not all on the rails.
  const inner = RANDOM.filter((c) => c.norm).flatMap((c) => [...(c.expected as Uint8Array)]).filter((v) => v !== 0 && v !== 0xff && v !== 0x7f && v !== 0x80 && v !== 0xaa);
  assert.ok(inner.length > 1000, `${inner.length} outputs between the rails`);
});

test('host: the driver on the C model writes what the reference interpreter computes', () => {
  const bin = join(work, 'neureka_host');
  execFileSync('cc', [...CFLAGS, '-I', join(C, 'include'), '-o', bin, source, join(C, 'common', 'neureka_model.c')]);
  check(execFileSync(bin, { encoding: 'utf8', maxBuffer: 64 << 20 }), 'host');
});

test('host: the model faults, naming the register, where the chip would hang or the job is not supported', () => {
  const bin = join(work, 'neureka_host');
  const faults: [string, RegExp][] = [
    ['event', /event wait with no NPU event to come/],
    ['reserved', /event wait with no NPU event to come/],
    ['trigger', /TRIGGER without a job reserved by ACQUIRE/],
    ['unobserved', /ended before any core observed the last job's completion/],
    ['streamin', /CONF0: streamin/],
    ['padding', /PADDING: a side pads more than 2/],
    ['norm32', /CONF0: 32-bit output with norm\/quant/],
    ['wmem', /WEIGHTS_PTR: WMEM weights outside the neural memory/],
  ];
  for (const [mode, message] of faults) {
    const r = spawnSync(bin, [`fault:${mode}`], { encoding: 'utf8' });
    assert.is(r.status, 3, `${mode}: exit code (stdout ${r.stdout})`);
    assert.match(r.stderr, message, mode);
  }
});

test('rv32 under qemu: the same program, NMS weights in the link script\'s neural memory', () => {
  const files = new Map<string, string | Uint8Array>();
  addCProject(files, siracusa, undefined, { version: 'test', model: 'neureka', platform: 'siracusa' });
  const ld = join(work, 'link.ld');
  writeFileSync(ld, files.get('c/hal/rv32/link.ld') as string);
  const elf = join(work, 'neureka_rv32.elf');
  execFileSync('riscv64-unknown-elf-gcc', ['-march=rv32imc', '-mabi=ilp32', '-specs=picolibc.specs', '--oslib=semihost',
    '--crt0=semihost', '-DFG_TARGET_RV32', ...CFLAGS, '-I', join(C, 'include'), '-T', ld, '-Wl,--no-warn-rwx-segments',
    '-o', elf, source, join(C, 'common', 'neureka_model.c')]);
  const sections = new Map(readElfSections(elf).map((s) => [s.name, s]));
  assert.is(sections.get('.fg_nms_mram')?.address, 0x8400_0000);
  assert.is(sections.get('.fg_nms_sram')?.address, 0x8440_0000);
  const r = spawnSync(QEMU, qemuArgs(elf), { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
  assert.is(r.status, 0, `qemu: ${r.error?.message ?? ''} ${r.stderr}`);
  check(r.stdout, 'rv32');
});

test.run();
