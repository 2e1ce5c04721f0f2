// N-EUREKA, Siracusa's NPU: the register file at chip 0x1020_1000 and the job queue (docs/neureka.md, the contract;
// HARDWARE.md "N-EUREKA NPU").
//
// The register file and queue are neureka-queue.ts (shared with the RV32 core's device, iss/npu.ts); the job itself
// is neureka-job.ts (decoding, checks, cycles) and neureka-conv.ts (the convolution). This file is the AS path's
// side: the calling agent, its clock and register-access cycles, the L1 contention and the trace events.
//
// - Device API: npu_write(offset, value) and npu_read(offset) access the register at that byte offset, one cycle
//   each on the calling core; npu_event_wait() is the event unit's "wait and clear" on the NPU's completion event.
// - Queue: two entries; ACQUIRE reserves one (entry = id & 1) and returns the id (0..255, wrapping), or 256 when both
//   are taken; TRIGGER commits the job registers to the reserved entry. The engine runs one job at a time: a job
//   starts at max(trigger, previous job's end) and lasts jobCycles(). The NPU is its own agent: its clock is the
//   engine's free time here, not a slot of agents.ts, so core/DMA/PE accounting is unchanged.
// - Observation: state is evaluated at the accessing core's clock. A register read or an event wait at or after a
//   job's end observes it: the job's outputs land in L1 then, reading its inputs as they are then (in end order).
//   A job never observed by the end of the run is a fault (npu_finish). Drive the NPU from one core at a time: a core
//   whose clock is behind another's sees what the other has already observed.
// - Events: each finished job raises the completion event at its end. Per core the event unit buffers one pending
//   event: a wait returns at once if an event came after the core's last wait (and clears it), else the core sleeps
//   until the next job end; with no job queued or running that would be forever, a fault.

import { clockQ, currentAgent, NO_AGENT, spend, waitUntil } from "./agents";
import { Q } from "./cost";
import { recordNpu } from "./events";
import { addContention, resetContention } from "./npu-contention";
import { jobDetail, setNpuRegions, tcdmLoadQ16 } from "./neureka-job";
import { npuMemoryAs } from "./neureka-memory";
import {
  eventCleared, eventWake, npuFail, queueFinish, queueRead, queueWrite, resetQueue, triggeredCycles, triggeredEnd,
  triggeredId, triggeredLayer, triggeredStart,
} from "./neureka-queue";
import { NPU_REG_CYCLES } from "./chips/siracusa";

let enabled = false;

export function resetNpu(): void {
  enabled = false;
  resetQueue();
  resetContention();
}

/** The chip has N-EUREKA (chips/siracusa.ts): its L1 region and the two neural-memory regions. */
export function enableNpu(l1: i32, mram: i32, sram: i32): void {
  enabled = true;
  npuMemoryAs();
  setNpuRegions(l1, mram, sram);
}


/** The core making the access; charges it the register access. */
function caller(op: string): i32 {
  if (!enabled) npuFail(op, "this chip has no N-EUREKA NPU (Siracusa only)");
  const a = currentAgent();
  if (a == NO_AGENT) npuFail(op, "no agent runs this (call enter(core) after fork or barrier)");
  return a;
}

export function npu_read(offset: i32): u32 {
  const a = caller("npu_read");
  spend(a, NPU_REG_CYCLES << Q);
  return queueRead(offset, clockQ(a));
}

export function npu_write(offset: i32, value: u32): void {
  const a = caller("npu_write");
  spend(a, NPU_REG_CYCLES << Q);
  if (!queueWrite(offset, value, a, clockQ(a))) return;
  addContention(triggeredStart, triggeredEnd, tcdmLoadQ16(triggeredCycles));
  recordNpu(a, triggeredLayer, jobDetail(triggeredId), triggeredStart >> Q, triggeredEnd >> Q);
}

/** Event unit "wait and clear" on the NPU completion event (cluster event 12). */
export function npu_event_wait(): void {
  const a = caller("npu_event_wait");
  const now = clockQ(a);
  const wake = eventWake(a, now);
  if (wake > now) waitUntil(a, wake);
  eventCleared(a, clockQ(a));
}

/**
 * After the firmware returns (the runtime calls it): every job's completion must have been observed, or its outputs
 * never (reliably) landed; a job acquired and never triggered is a fault too. Returns the jobs run (0 without NPU).
 */
export function npu_finish(): i32 {
  if (!enabled) return 0;
  return queueFinish();
}

/** Register access cost in cycles, for tests and reports. */
export function npu_register_cycles(): i32 {
  return enabled ? <i32>NPU_REG_CYCLES : 0;
}
