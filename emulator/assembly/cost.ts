// Per-chip cost tables: the cycles one unit of each cost class costs one core, and the cluster's fork, barrier
// and join overheads. Every figure is an instruction count of the kernel's inner loop times the per-instruction
// cycles of the core (HARDWARE.md, "core timing (CV32E40P)"); docs/timing.md explains each formula.
// Costs are kept in Q16 fixed point (cycles * 65536) so a fraction of a cycle per unit (14/32 per conv MAC)
// accumulates exactly instead of rounding on every compute() call.

import {
  CALL, CONV_ROW, CONV_UNIT, COPY_BYTE, DIV, ELEM_OP, ELEMENT, GATHER_ROW, GEMM_UNIT, MAC_SCALAR, POOL_ROW, REDUCE_ELEM, REQUANT_WIDE, MAC_CONV, MAC_DW, MAC_GEMM, MOVE_ELEM, NORM_ELEM, NUM_CLASSES, POOL_TAP,
  GEMM_BLOCK, MAC_GEMM_KDOT, MAC_GEMM_COL, MAC_GEMM_LONE, MAC_GEMM_SCALAR, GEMM_COL, CLIP_TAKEN, POOL_PAIR, ROW_EDGE, ROW_OUT, GATHER_QUAD, REQUANT_SPLIT, LOOKUP, TSOFTMAX_ELEM, QNORM_ROW, QNORM_ELEM, CLIP_TEST, ELEM_LOAD, CONV_BLOCK, CONV_OUT, SHARE, REDUCE_OUT, LANE_SIGN, ROW_SIGN, CONV_ACC, TILE, MISALIGNED, MAC_GEMM_TAIL, LAYER, GEMM_BT_QUAD, SOFTMAX_WIDE, SOFTMAX_SUM_WIDE, SOFTMAX_RECIP, GEMM_SPLIT, TRANSFER, ROW_EDGE_STRIDED, ROW_LOOP, NORM_ROW, ELEM_RUN, NORM_SUM_WIDE, CODE_BYTE, CODE_LAYER, CODE_TILES, DW_BAND, DW_ROW, DW_WORD, DW_LONE, REQUANT, ROW_WORD, SOFTMAX_ELEM, GATHER_WORD, CODE_SHAPE, SKELETON, CODE_NEXT, SOFTMAX_ZDIV, NPU_JOB, NPU_TILE, CODE_RUN,
} from "../../runtime/as/cost";
import { GENERIC_MEASURED_64THS } from "./chips/generic-measured";
import { SIRACUSA_MEASURED_64THS } from "./chips/siracusa-measured";
import { DIV_BASE } from "./iss/timing";

export const Q: i64 = 16;

const TABLE = memory.data(NUM_CLASSES * 8);

/** Cluster overheads of the configured chip, in whole cycles. */
export let forkCycles: i64 = 0;
export let barrierCycles: i64 = 0;
export let joinCycles: i64 = 0;

// CV32E40P per-instruction cycles (HARDWARE.md "core timing"): ALU, mul, load and store 1 cycle (load-use stalls
// are scheduled away in the kernels below), taken branch 3, jump 2, division up to 35 (3..35: we take the worst
// case), pv.sdotsp.b 4 int8 MACs in 1 cycle (assumed, HARDWARE.md).
const INSTR: i64 = 1;
const BRANCH_TAKEN: i64 = 3;
const JUMP: i64 = 2;
const DIV_WORST: i64 = 35;

/**
 * Whether the configured chip's cores divide in a time that follows the divisor (CV32E40P: 3 cycles plus the
 * divisor's leading zero bits, the ISS's rule, iss/timing.ts divExtra; the Siracusa cluster's cores and the generic
 * RV32 core), for the divisions whose divisor the AS firmware knows (divisionQ). Else a division costs DIV.
 */
let divideByDivisor = false;

/** One division by `divisor` on the configured chip's core, in Q16 cycles: the whole instruction (its issue cycle
 * and the divider's), or DIV's table cost where the chip has no operand-dependent divider. */
export function divisionQ(divisor: i32): i64 {
  return divideByDivisor ? <i64>(DIV_BASE + <i32>clz<u32>(<u32>divisor)) << Q : costAt(DIV);
}

// ASSUMPTION (the only one on cluster synchronisation): HARDWARE.md says the event unit wakes and synchronises
// cores "in tens of cycles" but publishes no number. We take fork 40 (the fabric controller posts the entry point
// and team mask to the event unit across the SoC-cluster bus, cores leave clock-gated sleep), barrier 20 (each core
// writes the barrier register and sleeps until the event), join 20 (the last core's end-of-team event reaches the
// fabric controller).
const SIRACUSA_FORK: i64 = 40;
const SIRACUSA_BARRIER: i64 = 20;
const SIRACUSA_JOIN: i64 = 20;

/** The classes measured on the C (npm run fit:costs; docs/timing.md "The fit") replace their hand counts. */
function applyMeasured(m: StaticArray<i32>): void {
  for (let c = 0; c < min(NUM_CLASSES, m.length); c++) {
    const v = m[c];
    if (v >= 0) set(c, per(<i64>v, 64));
  }
}

/**
 * An output's requantization, and the depthwise row path's and the SIMD conv's output (ROW_OUT, CONV_OUT) at the same
 * hand count: their charge before they were classes of their own (the fit measures them where the C runs on the ISS).
 */
function setRequant(q16: i64): void {
  set(REQUANT, q16);
  set(ROW_OUT, q16);
  set(CONV_OUT, q16);
}

/**
 * The QDQ row ops by the classes they were charged before theirs (an iSoftmax or iLayerNorm entry and a division; the
 * fit measures them where a platform's C runs on the ISS). After SOFTMAX_ELEM, NORM_ELEM and DIV are set.
 */
function setQdqRows(): void {
  set(TSOFTMAX_ELEM, costAt(SOFTMAX_ELEM) + costAt(DIV));
  set(QNORM_ROW, 0);
  set(QNORM_ELEM, costAt(NORM_ELEM) + costAt(DIV));
}

/** Data movement and pooling taps, hand-counted as one ELEMENT (a load, a store or a max, the loop). */
function setElementLike(): void {
  set(MOVE_ELEM, costAt(ELEMENT));
  set(POOL_TAP, costAt(ELEMENT));
  // A table entry read by its code: a load, the wrap, a load and a store, one ELEMENT (hand count).
  set(LOOKUP, costAt(ELEMENT));
  // A step of the 2x2 stride-2 pool: its two outputs' 8 taps (the charge before it was a class of its own).
  set(POOL_PAIR, 8 * costAt(POOL_TAP));
  // Not hand-counted: the per-MAC, per-output and per-element counts carry them (0), the fit measures them where a
  // platform's C runs on the ISS (generator/platforms/*/hand-costs: the same zeros).
  set(CONV_UNIT, 0);
  set(ELEM_OP, 0);
  set(CONV_ROW, 0);
  set(GATHER_ROW, 0);
  set(GATHER_QUAD, 0);
  set(REQUANT_WIDE, 0);
  set(REQUANT_SPLIT, 0);
  set(GEMM_UNIT, 0);
  set(POOL_ROW, 0);
  set(ROW_WORD, 0);
  set(GEMM_BLOCK, 0);
  set(GEMM_COL, 0);
  set(CLIP_TAKEN, 0);
  set(CLIP_TEST, 0);
  set(ELEM_LOAD, 0);
  set(CONV_BLOCK, 0);
  set(SHARE, 0);
  set(REDUCE_OUT, 0);
  set(LANE_SIGN, 0);
  set(ROW_SIGN, 0);
  set(CONV_ACC, 0);
  set(ROW_EDGE, 0);
  set(TILE, 0);
  set(MISALIGNED, 0);
  set(MAC_GEMM_TAIL, 0);
  set(LAYER, 0);
  set(GEMM_BT_QUAD, 0);
  set(SOFTMAX_WIDE, 0);
  set(SOFTMAX_SUM_WIDE, 0);
  set(SOFTMAX_RECIP, 0);
  set(GEMM_SPLIT, 0);
  set(TRANSFER, 0);
  set(ROW_EDGE_STRIDED, 0);
  set(ROW_LOOP, 0);
  set(NORM_ROW, 0);
  set(ELEM_RUN, 0);
  set(NORM_SUM_WIDE, 0);
  set(CODE_BYTE, 0);
  set(CODE_LAYER, 0);
  set(CODE_TILES, 0);
  set(DW_BAND, 0);
  set(DW_ROW, 0);
  set(DW_WORD, 0);
  set(DW_LONE, 0);
  set(GATHER_WORD, 0);
  set(CODE_SHAPE, 0);
  set(SKELETON, 0);
  set(CODE_NEXT, 0);
  set(SOFTMAX_ZDIV, 0);
  set(NPU_JOB, 0);
  set(NPU_TILE, 0);
  set(CODE_RUN, 0);
}

/** cycles / units as Q16. */
function per(cycles: i64, units: i64): i64 {
  return (cycles << Q) / units;
}

function set(cls: i32, q16: i64): void {
  store<i64>(TABLE + (<usize>cls << 3), q16);
}

/** Cost of one unit of `cls` in Q16 cycles (cls already range-checked). */
// @ts-ignore: decorator
@inline export function costAt(cls: i32): i64 {
  return load<i64>(TABLE + (<usize>cls << 3));
}

/** Cycles per unit of `cls` on the configured chip, for reports and tests. */
export function cost_cycles(cls: i32): f64 {
  if (<u32>cls >= <u32>NUM_CLASSES) return -1;
  return <f64>costAt(cls) / <f64>(1 << Q);
}

/**
 * Replaces one class's cost (cycles x 64, as the measured tables keep them) after the chip is configured: the cost
 * fit runs its calibration against a fixed table, so what it measures does not depend on the table it writes.
 */
export function set_cost_64ths(cls: i32, v: i32): void {
  if (<u32>cls >= <u32>NUM_CLASSES || v < 0) return;
  set(cls, per(<i64>v, 64));
}

export function fork_cycles(): i32 {
  return <i32>forkCycles;
}

export function barrier_cycles(): i32 {
  return <i32>barrierCycles;
}

export function join_cycles(): i32 {
  return <i32>joinCycles;
}

/** Siracusa cluster core: CV32E40P + XpulpV2 (SIMD dot products, hardware loops, post-increment loads, p.clip). */
export function siracusaCosts(): void {
  divideByDivisor = true;
  // pulp-nn 4x2 matmul inner loop: 32 MACs in 14 instructions (HARDWARE.md "int8 kernel throughput").
  set(MAC_CONV, per(14 * INSTR, 32));
  // Depthwise has no reuse across output channels: per pv.sdotsp.b one activation word and one weight word load.
  set(MAC_DW, per(3 * INSTR, 4));
  // Fully connected: one activation word reused by two output neurons: 1 + 2 loads + 2 sdotp per 8 MACs.
  set(MAC_GEMM, per(5 * INSTR, 8));
  // lb, lb, op, sb; post-increment addressing and a hardware loop leave no loop overhead.
  set(ELEMENT, per(4 * INSTR, 1));
  setElementLike();
  // lw mul, lw add (per-channel), mul, add, sra, p.clip, sb.
  setRequant(per(7 * INSTR, 1));
  // lw + sw per 32-bit word, unrolled so the store never waits on its load.
  set(COPY_BYTE, per(2 * INSTR, 4));
  // A 3-wide window row of the paired gather: its 6 bytes as COPY_BYTE (generator/platforms/siracusa/hand-costs.ts).
  set(GATHER_ROW, per(2 * INSTR * 6, 4));
  // Four channels of a 1x1 conv's gather: four window rows of one tap at GATHER_ROW (their charge before the class).
  set(GATHER_QUAD, 4 * costAt(GATHER_ROW));
  // The scalar conv loop per tap: column, bound test (compare, branch), address, two loads, p.mac; a reduction's
  // value: a load and an add.
  set(MAC_SCALAR, per(7 * INSTR, 1));
  // The scalar GEMM loop per MAC: two loads and p.mac in a hardware loop.
  set(MAC_GEMM_SCALAR, per(3 * INSTR, 1));
  // The GEMM's k tail in C: per k of a 4x2 block 6 byte loads and 8 multiply-adds, about 2 cycles a MAC (assumption).
  set(MAC_GEMM_TAIL, per(2 * INSTR, 1));
  // The GEMM loop for a B contiguous in n per 16 MACs: 5 loads, fg_transpose4's 24 ALU instructions, 4 pv.sdotsp.b,
  // 2 pointer bumps, the loop's branch.
  set(MAC_GEMM_KDOT, per(36 * INSTR, 16));
  // B's column pair copied for a run of rows, per 4 k: 4 lhu, 4 shifts, 4 packs, 2 sw, 2 pointer steps, the branch.
  set(GEMM_BT_QUAD, per(16 * INSTR + BRANCH_TAKEN, 1));
  // A row taken alone through the 4x2 block (the row as both rows) computes each of its products twice.
  set(MAC_GEMM_LONE, 2 * costAt(MAC_GEMM));
  // The 1x2 loop per 8 MACs: three words loaded, two pv.sdotsp.b (firmgen_simd.h fg_dot1x2).
  set(MAC_GEMM_COL, per(5 * INSTR, 8));
  set(REDUCE_ELEM, per(2 * INSTR, 1));
  // iSoftmax, three passes: max (lb, p.max) 2; exp (lb, sub, neg, p.clip, mul, add, add, mul, mul, add, sra, sw,
  // add) 13; normalise (lw, mul, sb) 3. Divisions are charged as DIV.
  set(SOFTMAX_ELEM, per(18 * INSTR, 1));
  // iLayerNorm, three passes: sum (lb, add) 2; variance (lb, sub, mul, add) 4; output (lb, sub, lw, mul, lw,
  // add, sra, sb) 8. The divisions by N and std and the square root are charged as DIV.
  set(NORM_ELEM, per(14 * INSTR, 1));
  set(DIV, per(DIV_WORST, 1));
  setQdqRows();
  // call + return (2 jumps), save/restore 8 callee-saved registers (16), 6 argument loads from the struct,
  // share bounds from the core id (~6), 2 hardware-loop setups.
  set(CALL, per(2 * JUMP + 16 * INSTR + 6 * INSTR + 6 * INSTR + 2 * INSTR, 1));
  // A misaligned word load: one extra cycle (CV32E40P user manual: split into two accesses; the ISS's rule).
  set(MISALIGNED, per(INSTR, 1));
  applyMeasured(SIRACUSA_MEASURED_64THS);
  forkCycles = SIRACUSA_FORK;
  barrierCycles = SIRACUSA_BARRIER;
  joinCycles = SIRACUSA_JOIN;
}

/**
 * Generic core: a plain scalar RV32IM core with the CV32E40P pipeline timing but none of XpulpV2: no SIMD, no
 * hardware loops (a loop iteration costs its pointer bumps and a taken branch, unrolled 4x), no post-increment,
 * no p.clip / p.max (a compare and a not-taken branch each). Its "cluster" is the core itself: no fork overhead.
 */
export function genericCosts(measured: bool): void {
  divideByDivisor = true;
  // Per 4 MACs: 8 lb, 4 mul, 4 add, 2 pointer addi, 1 taken branch.
  const mac = per(8 * INSTR + 4 * INSTR + 4 * INSTR + 2 * INSTR + BRANCH_TAKEN, 4);
  set(MAC_CONV, mac);
  set(MAC_DW, mac);
  set(MAC_GEMM, mac);
  // Loop overhead per element of a 4x-unrolled loop over two pointers: (2 addi + taken branch) / 4.
  const loop2: i64 = 2 * INSTR + BRANCH_TAKEN;
  // Per 4 elements: 8 lb, 4 op, 4 sb, 3 pointer addi, 1 taken branch.
  set(ELEMENT, per(16 * INSTR + 3 * INSTR + BRANCH_TAKEN, 4));
  setElementLike();
  // lw, lw, mul, add, sra, 2 compare + not-taken branch for the clip, sb = 8, plus the loop.
  setRequant(per(8 * INSTR * 4 + loop2, 4));
  // Per 16 bytes: 4 lw, 4 sw, 2 addi, 1 taken branch.
  set(COPY_BYTE, per(8 * INSTR + 2 * INSTR + BRANCH_TAKEN, 16));
  // The Siracusa body (18) with p.max and p.clip replaced by compare + branch (+2), and three passes of loop.
  set(SOFTMAX_ELEM, per(20 * INSTR * 4 + 3 * loop2, 4));
  // The Siracusa body (14) and three passes of loop.
  set(NORM_ELEM, per(14 * INSTR * 4 + 3 * loop2, 4));
  set(DIV, per(DIV_WORST, 1));
  setQdqRows();
  // As on Siracusa minus the hardware-loop setup.
  set(CALL, per(2 * JUMP + 16 * INSTR + 6 * INSTR + 6 * INSTR, 1));
  // The scalar conv loop as Siracusa's with mul and add apart; a reduction's value: lb, add, and the loop over 4.
  set(MAC_SCALAR, per(8 * INSTR, 1));
  // The scalar GEMM loop per MAC: lb, lb, mul, add, and the loop over 4 unrolled MACs.
  set(MAC_GEMM_SCALAR, per(4 * 4 * INSTR + 2 * INSTR + BRANCH_TAKEN, 4));
  // No transposed-B SIMD path without XpulpV2: the scalar loop's count.
  set(MAC_GEMM_TAIL, costAt(MAC_GEMM_SCALAR));
  set(MAC_GEMM_KDOT, costAt(MAC_GEMM_SCALAR));
  // A row taken alone through the 4x2 block (the row as both rows) computes each of its products twice.
  set(MAC_GEMM_LONE, 2 * costAt(MAC_GEMM));
  // The 1x2 loop in portable C: the same MACs as the block's.
  set(MAC_GEMM_COL, costAt(MAC_GEMM));
  set(REDUCE_ELEM, per(4 * 2 * INSTR + 2 * INSTR + BRANCH_TAKEN, 4));
  // The generic platform's own core is measured on its C; Gemmini's host core keeps the hand counts.
  if (measured) applyMeasured(GENERIC_MEASURED_64THS);
  forkCycles = 0;
  barrierCycles = 0;
  joinCycles = 0;
}

// ARM Cortex-M4 per-instruction cycles (ARM Cortex-M4 Technical Reference Manual, "Processor instruction timings";
// HARDWARE.md names the core, the TRM its timing): ALU, MUL/MLA/SMULL/SMLAL/SMLAD 1, LDR 2 (N consecutive
// independent loads N + 1), STR 1, a taken branch 1 + P with a pipeline refill P of 1..3 (we take 2), SDIV 2..12
// (we take the worst case, 12), PUSH/POP of N registers 1 + N.
const M4_LOAD: i64 = 2;
const M4_BRANCH_TAKEN: i64 = 3;
const M4_DIV_WORST: i64 = 12;

/**
 * SpiNNaker2 PE core (Cortex-M4F, DSP extension: SMLAD dual 16-bit MACs, SXTB16, SSAT/USAT; no hardware loops).
 * GEMMs run on the MLA (mla.ts, its own timing); these classes price the work the core does itself: requantization,
 * elementwise layers, copies, softmax, and MACs of operands the MLA cannot take.
 */
export function spinnaker2Costs(): void {
  divideByDivisor = false;
  // Per 4 int8 MACs: LDR A word + LDR B word (2 + 1, pipelined), 4 SXTB16 (unpack to 16-bit pairs), 2 SMLAD = 9.
  const mac = per(M4_LOAD + INSTR + 4 * INSTR + 2 * INSTR, 4);
  set(MAC_CONV, mac);
  set(MAC_DW, mac);
  set(MAC_GEMM, mac);
  // LDRB, LDRB (2 + 1), op, STRB, plus the loop (SUBS + taken branch = 4) over 4 unrolled elements.
  set(ELEMENT, per(4 * (M4_LOAD + INSTR + INSTR + INSTR) + INSTR + M4_BRANCH_TAKEN, 4));
  setElementLike();
  // Per output: LDR acc, LDR mul, LDR add (2 + 1 + 1), SMULL (64-bit product) 1, ADDS/ADC the add term 2, ADDS/ADC the
  // rounding term 2, 64-bit arithmetic shift (LSR, ORR, ASR) 3, SSAT/USAT or 2 compares for the clip 2, STRB 1 = 15,
  // plus the loop over 4 unrolled outputs.
  setRequant(per(4 * 15 + INSTR + M4_BRANCH_TAKEN, 4));
  // LDM/STM of 4 words: (1 + 4) + (1 + 4) cycles per 16 bytes.
  set(COPY_BYTE, per(10 * INSTR, 16));
  // The Siracusa iSoftmax body (18 instructions, docs/timing.md) with its 3 loads at 2 cycles (+3), p.max and p.clip
  // as compare + conditional move (+2), and 3 passes of loop overhead over 4 unrolled elements (3 x 4 / 4).
  set(SOFTMAX_ELEM, per(4 * (18 + 3 + 2) + 3 * (INSTR + M4_BRANCH_TAKEN), 4));
  // The iLayerNorm body (14) with its 4 loads at 2 cycles (+4) and 3 passes of loop overhead.
  set(NORM_ELEM, per(4 * (14 + 4) + 3 * (INSTR + M4_BRANCH_TAKEN), 4));
  set(DIV, per(M4_DIV_WORST, 1));
  setQdqRows();
  // BL + BX (2 x 3), PUSH/POP of 8 registers (2 x 9), 6 argument loads (7) = 31.
  set(CALL, per(2 * M4_BRANCH_TAKEN + 2 * (1 + 8) + 7, 1));
  set(MAC_SCALAR, mac);
  set(MAC_GEMM_SCALAR, mac);
  set(MAC_GEMM_TAIL, mac);
  set(MAC_GEMM_KDOT, mac);
  // A row taken alone through the 4x2 block (the row as both rows) computes each of its products twice.
  set(MAC_GEMM_LONE, 2 * costAt(MAC_GEMM));
  // The 1x2 loop: the same MACs as the block's (its own kernels price every MAC alike).
  set(MAC_GEMM_COL, costAt(MAC_GEMM));
  set(REDUCE_ELEM, costAt(ELEMENT));
  forkCycles = 0;
  barrierCycles = 0;
  joinCycles = 0;
}
