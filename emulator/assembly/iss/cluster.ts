// Runs the harts of a PULP cluster on the RV32 core (`gen run --on iss` on Siracusa): the fabric controller and the
// cluster cores, interleaved by their clocks. Each step runs the runnable hart with the earliest clock for a short
// slice, so that the harts' L1 accesses meet the bank model (cluster-banks.ts) in about the order of their cycles; a
// hart asleep in the event unit (cluster-eu.ts) is skipped until a device wakes it, and its clock then jumps to the
// wake cycle (the sleep is counted as STALL_SYNC).

import { addHartStall, hartCycles, hartInstret, hartPc, hartReg, hartStall, run, MAX_HARTS, STOP_BLOCK, STOP_BUDGET, STOP_FAULT, STOP_SWITCH, STOP_YIELD } from "./core";
import { configureCluster, cores, firstCore, lastSleepOf, sleepOf, wakeAt, SLEEP_NONE } from "./cluster-state";
import { recordWait } from "../events";
import { markTag, resetEventUnit } from "./cluster-eu";
import { bankConflictCycles } from "./cluster-banks";
import { resetMchan } from "./cluster-dma";
import { resetBanksIss } from "./cluster-banks";
import { configureIcache, icacheL0Misses, icacheSharedMisses } from "./icache";

import { L2_ACCESS_CYCLES } from "../chips/siracusa-memory";
import { STALL_KINDS, STALL_SYNC } from "./timing";
import * as F from "./faults";

/** Empties the cluster's instruction cache (icache.ts) and makes harts first..first+n-1 fetch through it (n = 0: none). */
export function iss_icache_config(first: i32, n: i32): i32 {
  if (n < 0 || first < 0 || first + n > MAX_HARTS) return -1;
  configureIcache(first, n);
  return 0;
}

/** Instructions per slice while several harts can run: short enough that harts stay within a few tens of cycles of
 * each other (the bank model's window is 256 cycles), long enough that switching harts costs little. */
const SLICE: i32 = 16;
/** Instructions per slice when only one hart can run (the tile loop between forks). */
const SOLO: i32 = 4096;

let stopHart: i32 = -1;

// Each cluster core's stack [lo, hi) (0, 0: unchecked). The board gives a cluster core 1 KiB or 4 KiB and nothing
// stops a deeper frame from running into the neighbouring stack, so after every slice sp must lie inside its own.
const STACK_LO = memory.data(MAX_HARTS * 4);
const STACK_HI = memory.data(MAX_HARTS * 4);

export function iss_cluster_stack(hart: i32, lo: u32, hi: u32): void {
  if (hart < 0 || hart >= MAX_HARTS) return;
  store<u32>(STACK_LO + (<usize>hart << 2), lo);
  store<u32>(STACK_HI + (<usize>hart << 2), hi);
}

/** False (with a fault recorded) when the hart's sp has left its stack. */
function stackOk(h: i32): bool {
  const hi = load<u32>(STACK_HI + (<usize>h << 2));
  if (hi == 0) return true;
  const lo = load<u32>(STACK_LO + (<usize>h << 2));
  const sp = <u32>hartReg(h, 2);
  if (sp >= lo && sp <= hi) return true;
  F.record(F.FAULT_STACK, h, hartPc(h), 0, sp, 0, -1);
  return false;
}

// Layer marks (cluster-eu.ts MARK): per mark, its tag and the cluster cores' counters summed at that moment, as f64:
// tag, instructions, the STALL_KINDS stall kinds, bank-conflict cycles, the instruction cache's misses of the private
// levels and of the shared level. The runtime hands the buffer over.
export const MARK_WORDS: i32 = 5 + STALL_KINDS;
let marksPtr: usize = 0;
let marksCap: i32 = 0;
let marksCount: i32 = 0;

/** Where the layer marks go: `capacity` records of MARK_WORDS f64 at `ptr` (linear memory from iss_alloc). */
export function iss_cluster_marks(ptr: usize, capacity: i32): void {
  marksPtr = ptr;
  marksCap = capacity;
  marksCount = 0;
}

export function iss_cluster_mark_count(): i32 {
  return marksCount;
}

function recordMark(): void {
  if (marksCount >= marksCap) return;
  const r = marksPtr + <usize>(marksCount * MARK_WORDS * 8);
  store<f64>(r, <f64>markTag);
  let instructions: i64 = 0;
  for (let c = 0; c < cores; c++) instructions += hartInstret(firstCore + c);
  store<f64>(r + 8, <f64>instructions);
  for (let k = 0; k < STALL_KINDS; k++) {
    let sum: i64 = 0;
    for (let c = 0; c < cores; c++) sum += hartStall(firstCore + c, k);
    store<f64>(r + 16 + (<usize>k << 3), <f64>sum);
  }
  store<f64>(r + 16 + (<usize>STALL_KINDS << 3), <f64>bankConflictCycles());
  store<f64>(r + 24 + (<usize>STALL_KINDS << 3), <f64>icacheL0Misses());
  store<f64>(r + 32 + (<usize>STALL_KINDS << 3), <f64>icacheSharedMisses());
  marksCount++;
}

/**
 * Wires the cluster: hart `fc` is the fabric controller, harts first..first+n-1 the cluster cores; `l1`, `l2` the
 * region indices of L1 and L2 (both must be TIMED regions). L2 costs a cluster core L2_ACCESS_CYCLES per access
 * (the core's own cycle included). The instruction cache starts empty and off (iss_icache_config turns it on).
 */
export function iss_cluster_config(fc: i32, first: i32, n: i32, l1: i32, l2: i32): i32 {
  if (n < 1 || first + n > MAX_HARTS || (fc >= first && fc < first + n) || fc < 0 || fc >= MAX_HARTS) return -1;
  configureCluster(fc, first, n, l1, l2, <i32>L2_ACCESS_CYCLES - 1);
  marksCount = 0;
  resetEventUnit();
  resetMchan();
  resetBanksIss();
  configureIcache(first, 0);
  stopHart = -1;
  return 0;
}

/**
 * Runs harts 0..harts-1 until `budget` instructions in all have run, to the end of the slice that spends it (at most
 * SOLO more). Returns STOP_BUDGET when the budget is spent, else
 * the stop of the hart iss_cluster_stop_hart() names (exit, fault, console full, ...). Every hart asleep: a
 * deadlock fault.
 */
export function iss_cluster_run(harts: i32, budget: f64): i32 {
  let left = <i64>budget;
  while (left > 0) {
    let best = -1;
    let bestAt = i64.MAX_VALUE;
    let second = i64.MAX_VALUE;
    for (let h = 0; h < harts; h++) {
      if (sleepOf(h) != SLEEP_NONE) continue;
      const t = max(hartCycles(h), wakeAt(h));
      if (t < bestAt) { second = bestAt; bestAt = t; best = h; }
      else if (t < second) second = t;
    }
    if (best < 0) {
      let h = 0;
      while (h < harts && sleepOf(h) == SLEEP_NONE) h++;
      F.record(F.FAULT_DEADLOCK, h, 0, 0, <u32>sleepOf(h), 0, -1);
      stopHart = h;
      return STOP_FAULT;
    }
    const c = hartCycles(best);
    if (c < bestAt) {
      addHartStall(best, STALL_SYNC, bestAt - c);
      recordWait(best, lastSleepOf(best), c, bestAt);
    }
    const before = hartInstret(best);
    const slice = second == i64.MAX_VALUE ? SOLO : SLICE;
    // A whole slice whatever the budget left: the harts' interleaving (and so the bank model's order and every
    // cycle) does not depend on how the caller cuts its budget (runtime/node/iss-run.ts calls in pieces).
    const r = run(best, slice);
    left -= hartInstret(best) - before;
    if (!stackOk(best)) {
      stopHart = best;
      return STOP_FAULT;
    }
    if (r == STOP_YIELD) recordMark();
    if (r == STOP_BUDGET || r == STOP_BLOCK || r == STOP_YIELD || r == STOP_SWITCH) continue;
    stopHart = best;
    return r;
  }
  return STOP_BUDGET;
}

export function iss_cluster_stop_hart(): i32 {
  return stopHart;
}
