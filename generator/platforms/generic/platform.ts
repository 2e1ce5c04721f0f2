import { CORE_KERNELS } from '../kernel-table.js';
import { boundByPosition } from '../../frontend/passes/bound-by-position.js';
import { nMajorWeights } from '../../frontend/passes/n-major-weights.js';
import { CORE_PASSES } from '../passes.js';
import type { CoreCosts, Platform } from '../types.js';
import { CODE_RATIOS, MEASURED } from './measured-costs.js';

/**
 * The emulator's generic cost table: a scalar in-order core (docs/timing.md; test/platforms/emulator-agrees.test.ts
 * keeps them equal): the hand counts. Gemmini's host core is priced with them; the generic platform replaces the
 * classes measured on its C (measured-costs.ts).
 */
export const SCALAR_CORE_COSTS: CoreCosts = {
  MAC_CONV: 5.25, MAC_DW: 5.25, MAC_GEMM: 5.25, ELEMENT: 5.5, MOVE_ELEM: 5.5, POOL_TAP: 5.5, REQUANT: 9.25, COPY_BYTE: 0.8125,
  SOFTMAX_ELEM: 23.75, NORM_ELEM: 17.75, DIV: 35, CALL: 32, fork: 0, barrier: 0, join: 0,
  // Not hand-counted (0: the per-MAC, per-output and per-element counts above carry them); measured by the fit.
  CONV_UNIT: 0, ELEM_OP: 0, CONV_ROW: 0, GATHER_ROW: 0, REQUANT_WIDE: 0, REQUANT_SPLIT: 0, GEMM_UNIT: 0, POOL_ROW: 0, ROW_WORD: 0, GEMM_BLOCK: 0,
  // The scalar conv loop per tap as Siracusa's (7) with its mul and add apart (+1); a reduction's value: a load, an
  // add, the loop over 4 unrolled values ((2 + 3) / 4).
  MAC_SCALAR: 8, REDUCE_ELEM: 3.25,
  // The scalar GEMM loop per MAC as the rows above count it: lb, lb, mul, add and the loop over 4 ((16 + 2 + 3) / 4).
  MAC_GEMM_SCALAR: 5.25,
  // No transposed-B SIMD path without XpulpV2 (its GEMMs take the scalar loop): the scalar loop's count.
  MAC_GEMM_KDOT: 5.25,
  // The 4x2 block with one row as both rows: MAC_GEMM's count, each product twice.
  MAC_GEMM_LONE: 10.5,
  // A step of the 2x2 stride-2 pool: its two outputs' 8 taps at POOL_TAP's count (the charge before it was a class).
  POOL_PAIR: 44,
  // The 1x2 loop in portable C: MAC_GEMM's count; its outputs' set-up and k tail measured by the fit only (0).
  MAC_GEMM_COL: 5.25, GEMM_COL: 0,
  // A clipped value's branch to the clamp's out-of-line block and back: measured by the fit only (0).
  CLIP_TAKEN: 0,
  CLIP_TEST: 0,
  ELEM_LOAD: 0,
  // A call of the conv's 4x2 register block: its MACs and outputs carry it in the hand count, measured by the fit only (0).
  CONV_BLOCK: 0,
  // A share's bounds (two divisions by the team size): in CALL's hand count, measured by the fit only (0).
  SHARE: 0,
  // A reduction's output (index, loops' entry, the store): measured by the fit only (0).
  REDUCE_OUT: 0,
  // An int8 word's sign handling in the portable SIMD emulation (charged on cores without packed SIMD only): measured
  // by the fit only (0).
  LANE_SIGN: 0,
  // An int8 input-row word's sign extension on the depthwise row path (cores without packed SIMD only): measured by the
  // fit only (0).
  ROW_SIGN: 0,
  // A SIMD conv unit's channel whose accumulators live in memory (a filter past one chunk): measured by the fit only (0).
  CONV_ACC: 0,
  // A tile's driving (its record, its transfers' programming): in CALL here (0); measured by the fit.
  TILE: 0,
  // Not charged here: the portable C reads unaligned words through memcpy (firmgen_simd.h fg_load4), byte by byte.
  MISALIGNED: 0,
  // A MAC of the GEMM's k tail in C: MAC_GEMM_SCALAR's count (the fit measures it).
  MAC_GEMM_TAIL: 5.25,
  LAYER: 0,
  // No transposed-B copy without XpulpV2 (the path is Siracusa's): never charged here.
  GEMM_BT_QUAD: 0,
  // An iSoftmax entry's 64-bit exponent chain, and its 64-bit row sum, beside SOFTMAX_ELEM: measured by the fit only (0).
  SOFTMAX_WIDE: 0,
  SOFTMAX_SUM_WIDE: 0,
  // z by the reciprocal's multiply (a wide input): measured by the fit only (0).
  SOFTMAX_RECIP: 0,
  // A GEMM call's first-unit divisions on a team: measured by the team fit only (0; never charged on one core).
  GEMM_SPLIT: 0,
  TRANSFER: 0,
  // A depthwise pixel pair in the padding's columns: fg_row_at and the words' shifts, measured by the fit only (0).
  ROW_EDGE: 0,
  // ... and at a stride above 1 (conv.c's strided edge: a word per pixel), measured by the fit only (0).
  ROW_EDGE_STRIDED: 0,
  // A depthwise output row's loop over its pairs inside the row: its set-up, measured by the fit only (0).
  ROW_LOOP: 0,
  // An iRMSNorm row's division by N, square root and reciprocal: measured by the fit only (0; its row's DIVs before).
  NORM_ROW: 0,
  // A run of the elementwise loop nest's inner loop (offsets, count, odometer): measured by the fit only (0).
  ELEM_RUN: 0,
  // An iRMSNorm entry's square in a 64-bit row sum: measured by the fit only (0).
  NORM_SUM_WIDE: 0,
  // A layer's code fetched cold: the generic core's ISS models no instruction cache (its fetches are free).
  CODE_BYTE: 0,
  CODE_LAYER: 0,
  CODE_TILES: 0,
  CODE_SHAPE: 0,
  SKELETON: 0,
  CODE_NEXT: 0,
  SOFTMAX_ZDIV: 0,
  NPU_JOB: 0,
  NPU_TILE: 0,
  CODE_RUN: 0,
  // The depthwise plane path's bands, rows and words: measured by the fit only (0).
  DW_BAND: 0,
  DW_ROW: 0,
  DW_WORD: 0,
  DW_LONE: 0,
  GATHER_WORD: 0,
  // An output of the depthwise row path: REQUANT's count (what it was charged before it was a class).
  ROW_OUT: 9.25,
  // An output of the SIMD conv: REQUANT's count, as ROW_OUT.
  CONV_OUT: 9.25,
  // Four channels of a 1x1 conv's gather: measured by the fit only (0, as GATHER_ROW).
  GATHER_QUAD: 0,
  // A table entry read by its 8-bit code: ELEMENT's count (a load, the wrap, a load, a store).
  LOOKUP: 5.5,
  // The QDQ row ops' entries as an iSoftmax or iLayerNorm entry and a division (their charge before the classes).
  TSOFTMAX_ELEM: 23.75 + 35,
  QNORM_ROW: 0,
  QNORM_ELEM: 17.75 + 35,
};

/**
 * A division's cycles on a CV32E40P-class core (the generic core's pipeline, Siracusa's cluster cores): 3 and the
 * divisor's leading zero bits (the CV32E40P user manual: div/rem in 3..35 cycles by the divisor; the ISS's rule,
 * emulator/assembly/iss/timing.ts divExtra, and the emulator's `divide`).
 */
export const cv32e40pDivision = (divisor: number): number => 3 + Math.clz32(divisor);

/**
 * The simplest correct target: one scalar core and one flat RAM. It is the baseline every other platform is
 * compared against. 16 MiB of RAM is this project's choice, not a real chip's.
 */
export const generic: Platform = {
  name: 'generic',
  emulatorId: 0,
  clockHz: 100_000_000,
  cores: 1,
  // A scalar core without SIMD: at best one multiply-accumulate per cycle (docs/timing.md, generic core).
  peakMacsPerCoreCycle: 1,
  launch: 'call',
  memories: [{ name: 'RAM', chipBase: 0x0000_0000, size: 16 * 1024 * 1024 }],
  home: { memory: 'RAM', offset: 0, size: 16 * 1024 * 1024 },
  passes: [...CORE_PASSES, boundByPosition, nMajorWeights],
  kernels: CORE_KERNELS,
  // Measured on its C where the calibration reaches (npm run fit:costs), hand counts elsewhere (docs/timing.md).
  costs: { ...SCALAR_CORE_COSTS, ...MEASURED },
  divisionCycles: cv32e40pDivision,
  codeRatios: CODE_RATIOS,
  // The C image: code, data, stack and arena share the one RAM. Its board is any bare-metal core with a C compiler;
  // the rv32 build (picolibc + semihosting + HAL: 13 KiB measured, 16 KiB allowed) is the one built and run here.
  image: {
    memory: 'RAM', runtimeBytes: 16 * 1024, stackBytes: 8 * 1024, tileReserved: 0, tileLoadImage: false,
    boardFiles: [],
    rv32: { RAM: 0x8000_0000 },
  },
};
