// N-EUREKA, Siracusa's NPU: the register file at chip 0x1020_1000 and the job queue (docs/neureka.md, the contract;
// HARDWARE.md "N-EUREKA NPU").
//
// The job itself: neureka-job.ts (decoding, checks, cycles) and neureka-conv.ts (the convolution).
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
import { currentLayer, msgLayer, recordNpu } from "./events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "./fault";
import { MAX_AGENTS } from "./limits";
import { addContention, resetContention } from "./npu-contention";
import { decode, JOB_REGS, jobCycles, jobDetail, setNpuRegions, streamerCycles } from "./neureka-job";
import { runJob } from "./neureka-conv";
import { NPU_REG_CYCLES, NPU_STREAMER_BYTES, TCDM_BYTES_PER_CYCLE } from "./chips/siracusa";

const TRIGGER: i32 = 0x00;
const ACQUIRE: i32 = 0x04;
const FINISHED: i32 = 0x08;
const STATUS: i32 = 0x0c;
const RUNNING_JOB: i32 = 0x10;
const SOFT_CLEAR: i32 = 0x14;
const JOB_BASE: i32 = 0x20;
/** ACQUIRE's answer when both entries are taken. */
const BUSY: u32 = 256;

const FREE: i32 = 0;
const ACQUIRED: i32 = 1;
const TRIGGERED: i32 = 2;

@unmanaged class Entry {
  state: i32;
  id: i32;
  agent: i32;
  layer: i32;
  start: i64;
  end: i64;
}
const ENTRY_BYTES: usize = 128;
const REGS_AT: usize = 32;
const ENTRIES = memory.data(2 * <i32>ENTRY_BYTES, 16);
/** The job registers as the cores wrote them (a job copies them at TRIGGER). */
const REGS = memory.data(JOB_REGS * 4, 16);
/** End (Q16) of the last 256 jobs, by sequence number: the completion events. */
const ENDS = memory.data(256 * 8);
/** Per agent: the clock (Q16) of its last wait-and-clear of the event. */
const CLEARED = memory.data(MAX_AGENTS * 8);

let enabled = false;
let nextId: i32 = 0;
let acquired: i32 = -1;
let finished: i32 = 0;
let engineFree: i64 = 0;
let seq: i32 = 0;
let jobs: i32 = 0;
/** The last job landed (RUNNING_JOB when nothing later has started): id and start; start -1 before any. */
let lastId: i32 = 0;
let lastStart: i64 = -1;

// @ts-ignore: decorator
@inline function entry(i: i32): Entry {
  return changetype<Entry>(ENTRIES + <usize>i * ENTRY_BYTES);
}

export function resetNpu(): void {
  assert(offsetof<Entry>() <= REGS_AT);
  enabled = false;
  memory.fill(ENTRIES, 0, 2 * <i32>ENTRY_BYTES);
  memory.fill(REGS, 0, JOB_REGS * 4);
  memory.fill(ENDS, 0xff, 256 * 8);
  memory.fill(CLEARED, 0, MAX_AGENTS * 8);
  nextId = 0;
  acquired = -1;
  finished = 0;
  engineFree = 0;
  seq = 0;
  jobs = 0;
  lastId = 0;
  lastStart = -1;
  resetContention();
}

/** The chip has N-EUREKA (chips/siracusa.ts): its L1 region and the two neural-memory regions. */
export function enableNpu(l1: i32, mram: i32, sram: i32): void {
  enabled = true;
  setNpuRegions(l1, mram, sram);
}

function fail(op: string, why: string): void {
  msgBegin(op);
  msgText(": ");
  msgText(why);
  msgLayer();
  raise();
}

/** The core making the access; charges it the register access. */
function caller(op: string): i32 {
  if (!enabled) fail(op, "this chip has no N-EUREKA NPU (Siracusa only)");
  const a = currentAgent();
  if (a == NO_AGENT) fail(op, "no agent runs this (call enter(core) after fork or barrier)");
  return a;
}

function badOffset(op: string, offset: i32, why: string): void {
  msgBegin(op);
  msgText(": offset ");
  msgHex(<u32>offset);
  msgText(" ");
  msgText(why);
  msgLayer();
  raise();
}

/** Lands every triggered job that has ended by `now`, in end order. */
function advance(now: i64): void {
  for (;;) {
    let next = -1;
    for (let i = 0; i < 2; i++) {
      const e = entry(i);
      if (e.state == TRIGGERED && e.end <= now && (next < 0 || e.end < entry(next).end)) next = i;
    }
    if (next < 0) return;
    const e = entry(next);
    decode(ENTRIES + <usize>next * ENTRY_BYTES + REGS_AT);
    runJob();
    e.state = FREE;
    finished++;
    lastId = e.id;
    lastStart = e.start;
  }
}

function runningJob(now: i64): u32 {
  let id = lastId;
  let start = lastStart;
  for (let i = 0; i < 2; i++) {
    const e = entry(i);
    if (e.state == TRIGGERED && e.start <= now && e.start > start) {
      id = e.id;
      start = e.start;
    }
  }
  return <u32>id;
}

export function npu_read(offset: i32): u32 {
  const a = caller("npu_read");
  spend(a, NPU_REG_CYCLES << Q);
  const now = clockQ(a);
  advance(now);
  if (offset == ACQUIRE) return acquire();
  if (offset == FINISHED) return <u32>finished;
  if (offset == STATUS) return (entry(0).state != FREE ? 1 : 0) | (entry(1).state != FREE ? 0x100 : 0);
  if (offset == RUNNING_JOB) return runningJob(now);
  if (offset >= JOB_BASE && offset < JOB_BASE + JOB_REGS * 4 && (offset & 3) == 0) {
    return load<u32>(REGS + <usize>(offset - JOB_BASE));
  }
  badOffset("npu_read", offset, offset == TRIGGER || offset == SOFT_CLEAR ? "is write-only" : "is not a register");
  return 0;
}

function acquire(): u32 {
  if (acquired >= 0) {
    msgBegin("npu_read: ACQUIRE while job ");
    msgDec(entry(acquired).id);
    msgText(" is acquired and not triggered (write TRIGGER first)");
    msgLayer();
    raise();
  }
  const i = nextId & 1;
  const e = entry(i);
  if (e.state != FREE) return BUSY;
  e.state = ACQUIRED;
  e.id = nextId;
  acquired = i;
  nextId = (nextId + 1) & 255;
  return <u32>e.id;
}

export function npu_write(offset: i32, value: u32): void {
  const a = caller("npu_write");
  spend(a, NPU_REG_CYCLES << Q);
  if (offset >= JOB_BASE && offset < JOB_BASE + JOB_REGS * 4 && (offset & 3) == 0) {
    store<u32>(REGS + <usize>(offset - JOB_BASE), value);
  } else if (offset == TRIGGER) {
    trigger(a);
  } else if (offset == SOFT_CLEAR) {
    softClear(a);
  } else {
    badOffset("npu_write", offset, offset == ACQUIRE || offset == FINISHED || offset == STATUS || offset == RUNNING_JOB
      ? "is read-only" : "is not a register");
  }
}

function trigger(a: i32): void {
  if (acquired < 0) fail("npu_write: TRIGGER", "no job was acquired (read ACQUIRE first)");
  const e = entry(acquired);
  const regs = ENTRIES + <usize>acquired * ENTRY_BYTES + REGS_AT;
  memory.copy(regs, REGS, JOB_REGS * 4);
  decode(regs);
  const cycles = jobCycles();
  e.start = max(clockQ(a), engineFree);
  e.end = e.start + (cycles << Q);
  engineFree = e.end;
  e.agent = a;
  e.layer = currentLayer();
  e.state = TRIGGERED;
  acquired = -1;
  store<i64>(ENDS + (<usize>(seq & 255) << 3), e.end);
  seq++;
  jobs++;
  // L1 load: the streamer's share of the job's cycles x the share of the TCDM bandwidth one access takes (Q16).
  const load = cycles > 0 ? ((streamerCycles * NPU_STREAMER_BYTES) << Q) / (cycles * TCDM_BYTES_PER_CYCLE) : 0;
  addContention(e.start, e.end, load);
  recordNpu(a, e.layer, jobDetail(e.id), e.start >> Q, e.end >> Q);
}

function softClear(a: i32): void {
  advance(clockQ(a));
  for (let i = 0; i < 2; i++) {
    if (entry(i).state == TRIGGERED) {
      msgBegin("npu_write: SOFT_CLEAR while job ");
      msgDec(entry(i).id);
      msgText(" is queued or running");
      msgLayer();
      raise();
    }
  }
  entry(0).state = FREE;
  entry(1).state = FREE;
  acquired = -1;
  nextId = 0;
  finished = 0;
  lastId = 0;
  lastStart = -1;
}

/** Event unit "wait and clear" on the NPU completion event (cluster event 12). */
export function npu_event_wait(): void {
  const a = caller("npu_event_wait");
  const now = clockQ(a);
  const cleared = load<i64>(CLEARED + (<usize>a << 3));
  let pending = false;
  let wake: i64 = i64.MAX_VALUE;
  for (let i = 0; i < 256; i++) {
    const t = load<i64>(ENDS + (<usize>i << 3));
    if (t < 0) continue;
    if (t > cleared && t <= now) pending = true;
    if (t > now && t < wake) wake = t;
  }
  if (!pending) {
    if (wake == i64.MAX_VALUE) {
      fail("npu_event_wait", "no N-EUREKA job is queued or running: the core would sleep forever");
    }
    waitUntil(a, wake);
  }
  const t = clockQ(a);
  store<i64>(CLEARED + (<usize>a << 3), t);
  advance(t);
}

/**
 * After the firmware returns (the runtime calls it): every job's completion must have been observed, or its outputs
 * never (reliably) landed; a job acquired and never triggered is a fault too. Returns the jobs run (0 without NPU).
 */
export function npu_finish(): i32 {
  if (!enabled) return 0;
  for (let i = 0; i < 2; i++) {
    const e = entry(i);
    if (e.state == FREE) continue;
    msgBegin("npu_finish: job ");
    msgDec(e.id);
    if (e.state == ACQUIRED) {
      msgText(" was acquired and never triggered");
    } else {
      msgText(" (triggered in ");
      if (e.layer >= 0) {
        msgText("layer ");
        msgDec(e.layer);
      } else {
        msgText("no layer");
      }
      msgText(", ends at cycle ");
      msgDec(e.end >> Q);
      msgText(") was never observed finished by a core (neureka_wait): its outputs never landed");
    }
    raise();
  }
  return jobs;
}

/** Register access cost in cycles, for tests and reports. */
export function npu_register_cycles(): i32 {
  return enabled ? <i32>NPU_REG_CYCLES : 0;
}
