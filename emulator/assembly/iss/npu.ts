// N-EUREKA as a device of the RV32 core (`gen run --on iss` on Siracusa): its register file at chip 0x1020_1000 (the
// address of HARDWARE.md "N-EUREKA NPU"; the C of the ISS build, runtime/c/siracusa/neureka_iss.c, uses it). The
// register file, the two-entry queue and the job (decode, checks, cycles, the convolution) are the AS path's own code
// (neureka-queue.ts, neureka-job.ts, neureka-conv.ts), reading and writing the core's memories through the memory
// seam (neureka-memory.ts): pointer registers hold the rv32 image's addresses, L1 is the cluster's L1 region and the
// neural memory the two NMS regions the runtime maps at the link script's addresses.
//
// Timing as the AS path (docs/neureka.md "Timing"): a register access is NPU_REG_CYCLES on the core (the load or
// store itself); a job starts at max(its TRIGGER's cycle, the previous job's end) and lasts jobCycles(); its outputs
// land at its end, when a core reads a register or wakes from the event wait at or after it. The event wait is the
// event unit's NPU_SLEEP register (cluster-eu.ts), counted as its own stall kind (STALL_NPU).
// L1 contention: a running job takes its share of the TCDM bandwidth (the AS path's load, npu-contention.ts; the HCI
// gives the NPU priority). ASSUMPTION: a cluster core's L1 access during a job waits that share of a cycle on average
// (npuL1Wait: the fractions add up per hart and a whole cycle is charged when they pass one), where the AS path
// stretches all of a core's compute by it; only accesses meet the NPU at the banks.
// Faults trap with the AS path's one-line texts; the runtime names the hart (iss_device_hart).

import { deviceSetNpuWait, deviceSetStatus, DEV_BAD_OFFSET } from "./mmio";
import { Q } from "../cost";
import { msgLayer, recordNpu } from "../events";
import { msgBegin, msgText, raise } from "../fault";
import { jobDetail, setNpuRegions, tcdmLoadQ16 } from "../neureka-job";
import { npuMemoryIss } from "../neureka-memory";
import {
  eventCleared, eventWake, queueFinish, queueRead, queueWrite, resetQueue, triggeredCycles, triggeredEnd, triggeredId, triggeredLayer,
  triggeredStart,
} from "../neureka-queue";
import { addContention, contentionExtra, npuBusyUntil, resetContention } from "../npu-contention";
import { MAX_HARTS } from "./harts";
import { NPU_REG_CYCLES } from "../chips/siracusa";

export const NPU_BASE: u32 = 0x1020_1000;
export const NPU_SIZE: u32 = 0x400;

let enabled = false;
/** Per hart: the Q16 fraction of a cycle of L1 contention not yet charged. */
const OWED = memory.data(MAX_HARTS * 8);

/**
 * Wires N-EUREKA to the core: `l1` the cluster's L1 region, `mram`/`sram` the neural memory's regions (-1: none,
 * then a WMEM job faults), `nms` the address NMS_MRAM starts at (WEIGHTS_PTR offsets count from it).
 */
export function iss_npu_config(l1: i32, mram: i32, sram: i32, nms: u32): void {
  enabled = true;
  resetQueue();
  resetContention();
  memory.fill(OWED, 0, MAX_HARTS * 8);
  npuMemoryIss(l1, mram, sram);
  setNpuRegions(l1, mram, sram, <i64>nms);
}

export function resetIssNpu(): void {
  enabled = false;
}

/** After the program exits: every job observed finished (else the AS path's npu_finish fault). Jobs run. */
export function iss_npu_finish(): i32 {
  return enabled ? queueFinish() : 0;
}

function noNpu(op: string): void {
  msgBegin(op);
  msgText(": this chip has no N-EUREKA NPU (Siracusa only)");
  msgLayer();
  raise();
}

export function npuDevRead(hart: i32, offset: u32, size: i32, now: i64): i32 {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return 0; }
  if (!enabled) noNpu("npu_read");
  return <i32>queueRead(<i32>offset, (now + NPU_REG_CYCLES) << Q);
}

export function npuDevWrite(hart: i32, offset: u32, size: i32, value: i32, now: i64): void {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  if (!enabled) noNpu("npu_write");
  if (queueWrite(<i32>offset, <u32>value, hart, (now + NPU_REG_CYCLES) << Q)) {
    addContention(triggeredStart, triggeredEnd, tcdmLoadQ16(triggeredCycles));
    recordNpu(hart, triggeredLayer, jobDetail(triggeredId), triggeredStart >> Q, triggeredEnd >> Q);
  }
}

/** Wait cycles of a cluster core's L1 access at cycle `now` from the NPU's share of the banks (see above). */
export function npuL1Wait(hart: i32, now: i64): i32 {
  const at = now << Q;
  if (!enabled || npuBusyUntil <= at) return 0;
  const p = OWED + (<usize>hart << 3);
  const owed = load<i64>(p) + contentionExtra(at, <i64>1 << Q);
  store<i64>(p, owed & ((<i64>1 << Q) - 1));
  return <i32>(owed >> Q);
}

/** The event unit's NPU_SLEEP read: wait and clear on the completion event; the hart sleeps until a job's end. */
export function npuEventWait(hart: i32, now: i64): void {
  if (!enabled) noNpu("npu_event_wait");
  const at = now << Q;
  const wake = eventWake(hart, at);
  if (wake > at) deviceSetNpuWait((wake - at) >> Q);
  eventCleared(hart, wake);
}
