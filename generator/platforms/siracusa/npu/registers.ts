// N-EUREKA register file and job registers (docs/neureka.md; numbering and packing as the pulp-nnx driver,
// neureka/hal/neureka_task_defs.h and neureka_task.c). The generator computes every job word of a tile at
// generation time; only the pointers are filled in by the firmware.

import { COUT_SUBTILE, DW_SUBTILE, OUT_SUBTILE_HW, WORD_BYTES, cinSubtileOf, encodedStride, type NpuMode } from './weights.js';

export const REG = {
  WEIGHTS_PTR: 0, INFEAT_PTR: 1, OUTFEAT_PTR: 2, SCALE_PTR: 3, SCALE_SHIFT_PTR: 4, SCALE_BIAS_PTR: 5,
  INFEAT_D0: 6, INFEAT_D1: 7, INFEAT_D2: 8, OUTFEAT_D0: 9, OUTFEAT_D1: 10, OUTFEAT_D2: 11,
  WEIGHTS_D0: 12, WEIGHTS_D1: 13, WEIGHTS_D2: 14, REM_KOKI: 15, REM_HOWO: 16, REM_HIWI: 17,
  NUM_KOKI: 18, NUM_HOWO: 19, PADDING: 20, WEIGHT_OFFSET: 21, FILTER_MASK: 22, CONF0: 23,
} as const;
export const JOB_REGISTERS = 24;

const MODE_BITS: Record<NpuMode, number> = { '3x3': 0, '3x3dw': 1, '1x1': 2 };

/** What a job's output stage does (SEMANTICS.md section 3). */
export interface NpuOutputStage {
  /** false: raw int32 accumulators out. */
  normQuant: boolean;
  scale32: boolean;
  bias: boolean;
  relu: boolean;
  shift: number;
}

export interface NpuJobShape {
  mode: NpuMode;
  bits: number;
  signedInput: boolean;
  /** Weights in the neural memory (WMEM) instead of L1. */
  wmem: boolean;
  /** Output pixels of the job and channels. */
  ho: number;
  wo: number;
  cin: number;
  cout: number;
  pads: { top: number; left: number; bottom: number; right: number };
  /** Bytes between input pixels along W and between input rows (the tile buffer's layout). */
  inPixel: number;
  inRow: number;
  /** Bytes between output pixels along W and between output rows. */
  outPixel: number;
  outRow: number;
  stage: NpuOutputStage;
}

export function conf0Of(s: NpuJobShape): number {
  let c = (s.bits - 1) | (MODE_BITS[s.mode] << 5) | ((s.wmem ? 1 : 0) << 9);
  if (s.stage.normQuant) {
    c |= (1 << 4) | ((s.stage.scale32 ? 2 : 0) << 12) | ((s.stage.shift & 31) << 16) | ((s.stage.relu ? 0 : 1) << 23);
    if (s.stage.bias) c |= 1 << 25;
  } else {
    c |= 2 << 21; // 32-bit output
  }
  if (s.signedInput) c |= 1 << 26;
  return c >>> 0;
}

const half = (hi: number, lo: number): number => ((hi << 16) | (lo & 0xffff)) >>> 0;
const count = (n: number, sub: number): number => Math.ceil(n / sub);
const rem = (n: number, sub: number): number => n - (count(n, sub) - 1) * sub;

export interface SubtileCounts {
  nKo: number; nKi: number; nHo: number; nWo: number;
  remKo: number; remKi: number; remHo: number; remWo: number;
}

export function subtileCounts(s: NpuJobShape): SubtileCounts {
  const ko = s.mode === '3x3dw' ? DW_SUBTILE : COUT_SUBTILE;
  const ki = cinSubtileOf(s.mode);
  const kIn = s.mode === '3x3dw' ? s.cout : s.cin;
  return {
    nKo: count(s.cout, ko), nKi: count(kIn, ki), nHo: count(s.ho, OUT_SUBTILE_HW), nWo: count(s.wo, OUT_SUBTILE_HW),
    remKo: rem(s.cout, ko), remKi: rem(kIn, ki), remHo: rem(s.ho, OUT_SUBTILE_HW), remWo: rem(s.wo, OUT_SUBTILE_HW),
  };
}

/**
 * The 24 job words of a job, pointers (registers 0..5) left 0: the firmware adds the buffers' addresses and, for
 * the input, subtracts `inputPadBytes` (the input is addressed as if padded, pulp-nnx neureka_pad_addr).
 */
export function jobWords(s: NpuJobShape): { words: number[]; inputPadBytes: number } {
  const c = subtileCounts(s);
  const k = s.mode === '1x1' ? 1 : 3;
  const w = new Array<number>(JOB_REGISTERS).fill(0);
  w[REG.INFEAT_D0] = s.inPixel;
  w[REG.INFEAT_D1] = s.inRow;
  w[REG.OUTFEAT_D0] = WORD_BYTES;
  w[REG.OUTFEAT_D1] = s.outPixel;
  w[REG.OUTFEAT_D2] = s.outRow;
  w[REG.WEIGHTS_D0] = WORD_BYTES;
  w[REG.WEIGHTS_D1] = s.mode === '3x3dw' ? 0 : encodedStride(s.mode, s.bits, s.cin);
  w[REG.REM_KOKI] = half(c.remKo, c.remKi);
  w[REG.REM_HOWO] = half(c.remHo, c.remWo);
  w[REG.REM_HIWI] = half(c.remHo + k - 1 - s.pads.bottom, c.remWo + k - 1 - s.pads.right);
  w[REG.NUM_KOKI] = half(c.nKo, c.nKi);
  w[REG.NUM_HOWO] = half(c.nHo, c.nWo);
  w[REG.PADDING] = (((s.pads.top & 15) << 28) | ((s.pads.right & 15) << 24) | ((s.pads.bottom & 15) << 20) | ((s.pads.left & 15) << 16)) >>> 0;
  w[REG.WEIGHT_OFFSET] = (-(1 << (s.bits - 1))) >>> 0;
  w[REG.CONF0] = conf0Of(s);
  return { words: w, inputPadBytes: s.pads.top * s.inRow + s.pads.left * s.inPixel };
}
