// One N-EUREKA job: its registers decoded and checked (faults name the register, the region and the layer) and its
// length in cycles (docs/neureka.md, "Timing"). The convolution it computes is neureka-conv.ts, which reads the
// decoded job from the globals below. Pointers map to linear memory through neureka-memory.ts (the AS path's chip
// regions or the RV32 core's), so the same checks and cycles serve both.

import { msgLayer } from "./events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "./fault";
import { npuRegionBase, npuRegionLinear, npuRegionName, npuRegionOf, npuRegionSize } from "./neureka-memory";
import {
  NPU_LOAD_SETUP, NPU_MV_1X1, NPU_MV_3X3, NPU_MV_DW, NPU_NORM_BASE, NPU_NORM_SCALE32, NPU_NORM_SCALE8, NPU_PIXELS_1X1,
  NPU_PIXELS_3X3, NPU_STREAMER_BYTES, TCDM_BYTES_PER_CYCLE,
} from "./chips/siracusa";

/** Job registers (docs/neureka.md): register i at byte offset 0x20 + 4 i. */
export const JOB_REGS: i32 = 24;
const WEIGHTS_PTR = 0;
const INFEAT_PTR = 1;
const OUTFEAT_PTR = 2;
const SCALE_PTR = 3;
const SCALE_SHIFT_PTR = 4;
const SCALE_BIAS_PTR = 5;
const INFEAT_D0 = 6;
const INFEAT_D1 = 7;
const OUTFEAT_D1 = 10;
const OUTFEAT_D2 = 11;
const WEIGHTS_D0 = 12;
const WEIGHTS_D1 = 13;
const REM_KOKI = 15;
const REM_HOWO = 16;
const REM_HIWI = 17;
const NUM_KOKI = 18;
const NUM_HOWO = 19;
const PADDING = 20;
const WEIGHT_OFFSET = 21;
const CONF0 = 23;

export const MODE_3X3: i32 = 0;
export const MODE_DW: i32 = 1;
export const MODE_1X1: i32 = 2;
/** Output subtile 6 x 6 pixels; channel subtiles (HARDWARE.md "Geometry"). */
const OUT_HW: i32 = 6;
const KO_DENSE: i32 = 32;
const KI_3X3: i32 = 28;
const KI_1X1: i32 = 32;
const WORD: i32 = 32;

/** Weights of one output channel the model decodes at once (Ki x k x k, neureka-conv.ts); more is a fault. */
export const MAX_WEIGHTS: i32 = 32768;

// Regions the NPU reaches (chips/siracusa.ts): L1, and the two halves of the neural memory.
let l1Region: i32 = -1;
let mramRegion: i32 = -1;
let sramRegion: i32 = -1;

/** Address of the neural memory's start (NMS_MRAM; NMS_SRAM follows at +0x40_0000): WMEM offsets count from it. */
let nmsBase: i64 = 0;

export function setNpuRegions(l1: i32, mram: i32, sram: i32, nms: i64 = -1): void {
  nmsBase = nms >= 0 ? nms : npuRegionBase(mram);
  l1Region = l1;
  mramRegion = mram;
  sramRegion = sram;
}

// The decoded job (one at a time: decode() fills these).
export let mode: i32 = 0;
export let bits: i32 = 0;
export let k: i32 = 0;
export let ko: i32 = 0;
export let ki: i32 = 0;
export let ho: i32 = 0;
export let wo: i32 = 0;
export let nKo: i32 = 0;
export let nKi: i32 = 0;
export let nHo: i32 = 0;
export let nWo: i32 = 0;
export let remKo: i32 = 0;
export let remKi: i32 = 0;
export let remHo: i32 = 0;
export let remWo: i32 = 0;
export let top: i32 = 0;
export let right: i32 = 0;
export let bottom: i32 = 0;
export let left: i32 = 0;
export let padValue: i32 = 0;
export let woff: i32 = 0;
export let norm = false;
export let scale32 = false;
export let outShift: i32 = 0;
export let relu = false;
export let perShift = false;
export let biasOn = false;
export let signedIn = false;
export let wmem = false;
export let out32 = false;
export let inD0: i64 = 0;
export let inD1: i64 = 0;
export let outD1: i64 = 0;
export let outD2: i64 = 0;
export let wD0: i64 = 0;
export let wD1: i64 = 0;
/** Linear addresses (the input's origin may lie before L1: only real pixels are read). */
export let inBase: i64 = 0;
export let outBase: i64 = 0;
export let wBase: i64 = 0;
export let scaleBase: i64 = 0;
export let shiftBase: i64 = 0;
export let biasBase: i64 = 0;

// @ts-ignore: decorator
@inline function reg(regs: usize, i: i32): u32 {
  return load<u32>(regs + (<usize>i << 2));
}

function bad(name: string, why: string, value: i64): void {
  msgBegin("neureka TRIGGER: ");
  msgText(name);
  msgText(" ");
  msgText(why);
  if (value != i64.MIN_VALUE) {
    msgText(" (");
    msgDec(value);
    msgText(")");
  }
  msgLayer();
  raise();
}

/**
 * Chip bytes [first, last] the job touches through register `name` must lie in region `r1` (or `r2`); returns the
 * linear address of chip address `origin` in that region. An empty range (last < first) touches nothing.
 */
function place(name: string, access: string, origin: i64, first: i64, last: i64, r1: i32, r2: i32, where: string): i64 {
  if (last < first) return 0;
  const r = npuRegionOf(first);
  if (r >= 0 && (r == r1 || r == r2) && last < npuRegionBase(r) + npuRegionSize(r)) {
    return npuRegionLinear(r) + (origin - npuRegionBase(r));
  }
  msgBegin("neureka TRIGGER: ");
  msgText(name);
  msgText(": the job ");
  msgText(access);
  msgText(" chip addresses ");
  msgHex(<u32>first);
  msgText("..");
  msgHex(<u32>last);
  if (first < 0 || first > 0xffff_ffff || last > 0xffff_ffff) msgText(" (beyond 32 bits)");
  msgText(", which must lie inside ");
  msgText(where);
  if (r >= 0) {
    msgText(" (it starts in region ");
    msgText(npuRegionName(r));
    msgText(")");
  } else {
    msgText(" (it starts in no region)");
  }
  msgLayer();
  raise();
  return 0;
}

/** Count and remainder of a dimension packed as (outer << 16) | inner. */
function dim(name: string, count: i32, rem: i32, sub: i32): i32 {
  if (count < 1) bad(name, "has a subtile count of 0", i64.MIN_VALUE);
  if (rem < 1 || rem > sub) bad(name, "has a remainder outside 1..subtile", rem);
  return (count - 1) * sub + rem;
}

/**
 * Decodes the job registers at `regs`, faulting on anything the engine or this model cannot run (TRIGGER decodes
 * first; the landing decodes the same registers again and cannot fault).
 */
export function decode(regs: usize): void {
  const conf = reg(regs, CONF0);
  mode = <i32>(conf >> 5) & 3;
  if (mode == 3) bad("CONF0", "mode 3 does not exist (0 3x3, 1 3x3 depthwise, 2 1x1)", i64.MIN_VALUE);
  bits = <i32>(conf & 7) + 1;
  if (bits < 2) bad("CONF0", "weight bits must be 2..8", bits);
  norm = (conf & (1 << 4)) != 0;
  wmem = (conf & (1 << 9)) != 0;
  const normMode = <i32>(conf >> 12) & 3;
  if (normMode != 0 && normMode != 2) bad("CONF0", "norm mode must be 0 (8-bit scale) or 2 (32-bit scale)", normMode);
  scale32 = normMode == 2;
  if ((conf & (1 << 14)) != 0) bad("CONF0", "streamin (bit 14) is not supported", i64.MIN_VALUE);
  outShift = <i32>(conf >> 16) & 31;
  const quantMode = <i32>(conf >> 21) & 3;
  if (quantMode != 0 && quantMode != 2) bad("CONF0", "quant mode must be 0 (8-bit) or 2 (32-bit output)", quantMode);
  if (norm && quantMode == 2) bad("CONF0", "32-bit output with norm/quant (bit 4) is not supported", i64.MIN_VALUE);
  out32 = !norm;
  relu = (conf & (1 << 23)) == 0;
  perShift = (conf & (1 << 24)) != 0;
  biasOn = (conf & (1 << 25)) != 0;
  signedIn = (conf & (1 << 26)) != 0;

  k = mode == MODE_1X1 ? 1 : 3;
  const subKo = mode == MODE_DW ? KI_3X3 : KO_DENSE;
  const subKi = mode == MODE_1X1 ? KI_1X1 : KI_3X3;
  const num = reg(regs, NUM_KOKI);
  const rem = reg(regs, REM_KOKI);
  nKo = <i32>(num >> 16);
  nKi = <i32>(num & 0xffff);
  remKo = <i32>(rem >> 16);
  remKi = <i32>(rem & 0xffff);
  ko = dim("NUMBER_KoKi/REMAINDER_KoKi (Ko)", nKo, remKo, subKo);
  ki = dim("NUMBER_KoKi/REMAINDER_KoKi (Ki)", nKi, remKi, subKi);
  if (mode == MODE_DW && (nKo != nKi || remKo != remKi)) {
    bad("NUMBER_KoKi/REMAINDER_KoKi", "must count the same channels as Ko and Ki in depthwise mode", i64.MIN_VALUE);
  }
  const hw = reg(regs, NUM_HOWO);
  const remHw = reg(regs, REM_HOWO);
  nHo = <i32>(hw >> 16);
  nWo = <i32>(hw & 0xffff);
  remHo = <i32>(remHw >> 16);
  remWo = <i32>(remHw & 0xffff);
  ho = dim("NUMBER_HoWo/REMAINDER_HoWo (Ho)", nHo, remHo, OUT_HW);
  wo = dim("NUMBER_HoWo/REMAINDER_HoWo (Wo)", nWo, remWo, OUT_HW);
  const pad = reg(regs, PADDING);
  top = <i32>(pad >> 28) & 15;
  right = <i32>(pad >> 24) & 15;
  bottom = <i32>(pad >> 20) & 15;
  left = <i32>(pad >> 16) & 15;
  if (max(max(top, right), max(bottom, left)) > 2) bad("PADDING", "has a side above 2", <i64>pad);
  if ((pad & 0xff00) != 0) bad("PADDING", "bits 8..15 must be 0", <i64>pad);
  padValue = signedIn ? <i32><i8>(pad & 0xff) : <i32>(pad & 0xff);
  const remHi = <i32>(reg(regs, REM_HIWI) >> 16);
  const remWi = <i32>(reg(regs, REM_HIWI) & 0xffff);
  if (remHo + k - 1 - bottom < 1 || remWo + k - 1 - right < 1) {
    bad("REMAINDER_HiWi", "would be 0 or less: the last output subtile of this 1x1 job lies in the padding only " +
      "(not supported: split the job)", i64.MIN_VALUE);
  }
  if (remHi != remHo + k - 1 - bottom || remWi != remWo + k - 1 - right) {
    bad("REMAINDER_HiWi", "must be (rem Ho + k - 1 - pad bottom) << 16 | (rem Wo + k - 1 - pad right)",
      <i64>reg(regs, REM_HIWI));
  }
  woff = <i32>reg(regs, WEIGHT_OFFSET);
  const taps = ki * k * k;
  if (mode != MODE_DW && taps > MAX_WEIGHTS) {
    bad("NUMBER_KoKi", "asks for more weights per output channel than the emulator's model holds (32768)", taps);
  }

  inD0 = <i64>reg(regs, INFEAT_D0);
  inD1 = <i64>reg(regs, INFEAT_D1);
  outD1 = <i64>reg(regs, OUTFEAT_D1);
  outD2 = <i64>reg(regs, OUTFEAT_D2);
  wD0 = <i64>reg(regs, WEIGHTS_D0);
  wD1 = <i64>reg(regs, WEIGHTS_D1);
  const hp = ho + k - 1;
  const wp = wo + k - 1;
  const L1 = "L1 (the NPU reaches L1 only)";

  // Input: only the real (non-padding) positions are read.
  const inPtr = <i64>reg(regs, INFEAT_PTR);
  const chans = mode == MODE_DW ? ko : ki;
  const inFirst = inPtr + <i64>top * inD1 + <i64>left * inD0;
  const inLast = inPtr + <i64>(hp - bottom - 1) * inD1 + <i64>(wp - right - 1) * inD0 + <i64>(chans - 1);
  const inEmpty = hp - bottom <= top || wp - right <= left;
  inBase = place("INFEAT_PTR", "reads", inPtr, inFirst, inEmpty ? inFirst - 1 : inLast, l1Region, -1, L1);
  if (inEmpty) inBase = 0;

  const outPtr = <i64>reg(regs, OUTFEAT_PTR);
  const outLast = outPtr + <i64>(ho - 1) * outD2 + <i64>(wo - 1) * outD1 + <i64>ko * (out32 ? 4 : 1) - 1;
  outBase = place("OUTFEAT_PTR", "writes", outPtr, outPtr, outLast, l1Region, -1, L1);

  if (norm) {
    const sp = <i64>reg(regs, SCALE_PTR);
    scaleBase = place("SCALE_PTR", "reads", sp, sp, sp + <i64>ko * (scale32 ? 4 : 1) - 1, l1Region, -1, L1);
    if (perShift) {
      const p = <i64>reg(regs, SCALE_SHIFT_PTR);
      shiftBase = place("SCALE_SHIFT_PTR", "reads", p, p, p + <i64>ko - 1, l1Region, -1, L1);
    }
    if (biasOn) {
      const p = <i64>reg(regs, SCALE_BIAS_PTR);
      biasBase = place("SCALE_BIAS_PTR", "reads", p, p, p + <i64>ko * 4 - 1, l1Region, -1, L1);
    }
  }

  // Weights: one 32-byte word per (output channel, input subtile, bit plane) (3x3), per (output channel, input
  // subtile) (1x1), per (channel subtile, bit plane) (depthwise), at WEIGHTS_PTR + co * D1 + word * D0.
  const wp0 = <i64>reg(regs, WEIGHTS_PTR);
  const words = mode == MODE_1X1 ? nKi : mode == MODE_3X3 ? nKi * bits : nKo * bits;
  const wLast = wp0 + (mode == MODE_DW ? 0 : <i64>(ko - 1) * wD1) + <i64>(words - 1) * wD0 + WORD - 1;
  if (wmem) {
    const nms = nmsBase;
    wBase = place("WEIGHTS_PTR", "reads weights at", nms + wp0, nms + wp0, nms + wLast, mramRegion, sramRegion,
      "the neural memory (WMEM: NMS_MRAM at offset 0, NMS_SRAM at 0x400000)");
  } else {
    wBase = place("WEIGHTS_PTR", "reads weights at", wp0, wp0, wLast, l1Region, -1, L1);
  }
}

/** TCDM (L1) accesses of the streamer in the last job timed by jobCycles(). */
export let streamerCycles: i64 = 0;

/**
 * Cycles of the decoded job (docs/neureka.md "Timing", HARDWARE.md "Throughput"): per (Ho, Wo, Ko, Ki) subtile a
 * load phase and a matrix-vector phase, per (Ho, Wo, Ko) subtile normalisation and stores. Depthwise runs each
 * channel subtile once (its Ki is its Ko). Also sets streamerCycles (input pixels, L1 weight words, stores).
 */
export function jobCycles(): i64 {
  const pixels: i64 = k == 3 ? NPU_PIXELS_3X3 : NPU_PIXELS_1X1;
  const mv: i64 = <i64>bits * (mode == MODE_3X3 ? NPU_MV_3X3 : mode == MODE_1X1 ? NPU_MV_1X1 : NPU_MV_DW);
  const kiLoops = mode == MODE_DW ? 1 : nKi;
  const subKo = mode == MODE_DW ? KI_3X3 : KO_DENSE;
  let perHw: i64 = 0; // one (Ho, Wo) subtile: every Ko subtile and its Ki subtiles
  let streamPerHw: i64 = 0;
  for (let o = 0; o < nKo; o++) {
    const channels: i64 = o == nKo - 1 ? remKo : subKo;
    const words: i64 = mode == MODE_3X3 ? channels * bits : mode == MODE_1X1 ? channels : <i64>bits;
    // L1 words go through the streamer, after the pixels, in the load phase; WMEM words come on their own port
    // while the matrix-vector phase consumes them (one word per cycle).
    const load = NPU_LOAD_SETUP + pixels + (wmem ? 0 : words);
    perHw += <i64>kiLoops * (load + (wmem ? max(mv, words) : mv));
    streamPerHw += <i64>kiLoops * (pixels + (wmem ? 0 : words));
    if (norm) perHw += NPU_NORM_BASE + (scale32 ? NPU_NORM_SCALE32 : NPU_NORM_SCALE8);
  }
  // Stores: one 32-byte word per output pixel of each (Ho, Wo, Ko) subtile, 4 for int32 output.
  const stores = <i64>nKo * <i64>ho * <i64>wo * (out32 ? 4 : 1);
  streamerCycles = <i64>nHo * <i64>nWo * streamPerHw + stores;
  return <i64>nHo * <i64>nWo * perHw + stores;
}

/**
 * The L1 load of the job jobCycles() last timed (`cycles` long), Q16: the streamer's share of the job's cycles x the
 * share of the TCDM bandwidth one access takes (npu-contention.ts; docs/timing.md "N-EUREKA").
 */
export function tcdmLoadQ16(cycles: i64): i64 {
  return cycles > 0 ? ((streamerCycles * NPU_STREAMER_BYTES) << 16) / (cycles * TCDM_BYTES_PER_CYCLE) : 0;
}

/** Detail word of the event record (events.ts, kind npu). */
export function jobDetail(id: i32): i32 {
  return (id & 255) | (mode << 8) | (wmem ? 1 << 10 : 0) | (bits << 12) | (out32 ? 1 << 16 : 0);
}
