// The PULP cluster as the RV32 core sees it (`gen run --on iss` on Siracusa): which hart is the fabric controller,
// which harts are cluster cores, which regions are L1 and L2, and the sleep/wake state the event unit and the
// scheduler share (cluster.ts runs the harts; cluster-eu.ts, cluster-dma.ts and cluster-banks.ts are the devices).

import { MAX_HARTS } from "./harts";

/** Hart of the fabric controller (runs main: input, output, the cluster task). */
export let fcHart: i32 = 0;
/** Hart of cluster core 0; cores 0..cores-1 are harts firstCore..firstCore+cores-1. */
export let firstCore: i32 = 1;
export let cores: i32 = 0;
export let l1Region: i32 = -1;
export let l2Region: i32 = -1;
/** Extra cycles of a cluster core's access to L2 (the FC's are plain). */
export let l2ClusterWait: i32 = 0;

// Why a hart sleeps (0: it does not).
export const SLEEP_NONE: i32 = 0;
export const SLEEP_MAILBOX: i32 = 1;
export const SLEEP_BARRIER: i32 = 2;
export const SLEEP_TASK: i32 = 3;

const SLEEP = memory.data(MAX_HARTS * 4);
/** Why each hart last slept (kept after its wake, for the trace's wait record: events.ts kind wait). */
const LAST_WHY = memory.data(MAX_HARTS * 4);
const WAKE_AT = memory.data(MAX_HARTS * 8);

export function configureCluster(fc: i32, first: i32, n: i32, l1: i32, l2: i32, l2Wait: i32): void {
  fcHart = fc;
  firstCore = first;
  cores = n;
  l1Region = l1;
  l2Region = l2;
  l2ClusterWait = l2Wait;
  memory.fill(SLEEP, 0, MAX_HARTS * 4);
  memory.fill(LAST_WHY, 0, MAX_HARTS * 4);
  memory.fill(WAKE_AT, 0, MAX_HARTS * 8);
}

export function clusterEnabled(): bool {
  return cores > 0;
}

/** Cluster core index of a hart, -1 for the FC or a hart outside the cluster. */
export function coreOf(hart: i32): i32 {
  const c = hart - firstCore;
  return c >= 0 && c < cores ? c : -1;
}

export function hartOf(core: i32): i32 {
  return firstCore + core;
}

export function sleepOf(hart: i32): i32 {
  return load<i32>(SLEEP + (<usize>hart << 2));
}

export function sleep(hart: i32, why: i32): void {
  store<i32>(SLEEP + (<usize>hart << 2), why);
  if (why != SLEEP_NONE) store<i32>(LAST_WHY + (<usize>hart << 2), why);
}

/** Why the hart last slept (SLEEP_MAILBOX, SLEEP_BARRIER, SLEEP_TASK; SLEEP_NONE if it never did). */
export function lastSleepOf(hart: i32): i32 {
  return load<i32>(LAST_WHY + (<usize>hart << 2));
}

/** Wakes a sleeping hart: it runs again from cycle `at` (its clock is moved there if behind). */
export function wake(hart: i32, at: i64): void {
  store<i32>(SLEEP + (<usize>hart << 2), SLEEP_NONE);
  const p = WAKE_AT + (<usize>hart << 3);
  store<i64>(p, max(load<i64>(p), at));
}

/** The earliest cycle a hart may run at (0: any). */
export function wakeAt(hart: i32): i64 {
  return load<i64>(WAKE_AT + (<usize>hart << 3));
}
