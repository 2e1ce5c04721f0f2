// CV32E40P timing, in cycles beyond the 1 cycle every instruction takes. Source: CV32E40P user manual v1.0.0,
// "Pipeline Details" (docs/source/pipeline.rst): table "Cycle counts per instruction type" and section "Hazards";
// hardware loops: "CORE-V Hardware Loop Extensions" (corev_hw_loop.rst). The table assumes no stall on the
// instruction and data interfaces; memory waits come from the region table or the device (memory.ts, mmio.ts).

/** Branch (taken): 3 cycles, the decision is made in EX and flushes IF and ID. Not taken: 1. */
export const TAKEN_BRANCH_EXTRA: i32 = 2;
/** Jump (jal, jalr, c.j, c.jal, c.jr, c.jalr): 2 cycles, taken in ID. */
export const JUMP_EXTRA: i32 = 1;
/** Jump or taken branch whose target is a 32-bit instruction at a non-word-aligned address: one more cycle. */
export const MISALIGNED_TARGET_EXTRA: i32 = 1;
/** Hazards: "Load data hazard" — the instruction right after a load uses its result: 1 cycle. */
export const LOAD_USE_EXTRA: i32 = 1;
/** Hazards: "Jump register (jalr) data hazard" — jalr reads a register the previous instruction wrote: 1 cycle.
 * ASSUMPTION: a load followed by a dependent jalr costs this one cycle, not two. */
export const JALR_HAZARD_EXTRA: i32 = 1;
/** Multiplication: mul 1 cycle; mulh, mulhsu, mulhu 5. p.mac/p.msu and the SIMD dot products use the single-cycle
 * multiplier (ASSUMPTION: 1 cycle, as mul; the table has no row for them). */
export const MULH_EXTRA: i32 = 4;
/** Division/remainder: 3..35 cycles, by the leading zero bits of operand b: 3 when none (0x80000000), 35 when b is
 * 0. We charge 3 + clz(b) (clz(0) = 32), which meets both ends of the manual's range. ASSUMPTION: a negative divisor
 * of a signed division counts as its raw bits (no leading zeros: 3 cycles). */
export const DIV_BASE: i32 = 3;
/** CSR access: 4 cycles for mstatus, mepc, mtvec, mcause, mcycle, minstret, mhpmcounter*, their high halves,
 * mcountinhibit, mhpmevent*, dcsr, dpc, dscratch0/1; 1 for all other CSRs (incl. the hardware-loop CSRs and
 * mhartid). ASSUMPTION: the user-level read-only aliases cycle/instret (0xC00...) cost as mcycle/minstret. */
export const SLOW_CSR_EXTRA: i32 = 3;
/** Load/store: 1 cycle; 2 for a non-word-aligned word, or a halfword that crosses a word boundary (2 transactions). */
export const MISALIGNED_ACCESS_EXTRA: i32 = 1;
/** Instruction fence (fence.i): 2 cycles (a jump to the next instruction). fence: ASSUMPTION 1 cycle. */
export const FENCE_I_EXTRA: i32 = 1;
/** mret: ASSUMPTION, costed as a jump (2 cycles). wfi, ecall, ebreak: 1 (they stop the core here). */
export const MRET_EXTRA: i32 = 1;
/** Hardware loops: "zero stall cycles for jumping to the first instruction of a loop". Setup instructions: 1 cycle
 * each (ASSUMPTION: the table has no row; they are single-cycle ID-stage writes in the RTL). */
export const HWLOOP_BRANCH_EXTRA: i32 = 0;

/** Stall kinds of the breakdown (iss_stalls). */
export const STALL_LOAD_USE: i32 = 0;
export const STALL_BRANCH: i32 = 1;
export const STALL_MULTI: i32 = 2;
export const STALL_MEMORY: i32 = 3;
export const STALL_MISALIGNED: i32 = 4;
/** Asleep in the event unit: waiting for a fork, a barrier or the end of a cluster task (iss/cluster.ts). */
export const STALL_SYNC: i32 = 5;
/** Asleep until a DMA transfer completes (iss/cluster.ts, the mchan model). */
export const STALL_DMA: i32 = 6;
/** Asleep in the event unit until an N-EUREKA job ends (iss/npu.ts). */
export const STALL_NPU: i32 = 7;
/** Waiting for an instruction line from the cluster's instruction cache levels or L2 (iss/icache.ts). */
export const STALL_FETCH: i32 = 8;
export const STALL_KINDS: i32 = 9;

/** Division cycles beyond the first for divisor `b` (the cycle of the instruction itself is counted apart). */
// @ts-ignore: decorator
@inline export function divExtra(b: i32): i32 {
  return DIV_BASE - 1 + <i32>clz<u32>(<u32>b);
}
