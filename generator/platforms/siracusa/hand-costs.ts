import type { CoreCosts } from '../types.js';

/**
 * The hand-counted cost table of the Siracusa cluster core (instruction counts of pulp-nn-class inner loops times
 * CV32E40P per-instruction cycles; docs/timing.md gives each formula). The measured table (costs.ts, written by
 * `npm run fit:costs` from the real C kernels on the ISS) replaces every class the calibration exercises; the others
 * (softmax, norms, division) and the cluster's fork, barrier and join (an ASSUMPTION, docs/timing.md) come from here.
 */
export const HAND_COUNTS: CoreCosts = {
  MAC_CONV: 14 / 32, MAC_DW: 0.75, MAC_GEMM: 0.625, ELEMENT: 4, MOVE_ELEM: 4, POOL_TAP: 4, REQUANT: 7, COPY_BYTE: 0.5,
  SOFTMAX_ELEM: 18, NORM_ELEM: 14, DIV: 35, CALL: 34, fork: 40, barrier: 20, join: 20,
  // Not hand-counted (0: the per-MAC, per-output and per-element counts above carry them); measured by the fit.
  CONV_UNIT: 0, ELEM_OP: 0, CONV_ROW: 0, REQUANT_WIDE: 0, REQUANT_SPLIT: 0, GEMM_UNIT: 0, POOL_ROW: 0, ROW_WORD: 0, GEMM_BLOCK: 0,
  // The scalar conv loop per tap: the column, its bound test (compare, branch), the address, two loads, p.mac; a
  // reduction's value: a load and an add (hardware loop). Derived like the rows above.
  MAC_SCALAR: 7, REDUCE_ELEM: 2,
  // The scalar GEMM loop per MAC: two loads and p.mac (hardware loop), derived like the rows above.
  MAC_GEMM_SCALAR: 3,
  // The GEMM loop for a B contiguous in n per 16 MACs: an A word and four B words, fg_transpose4's 24 ALU
  // instructions, 4 pv.sdotsp.b, 2 pointer bumps, the loop's branch: 36 / 16 (firmgen_simd.h).
  MAC_GEMM_KDOT: 2.25,
  // The 4x2 block's loop with one row as both: MAC_GEMM's count, each product twice.
  MAC_GEMM_LONE: 1.25,
  // A step of the 2x2 stride-2 pool: its two outputs' 8 taps at POOL_TAP's count (the charge before it was a class).
  POOL_PAIR: 32,
  // The GEMM's 1x2 loop per 8 MACs: three words loaded, two pv.sdotsp.b (firmgen_simd.h fg_dot1x2); its outputs'
  // set-up and k tail measured by the fit only (0).
  MAC_GEMM_COL: 0.625, GEMM_COL: 0,
  // p.clip never branches: the AS counts no clipped value here.
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
  // A tile's driving by core 0 (its record, its transfers' programming): in CALL here (0); measured by the fit.
  TILE: 0,
  // A misaligned word load: one cycle more than an aligned one (CV32E40P user manual, "Load-store unit": a misaligned
  // access is split into two; the ISS's rule, emulator/assembly/iss/timing.ts). Held, not fitted (scripts/cost-fit).
  MISALIGNED: 1,
  // A MAC of the GEMM's k tail in C: per k of a row pair's 4-column block 6 byte loads and 8 multiply-adds, about 2
  // cycles a MAC (assumption; the fit measures it).
  MAC_GEMM_TAIL: 2,
  // A layer's fork and own set-up beside its tiles: in CALL and the fork's cycles here (0); measured by the fit.
  LAYER: 0,
  // Four k of a pair of B's columns copied for a run of rows (gemm.c kdot.runs): 4 lhu, 4 shifts, 4 packs, 2 sw,
  // 2 pointer steps and the loop's taken branch (3): 19.
  GEMM_BT_QUAD: 19,
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
  // A layer's code fetched cold into the instruction cache by each core, per byte of its C and fixed: measured by the
  // fit only (0).
  CODE_BYTE: 0,
  CODE_LAYER: 0,
  CODE_TILES: 0,
  CODE_SHAPE: 0,
  SKELETON: 0,
  CODE_NEXT: 0,
  // An iSoftmax entry's z by a division by a constant (gcc's shifts or multiply-high): measured by the fit only.
  SOFTMAX_ZDIV: 0,
  // Core 0's programming of an N-EUREKA job beyond the register accesses: measured by the fit only.
  NPU_JOB: 0,
  // Its driving of a further tile (the next record and inputs): measured by the fit only.
  NPU_TILE: 0,
  CODE_RUN: 0,
  // The depthwise plane path's bands, rows and words: measured by the fit only (0).
  DW_BAND: 0,
  DW_ROW: 0,
  DW_WORD: 0,
  DW_LONE: 0,
  GATHER_WORD: 0,
  // An output of the depthwise row path: REQUANT's count (what it was charged before it was a class).
  ROW_OUT: 7,
  // An output of the SIMD conv: REQUANT's count, as ROW_OUT.
  CONV_OUT: 7,
  // A 3-wide window row of the paired gather: its 6 bytes at COPY_BYTE's hand count (what the tiler charged the
  // gather before it was counted in rows).
  GATHER_ROW: 3,
  // Four channels of a 1x1 conv's gather: four one-tap window rows at GATHER_ROW's count (their charge before).
  GATHER_QUAD: 12,
  // A table entry read by its 8-bit code: the code's load, its wrap, the entry's load, the store; ELEMENT's count.
  LOOKUP: 4,
  // The QDQ row ops' entries as an iSoftmax or iLayerNorm entry and a division, their rows nothing: what they were
  // charged before their classes (the fit measures them on calibration layers of their own).
  TSOFTMAX_ELEM: 18 + 35,
  QNORM_ROW: 0,
  QNORM_ELEM: 14 + 35,
};
