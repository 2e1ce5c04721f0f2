// The cluster event unit as firmgen's RV32 cores reach it: a per-core port at 0x1020_4000 (the PULP cluster's
// peripheral demux, HARDWARE.md "cluster DMA" gives 0x1020_4400 for the DMA behind the same demux). The register
// layout below is firmgen's own, not the PULP event unit's (HARDWARE.md does not list it): it offers what
// pi_cl_team_fork, pi_cl_team_barrier and pi_cluster_send_task need, as register accesses, so that the C HAL of the
// ISS build (runtime/c/siracusa/hal_iss.c) is register level and its cost is instructions the core counts.
//
//   +0x00 R  CORE_ID   the reading core's cluster index (0..7); 32 for the fabric controller
//   +0x04 W  TEAM      cores in the team barrier (1..cores)
//   +0x08 W  FN        function to dispatch;  R: this core's mailbox function, sleeping until one arrives
//   +0x0c W  ARG       its argument;          R: this core's mailbox argument (empties the mailbox)
//   +0x10 W  WAKE      bit mask of cluster cores: each gets (FN, ARG) in its mailbox and wakes
//   +0x14 R  BARRIER   arrive at the team barrier and sleep until every team member has arrived
//   +0x18 W  TASK_END  cluster core 0: the cluster task is over; R (FC): sleep until it is
//   +0x1c R  DMA_SLEEP sleep until the next cluster-DMA completion (the mchan event line), 0 at once if none pends
//   +0x20 W  MARK      a layer mark (layer id x 2 + 1 at its end): the cluster's counters are recorded (cluster.ts)
//   +0x24 R  NPU_SLEEP wait and clear on N-EUREKA's completion event (cluster event 12 on the chip): at once if one
//                      is pending for this core, else asleep until the next job's end (iss/npu.ts, stall kind NPU)
//
// A sleeping read does not retire (DEV_BLOCK); the scheduler (cluster.ts) runs it again once the hart is woken.

import { deviceSetDmaWait, deviceSetFault, deviceSetStatus, DEV_BAD_OFFSET, DEV_BLOCK, DEV_SWITCH, DEV_YIELD } from "./mmio";
import {
  cores, coreOf, fcHart, hartOf, sleep, sleepOf, wake, SLEEP_BARRIER, SLEEP_MAILBOX, SLEEP_NONE, SLEEP_TASK,
} from "./cluster-state";
import { MAX_HARTS } from "./harts";
import { FAULT_EVENT_UNIT } from "./faults";
import { mchanNextCompletion } from "./cluster-dma";
import { npuEventWait } from "./npu";
import { setOuterLayer } from "../events";

export const EU_BASE: u32 = 0x1020_4000;
export const EU_SIZE: u32 = 0x400;
const CORE_ID: u32 = 0x00;
const TEAM: u32 = 0x04;
const FN: u32 = 0x08;
const ARG: u32 = 0x0c;
const WAKE: u32 = 0x10;
const BARRIER: u32 = 0x14;
const TASK_END: u32 = 0x18;
const DMA_SLEEP: u32 = 0x1c;
const MARK: u32 = 0x20;
const NPU_SLEEP: u32 = 0x24;

/** The last MARK written, taken by the scheduler when the core yields. */
export let markTag: i32 = -1;

/**
 * ASSUMPTION (HARDWARE.md: "wakes cores and synchronises them in tens of cycles", no figure): an event reaches a
 * sleeping core and its clock is ungated 8 cycles after the write (or last barrier arrival) that raised it. The
 * instructions around it (the HAL's register accesses, calls, the closure's argument loads) are counted by the
 * cores themselves, which makes a fork of the ISS build cost a few tens of cycles, as the AS cost table's fork 40
 * and barrier 20 (emulator/assembly/cost.ts) say in one number.
 */
export const EU_WAKE_CYCLES: i64 = 8;

const SEND_FN = memory.data(MAX_HARTS * 4);
const SEND_ARG = memory.data(MAX_HARTS * 4);
const MAIL_FN = memory.data(MAX_HARTS * 4);
const MAIL_ARG = memory.data(MAX_HARTS * 4);
const MAIL_FULL = memory.data(MAX_HARTS * 4);
/** Barrier generation each core arrived in, -1 when it is not at the barrier. */
const ARRIVED_IN = memory.data(MAX_HARTS * 4);

let team: i32 = 0;
let arrived: i32 = 0;
let generation: i32 = 0;
let lastArrival: i64 = 0;
let taskEnded = false;

// @ts-ignore: decorator
@inline function word(table: usize, i: i32): usize {
  return table + (<usize>i << 2);
}

export function resetEventUnit(): void {
  memory.fill(SEND_FN, 0, MAX_HARTS * 4);
  memory.fill(SEND_ARG, 0, MAX_HARTS * 4);
  memory.fill(MAIL_FN, 0, MAX_HARTS * 4);
  memory.fill(MAIL_ARG, 0, MAX_HARTS * 4);
  memory.fill(MAIL_FULL, 0, MAX_HARTS * 4);
  memory.fill(ARRIVED_IN, 0xff, MAX_HARTS * 4);
  team = cores;
  arrived = 0;
  generation = 0;
  lastArrival = 0;
  taskEnded = false;
  markTag = -1;
}

function block(hart: i32, why: i32): i32 {
  sleep(hart, why);
  deviceSetStatus(DEV_BLOCK);
  return 0;
}

export function euRead(hart: i32, offset: u32, size: i32, now: i64): i32 {
  const core = coreOf(hart);
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return 0; }
  if (offset == CORE_ID) return core >= 0 ? core : 32;
  if (offset == DMA_SLEEP) {
    const t = mchanNextCompletion(now);
    if (t > now) deviceSetDmaWait(t - now);
    return 0;
  }
  if (offset == NPU_SLEEP) {
    npuEventWait(hart, now);
    return 0;
  }
  if (offset == TASK_END) {
    if (hart != fcHart) { deviceSetStatus(DEV_BAD_OFFSET); return 0; }
    if (!taskEnded) return block(hart, SLEEP_TASK);
    taskEnded = false;
    return 0;
  }
  if (core < 0) { deviceSetStatus(DEV_BAD_OFFSET); return 0; }
  if (offset == FN) {
    if (load<i32>(word(MAIL_FULL, core)) == 0) return block(hart, SLEEP_MAILBOX);
    return load<i32>(word(MAIL_FN, core));
  }
  if (offset == ARG) {
    store<i32>(word(MAIL_FULL, core), 0);
    return load<i32>(word(MAIL_ARG, core));
  }
  if (offset == BARRIER) return barrier(hart, core, now);
  deviceSetStatus(DEV_BAD_OFFSET);
  return 0;
}

/** Arrival (first execution of the read) or the read again after the wake: passes once its generation is over. */
function barrier(hart: i32, core: i32, now: i64): i32 {
  const mine = load<i32>(word(ARRIVED_IN, core));
  if (mine >= 0) {
    if (generation > mine) {
      store<i32>(word(ARRIVED_IN, core), -1);
      return 0;
    }
    return block(hart, SLEEP_BARRIER); // woken by something else: still waiting
  }
  if (core >= team) {
    deviceSetFault(FAULT_EVENT_UNIT, <u32>core);
    return 0;
  }
  store<i32>(word(ARRIVED_IN, core), generation);
  lastArrival = arrived == 0 ? now : max(lastArrival, now);
  arrived++;
  if (arrived < team) return block(hart, SLEEP_BARRIER);
  // The last one: every member (itself too) leaves together once the event has propagated.
  const at = lastArrival + EU_WAKE_CYCLES;
  generation++;
  arrived = 0;
  for (let c = 0; c < team; c++) if (load<i32>(word(ARRIVED_IN, c)) >= 0) wake(hartOf(c), at);
  block(hart, SLEEP_BARRIER);
  wake(hart, at);
  return 0;
}

export function euWrite(hart: i32, offset: u32, size: i32, value: i32, now: i64): void {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  if (offset == FN) { store<i32>(word(SEND_FN, hart), value); return; }
  if (offset == ARG) { store<i32>(word(SEND_ARG, hart), value); return; }
  if (offset == TEAM) {
    if (value < 1 || value > cores || arrived != 0) { deviceSetFault(FAULT_EVENT_UNIT, <u32>value); return; }
    team = value;
    return;
  }
  if (offset == WAKE) {
    let woken = false;
    for (let c = 0; c < cores; c++) {
      if ((value & (1 << c)) == 0) continue;
      if (load<i32>(word(MAIL_FULL, c)) != 0) { deviceSetFault(FAULT_EVENT_UNIT, <u32>c); return; }
      store<i32>(word(MAIL_FN, c), load<i32>(word(SEND_FN, hart)));
      store<i32>(word(MAIL_ARG, c), load<i32>(word(SEND_ARG, hart)));
      store<i32>(word(MAIL_FULL, c), 1);
      if (sleepOf(hartOf(c)) == SLEEP_MAILBOX) { wake(hartOf(c), now + EU_WAKE_CYCLES); woken = true; }
    }
    if ((value >>> cores) != 0) deviceSetFault(FAULT_EVENT_UNIT, <u32>value);
    // The forking hart stops its slice here: running on alone (cluster.ts SOLO) would put it thousands of cycles ahead
    // of the cores it woke, and the lines it fetched into the shared instruction cache would be "ready" in their
    // future (icache.ts), charging them fetch stalls the board does not have.
    else if (woken) deviceSetStatus(DEV_SWITCH);
    return;
  }
  if (offset == MARK) {
    markTag = value;
    setOuterLayer((value & 1) == 0 ? value >> 1 : -1); // device faults name the layer, as on the AS path
    deviceSetStatus(DEV_YIELD);
    return;
  }
  if (offset == TASK_END && coreOf(hart) == 0) {
    taskEnded = true;
    if (sleepOf(fcHart) == SLEEP_TASK) wake(fcHart, now + EU_WAKE_CYCLES);
    return;
  }
  deviceSetStatus(DEV_BAD_OFFSET);
}

/** Harts asleep in the event unit, for the deadlock message: the first one's reason. */
export function anyAsleep(harts: i32): i32 {
  for (let h = 0; h < harts; h++) if (sleepOf(h) != SLEEP_NONE) return h;
  return -1;
}
