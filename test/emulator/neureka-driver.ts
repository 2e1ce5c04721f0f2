/**
 * Drives the emulator's N-EUREKA model from JS for the tests (neureka.test.ts, neureka-random.test.ts): places a
 * convolution's input, weights (encoded by generator/platforms/siracusa/npu/weights.ts), scale, shift and bias in L1 (weights optionally
 * in the neural memory), programs the registers through npu_write as docs/neureka.md says, and reads the output.
 * Tensors are HWC (channels contiguous); weight(co, ci, tap) with tap = ky * k + kx (depthwise: ci = 0).
 */
import { encodedStride, encodeWeights, weightOffset, type NpuMode } from '../../generator/platforms/siracusa/npu/weights.js';
import { createEmulator, readFault, readRegions, type EmulatorExports } from '../../runtime/node/emulator.js';

export const REG = {
  TRIGGER: 0x00, ACQUIRE: 0x04, FINISHED: 0x08, STATUS: 0x0c, RUNNING_JOB: 0x10, SOFT_CLEAR: 0x14,
} as const;
export const JOB = (i: number): number => 0x20 + 4 * i;
export const L1_CHIP = 0x1000_0000;
export const NMS_CHIP = 0x1040_0000;

export interface Norm {
  /** Per output channel, unsigned (8- or 32-bit by scale32). */
  scale: number[];
  scale32: boolean;
  /** Per output channel int32; absent: bias off. */
  bias?: number[];
  /** One shift (CONF0 bits 16..20) or per channel (SCALE_SHIFT_PTR). */
  shift: number | number[];
  relu: boolean;
}

export interface ConvSpec {
  mode: NpuMode;
  bits: number;
  /** Input channels (dense; ignored for depthwise). */
  cin: number;
  cout: number;
  /** Input rows and columns, unpadded. */
  h: number;
  w: number;
  /** top, right, bottom, left. */
  pad: [number, number, number, number];
  padValue?: number;
  signedIn: boolean;
  /** HWC, h * w * (cin, or cout for depthwise). */
  x: number[];
  weight: (co: number, ci: number, tap: number) => number;
  /** Absent: norm/quant off, int32 output. */
  norm?: Norm;
  /** Weights in the neural memory at this WMEM offset (MRAM from 0, SRAM from 0x40_0000); absent: in L1. */
  wmem?: number;
}

// L1 layout (offsets from L1's start): room for the small shapes the tests use.
const X_AT = 0x0100;
const W_AT = 0x1_0000;
const OUT_AT = 0x2_0000;
const SCALE_AT = 0x3_8000;
const SHIFT_AT = 0x3_9000;
const BIAS_AT = 0x3_a000;

export const kOf = (mode: NpuMode): number => (mode === '1x1' ? 1 : 3);

export function outShape(s: ConvSpec): { ho: number; wo: number } {
  const k = kOf(s.mode);
  return { ho: s.h + s.pad[0] + s.pad[2] - k + 1, wo: s.w + s.pad[1] + s.pad[3] - k + 1 };
}

const ceil = (a: number, b: number): number => Math.ceil(a / b);
/** Remainder as the engine wants it: a full last subtile has remainder = subtile. */
const rem = (n: number, sub: number): number => n - (ceil(n, sub) - 1) * sub;

/** The 24 job registers for `s` with buffers at the given chip addresses. */
export function jobRegisters(s: ConvSpec, at: { x: number; w: number; out: number; scale: number; shift: number; bias: number }): number[] {
  const k = kOf(s.mode);
  const dw = s.mode === '3x3dw';
  const { ho, wo } = outShape(s);
  const chans = dw ? s.cout : s.cin;
  const [top, right, bottom, left] = s.pad;
  const subKo = dw ? 28 : 32;
  const subKi = s.mode === '1x1' ? 32 : 28;
  const ki = dw ? s.cout : s.cin;
  const out32 = !s.norm;
  const bytes = out32 ? 4 : 1;
  const n = s.norm;
  let conf = (s.bits - 1) | ({ '3x3': 0, '3x3dw': 1, '1x1': 2 }[s.mode] << 5) | (s.wmem !== undefined ? 1 << 9 : 0);
  if (s.signedIn) conf |= 1 << 26;
  if (n) {
    conf |= 1 << 4;
    if (n.scale32) conf |= 2 << 12;
    if (typeof n.shift === 'number') conf |= n.shift << 16;
    else conf |= 1 << 24;
    if (!n.relu) conf |= 1 << 23;
    if (n.bias) conf |= 1 << 25;
  }
  const r = new Array<number>(24).fill(0);
  r[0] = s.wmem ?? at.w;
  r[1] = (at.x - (top * s.w + left) * chans) >>> 0;
  r[2] = at.out;
  r[3] = at.scale;
  r[4] = at.shift;
  r[5] = at.bias;
  r[6] = chans;
  r[7] = s.w * chans;
  r[9] = 32;
  r[10] = s.cout * bytes;
  r[11] = wo * s.cout * bytes;
  r[12] = 32;
  r[13] = dw ? 0 : encodedStride(s.mode, s.bits, s.cin);
  r[15] = (rem(s.cout, subKo) << 16) | rem(ki, subKi);
  r[16] = (rem(ho, 6) << 16) | rem(wo, 6);
  r[17] = ((rem(ho, 6) + k - 1 - bottom) << 16) | (rem(wo, 6) + k - 1 - right);
  r[18] = (ceil(s.cout, subKo) << 16) | ceil(ki, subKi);
  r[19] = (ceil(ho, 6) << 16) | ceil(wo, 6);
  r[20] = ((top << 28) | (right << 24) | (bottom << 20) | (left << 16) | ((s.padValue ?? 0) & 0xff)) >>> 0;
  r[21] = weightOffset(s.bits) >>> 0;
  r[23] = conf >>> 0;
  return r;
}

export interface Placed {
  emu: EmulatorExports;
  l1: number;
  /** Linear address of region `name`. */
  linear: (region: string) => number;
  regs: number[];
  read: () => number[];
}

export async function siracusa(): Promise<EmulatorExports> {
  return createEmulator('siracusa');
}

/** Writes the buffers of `s` into `emu` and the job registers (without ACQUIRE/TRIGGER). */
export function place(emu: EmulatorExports, s: ConvSpec): Placed {
  const regions = readRegions(emu);
  const linear = (name: string): number => regions.find((r) => r.name === name)!.linear;
  const l1 = linear('L1');
  const mem = new DataView(emu.memory.buffer);
  const bytes = new Uint8Array(emu.memory.buffer);
  s.x.forEach((v, i) => mem.setUint8(l1 + X_AT + i, v & 0xff));
  const enc = encodeWeights({ mode: s.mode, bits: s.bits, cout: s.cout, cin: s.cin, weight: s.weight });
  if (s.wmem === undefined) bytes.set(enc, l1 + W_AT);
  else bytes.set(enc, (s.wmem < 0x40_0000 ? linear('NMS_MRAM') : linear('NMS_SRAM') - 0x40_0000) + s.wmem);
  if (s.norm) {
    s.norm.scale.forEach((v, i) => (s.norm!.scale32 ? mem.setUint32(l1 + SCALE_AT + 4 * i, v >>> 0, true) : mem.setUint8(l1 + SCALE_AT + i, v)));
    if (Array.isArray(s.norm.shift)) s.norm.shift.forEach((v, i) => mem.setUint8(l1 + SHIFT_AT + i, v));
    s.norm.bias?.forEach((v, i) => mem.setInt32(l1 + BIAS_AT + 4 * i, v, true));
  }
  const regs = jobRegisters(s, {
    x: L1_CHIP + X_AT, w: L1_CHIP + W_AT, out: L1_CHIP + OUT_AT, scale: L1_CHIP + SCALE_AT, shift: L1_CHIP + SHIFT_AT,
    bias: L1_CHIP + BIAS_AT,
  });
  regs.forEach((v, i) => emu.npu_write(JOB(i), v));
  const { ho, wo } = outShape(s);
  const n = ho * wo * s.cout;
  const read = (): number[] => {
    const view = new DataView(emu.memory.buffer);
    return Array.from({ length: n }, (_, i) => (s.norm
      ? (s.norm.relu ? view.getUint8(l1 + OUT_AT + i) : view.getInt8(l1 + OUT_AT + i))
      : view.getInt32(l1 + OUT_AT + 4 * i, true)));
  };
  return { emu, l1, linear, regs, read };
}

/** ACQUIRE, program, TRIGGER; returns the job id. */
export function submit(emu: EmulatorExports, s: ConvSpec): { id: number; placed: Placed } {
  const id = emu.npu_read(REG.ACQUIRE) >>> 0;
  if (id >= 256) throw new Error(`ACQUIRE busy (${id})`);
  const placed = place(emu, s);
  try {
    emu.npu_write(REG.TRIGGER, 0);
  } catch (e) {
    throw new Error(`fault: ${readFault(emu) ?? String(e)}`);
  }
  return { id, placed };
}

/** pulp-nnx resolve_check, as the HAL does it. */
export function done(emu: EmulatorExports, id: number): boolean {
  const running = emu.npu_read(REG.RUNNING_JOB) & 255;
  if (running === ((id - 1) & 255)) return false;
  return !(running === (id & 255) && emu.npu_read(REG.STATUS) !== 0);
}

export function wait(emu: EmulatorExports, id: number): void {
  while (!done(emu, id)) emu.npu_event_wait();
}

/** Runs one job on a fresh emulator and returns its output (HWC) and its busy interval. */
export async function runConv(s: ConvSpec): Promise<{ out: number[]; emu: EmulatorExports; placed: Placed }> {
  const emu = await siracusa();
  const { id, placed } = submit(emu, s);
  wait(emu, id);
  return { out: placed.read(), emu, placed };
}

/**
 * The documented cycle formula (docs/neureka.md "Timing"), written out independently of the emulator for the
 * timing tests.
 */
export function documentedCycles(s: ConvSpec): number {
  const { ho, wo } = outShape(s);
  const dw = s.mode === '3x3dw';
  const subKo = dw ? 28 : 32;
  const nKo = ceil(s.cout, subKo);
  const nKi = dw ? 1 : ceil(s.cin, s.mode === '1x1' ? 32 : 28);
  const pixels = s.mode === '1x1' ? 36 : 64;
  const mv = s.bits * (s.mode === '3x3' ? 32 : s.mode === '1x1' ? 4 : 28);
  let perHw = 0;
  for (let o = 0; o < nKo; o++) {
    const ch = o === nKo - 1 ? s.cout - o * subKo : subKo;
    const words = s.mode === '3x3' ? ch * s.bits : s.mode === '1x1' ? ch : s.bits;
    const wmem = s.wmem !== undefined;
    perHw += nKi * (6 + pixels + (wmem ? 0 : words) + (wmem ? Math.max(mv, words) : mv)) +
      (s.norm ? 9 + (s.norm.scale32 ? 32 : 8) : 0);
  }
  return ceil(ho, 6) * ceil(wo, 6) * perHw + nKo * ho * wo * (s.norm ? 1 : 4);
}
