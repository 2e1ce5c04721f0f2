// N-EUREKA's register file and two-entry job queue (docs/neureka.md), driven by both ways the emulator runs firmware:
// the AS path (neureka.ts: agents and their Q16 clocks) and the RV32 core (iss/npu.ts: harts and their cycle
// counters). Times here are Q16 cycles; `who` is the agent or hart whose event-unit state an event wait uses. The
// job itself is neureka-job.ts (decode, checks, cycles) and neureka-conv.ts (the convolution), reached through the
// memory seam of neureka-memory.ts. Faults trap with the AS path's texts (op names npu_read, npu_write, ...).

import { Q } from "./cost";
import { currentLayer, msgLayer } from "./events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "./fault";
import { MAX_AGENTS } from "./limits";
import { decode, JOB_REGS, jobCycles } from "./neureka-job";
import { runJob } from "./neureka-conv";

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
/** Per agent (or hart, at most 16): the clock (Q16) of its last wait-and-clear of the event. */
const CLEARED_SLOTS: i32 = MAX_AGENTS > 16 ? MAX_AGENTS : 16;
const CLEARED = memory.data(CLEARED_SLOTS * 8);

let nextId: i32 = 0;
let acquired: i32 = -1;
let finished: i32 = 0;
let engineFree: i64 = 0;
let seq: i32 = 0;
let jobs: i32 = 0;
/** The last job landed (RUNNING_JOB when nothing later has started): id and start; start -1 before any. */
let lastId: i32 = 0;
let lastStart: i64 = -1;

/** The job the last TRIGGER queued: id, start and end (Q16), its cycles, its layer. */
export let triggeredId: i32 = 0;
export let triggeredStart: i64 = 0;
export let triggeredEnd: i64 = 0;
export let triggeredCycles: i64 = 0;
export let triggeredLayer: i32 = -1;

// @ts-ignore: decorator
@inline function entry(i: i32): Entry {
  return changetype<Entry>(ENTRIES + <usize>i * ENTRY_BYTES);
}

export function resetQueue(): void {
  assert(offsetof<Entry>() <= REGS_AT);
  memory.fill(ENTRIES, 0, 2 * <i32>ENTRY_BYTES);
  memory.fill(REGS, 0, JOB_REGS * 4);
  memory.fill(ENDS, 0xff, 256 * 8);
  memory.fill(CLEARED, 0, CLEARED_SLOTS * 8);
  nextId = 0;
  acquired = -1;
  finished = 0;
  engineFree = 0;
  seq = 0;
  jobs = 0;
  lastId = 0;
  lastStart = -1;
}

/** A fault of the NPU's register interface: `op: why` and the open layer (the AS API and the ISS device alike). */
export function npuFail(op: string, why: string): void {
  msgBegin(op);
  msgText(": ");
  msgText(why);
  msgLayer();
  raise();
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
export function advance(now: i64): void {
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

/** A register read at `now` (after the access's own cycles): lands what has ended, then answers. */
export function queueRead(offset: i32, now: i64): u32 {
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

/** A register write by `who` at `now`. True when it was TRIGGER (the job is in triggered*). */
export function queueWrite(offset: i32, value: u32, who: i32, now: i64): bool {
  if (offset >= JOB_BASE && offset < JOB_BASE + JOB_REGS * 4 && (offset & 3) == 0) {
    store<u32>(REGS + <usize>(offset - JOB_BASE), value);
  } else if (offset == TRIGGER) {
    trigger(who, now);
    return true;
  } else if (offset == SOFT_CLEAR) {
    softClear(now);
  } else {
    badOffset("npu_write", offset, offset == ACQUIRE || offset == FINISHED || offset == STATUS || offset == RUNNING_JOB
      ? "is read-only" : "is not a register");
  }
  return false;
}

/** The job starts at max(trigger, previous job's end) and lasts jobCycles(). */
function trigger(who: i32, now: i64): void {
  if (acquired < 0) npuFail("npu_write: TRIGGER", "no job was acquired (read ACQUIRE first)");
  const e = entry(acquired);
  const regs = ENTRIES + <usize>acquired * ENTRY_BYTES + REGS_AT;
  memory.copy(regs, REGS, JOB_REGS * 4);
  decode(regs);
  const cycles = jobCycles();
  e.start = max(now, engineFree);
  e.end = e.start + (cycles << Q);
  engineFree = e.end;
  e.agent = who;
  e.layer = currentLayer();
  e.state = TRIGGERED;
  acquired = -1;
  store<i64>(ENDS + (<usize>(seq & 255) << 3), e.end);
  seq++;
  jobs++;
  triggeredId = e.id;
  triggeredStart = e.start;
  triggeredEnd = e.end;
  triggeredCycles = cycles;
  triggeredLayer = e.layer;
}

function softClear(now: i64): void {
  advance(now);
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

/**
 * Event unit "wait and clear" on the completion event by `who` at `now`: returns `now` if an event came after its
 * last wait, else the next job end (the caller sleeps until then); with no job queued or running, a fault. The
 * caller then calls eventCleared at the time it woke.
 */
export function eventWake(who: i32, now: i64): i64 {
  const cleared = load<i64>(CLEARED + (<usize>who << 3));
  let wake: i64 = i64.MAX_VALUE;
  for (let i = 0; i < 256; i++) {
    const t = load<i64>(ENDS + (<usize>i << 3));
    if (t < 0) continue;
    if (t > cleared && t <= now) return now;
    if (t > now && t < wake) wake = t;
  }
  if (wake == i64.MAX_VALUE) {
    npuFail("npu_event_wait", "no N-EUREKA job is queued or running: the core would sleep forever");
  }
  return wake;
}

/** The end of an event wait: the event is cleared at `t` and what has ended by then lands. */
export function eventCleared(who: i32, t: i64): void {
  store<i64>(CLEARED + (<usize>who << 3), t);
  advance(t);
}

/**
 * After the firmware returns: every job's completion must have been observed, or its outputs never (reliably)
 * landed; a job acquired and never triggered is a fault too. Returns the jobs run.
 */
export function queueFinish(): i32 {
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
