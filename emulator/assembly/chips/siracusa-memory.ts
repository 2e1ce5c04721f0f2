// Siracusa's memory timing for the cluster cores, in one place (docs/timing.md, "L1 bank conflicts" and "L2 from
// the cluster"): the L1 banks the bank-conflict model (banks.ts) arbitrates, and what a core pays per access to L2.

import { enableBanks } from "../banks";

/** L1 (TCDM): 16 banks, word-interleaved, bank = (addr >> 2) & 15, single-cycle access (HARDWARE.md "L1 (TCDM)"). */
export const L1_BANKS: i32 = 16;
export const L1_WORD_LOG2: i32 = 2;

/**
 * ASSUMPTION (HARDWARE.md has no figure): a cluster core's load or store to L2 takes 20 cycles. There is no data
 * cache: the request leaves the cluster through its AXI crossbar, crosses the cluster-to-SoC bridge (the cluster
 * and the SoC are separate clock domains: dual-clock FIFOs each way) and the SoC interconnect to an L2 bank, and the
 * response comes back the same way; CV32E40P waits for it (the kernels' next instructions use the loaded value).
 * Taken as ~5 cycles per crossing of each of the two interconnects and the bridge each way, plus the bank: "tens of
 * cycles", the low end. The cost tables already charge 1 cycle per access, so an L2 access adds 19.
 */
export const L2_ACCESS_CYCLES: i64 = 20;
/** L1 access cycles the cost tables charge for every access (HARDWARE.md "core timing": load/store 1). */
const L1_ACCESS_CYCLES: i64 = 1;

/**
 * Iterations of each core's loop the bank model simulates exactly, a modelling choice (no hardware figure): long
 * enough for the start-up skew of 8 cores to settle (at most 7 stall cycles per bank that all cores want at once)
 * and leave 32 iterations of steady state to measure, short enough to cost microseconds per phase.
 */
export const BANK_WINDOW_ITERATIONS: i32 = 64;

/** L1 is region 0, L2 region 1 (chips/siracusa.ts). */
export function siracusaMemory(): void {
  enableBanks(0, L1_BANKS, L1_WORD_LOG2, 1, L2_ACCESS_CYCLES - L1_ACCESS_CYCLES, BANK_WINDOW_ITERATIONS);
}
