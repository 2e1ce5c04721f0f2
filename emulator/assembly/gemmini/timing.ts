// Gemmini's timing (docs/gemmini.md "Timing"). Commands take effect on the data at once, in program order (which is
// what the hardware's reservation station guarantees for the private memories); their time is rebuilt here from
// clocks, in whole cycles:
// - three units, each in order: load (mvin, config_mvin), execute (preload, compute, config_ex), store (mvout,
//   config_mvout); each has a reservation station of RS_* entries, and a command waits for a free entry (the host
//   stalls, or the loop unroller does);
// - across units, a command starts only after every earlier command of another unit that touches one of its rows
//   (read after write, write after read or write) has completed: per row and per unit, the cycle of the last read
//   and of the last write. Within a unit, order alone decides (the accumulator's adders take back-to-back
//   accumulations into the same rows);
// - the DMA reader (mvin) and writer (mvout) each issue aligned requests of at most 64 bytes, one per cycle, at most
//   16 outstanding, on a 16-byte-per-cycle data path, with DMA_READ_LATENCY to the data or DMA_WRITE_LATENCY from
//   the last beat to the acknowledgement;
// - the array streams one compute per ARRAY_STREAM cycles; its results reach the accumulator ARRAY_FILL_DRAIN later.

import { clockQ, spend, waitUntil } from "../agents";
import { Q } from "../cost";
import { currentLayer, recordGemmini } from "../events";
import {
  ARRAY_STREAM, DMA_BEAT_BYTES, DMA_IN_FLIGHT, DMA_ISSUE_INTERVAL, DMA_READ_LATENCY, DMA_REQUEST_BYTES, DMA_WRITE_LATENCY, HOST_ISSUE, RS_EXECUTE, RS_LOAD,
  RS_STORE, UNROLLER_ISSUE,
} from "../chips/gemmini";
import { timeSlot, UNITS } from "./state";
import { slotOf } from "./addr";

export const LOAD: i32 = 0;
export const EXECUTE: i32 = 1;
export const STORE: i32 = 2;
export const READER: i32 = 0;
export const WRITER: i32 = 1;

const RING_MAX: i32 = 16;
/** Per unit: completion cycles of its last RS_* commands (a ring), and how many it has taken. */
const SLOTS_RING = memory.data(UNITS * RING_MAX * 8);
const TAKEN = memory.data(UNITS * 4);
/** Per DMA engine: completion cycles of its last 16 requests, requests issued, next issue cycle, data path free. */
const DMA_RING = memory.data(2 * DMA_IN_FLIGHT * 8);
const DMA_COUNT = memory.data(2 * 4);
const DMA_ISSUE_FREE = memory.data(2 * 8);
const DMA_BUS_FREE = memory.data(2 * 8);

/** The loop unroller's clock: the cycle it dispatched its last command. Later host commands queue behind it. */
let unroller: i64 = 0;
/**
 * While a loop expands, its per-unit streams (the hardware's LdA/LdB/LdD, Ex and StC state machines) each dispatch
 * on their own clock, so loads run ahead of the computes as far as the load reservation station allows.
 */
const UNROLL_AT = memory.data(UNITS * 8);
/** True while loop_ws expands: its commands are dispatched by the unroller, not the host. */
let unrolling = false;
/** Every command dispatched so far is complete by this cycle (what a fence waits for). */
let allDone: i64 = 0;
/** The array: free for the next compute's stream, and the start of the last stream (new weights load after it). */
export let arrayFree: i64 = 0;
export let lastStream: i64 = 0;

export function resetGemminiTiming(): void {
  memory.fill(SLOTS_RING, 0, UNITS * RING_MAX * 8);
  memory.fill(TAKEN, 0, UNITS * 4);
  memory.fill(DMA_RING, 0, 2 * DMA_IN_FLIGHT * 8);
  memory.fill(DMA_COUNT, 0, 2 * 4);
  memory.fill(DMA_ISSUE_FREE, 0, 2 * 8);
  memory.fill(DMA_BUS_FREE, 0, 2 * 8);
  memory.fill(UNROLL_AT, 0, UNITS * 8);
  unroller = 0;
  unrolling = false;
  allDone = 0;
  arrayFree = 0;
  lastStream = 0;
}

function entries(unit: i32): i32 {
  return unit == LOAD ? RS_LOAD : unit == EXECUTE ? RS_EXECUTE : RS_STORE;
}

function ringAt(unit: i32, n: i32): usize {
  return SLOTS_RING + (<usize>(unit * RING_MAX + n % entries(unit)) << 3);
}

/** Host clock in whole cycles, rounded up (the host's Q16 clock may sit inside a cycle). */
function hostNow(): i64 {
  return (clockQ(0) + ((<i64>1 << Q) - 1)) >> Q;
}

/** The array starts a compute's stream at `stream`: busy for ARRAY_STREAM cycles. */
export function arrayStreams(stream: i64): void {
  arrayFree = stream + ARRAY_STREAM;
  lastStream = stream;
}

export function beginUnroll(): void {
  unrolling = true;
  // Each unit's stream goes on from where the previous loop's left it (not from that loop's last store): the
  // unroller holds concurrent_loops = 2 loops (LoopMatmul.scala, LoopConv.scala), so the next loop's loads overlap
  // this one's computes and stores. The per-row hazards keep a loop from overwriting rows an earlier one still reads.
  const now = hostNow();
  for (let u = 0; u < UNITS; u++) {
    const at = UNROLL_AT + (<usize>u << 3);
    store<i64>(at, max(load<i64>(at), now));
  }
}

export function endUnroll(): void {
  unrolling = false;
  for (let u = 0; u < UNITS; u++) unroller = max(unroller, load<i64>(UNROLL_AT + (<usize>u << 3)));
}

/**
 * A command enters `unit`'s reservation station. From the host: it spends HOST_ISSUE cycles, then waits for the
 * unroller and for a free entry. From the unroller: one command per UNROLLER_ISSUE cycles, waiting for an entry.
 * Returns the dispatch cycle.
 */
export function dispatch(unit: i32): i64 {
  const n = load<i32>(TAKEN + (<usize>unit << 2));
  const entryFree = n >= entries(unit) ? load<i64>(ringAt(unit, n)) : 0;
  let t: i64;
  if (unrolling) {
    const at = UNROLL_AT + (<usize>unit << 3);
    t = max(load<i64>(at) + UNROLLER_ISSUE, entryFree);
    store<i64>(at, t);
  } else {
    spend(0, HOST_ISSUE << Q);
    t = max(max(hostNow(), unroller), entryFree);
    waitUntil(0, t << Q);
  }
  return t;
}

/** A command no unit executes (flush): from the host, its issue cost only; from the unroller, nothing. */
export function issueOnly(): void {
  if (!unrolling) spend(0, HOST_ISSUE << Q);
}

/** The command just dispatched to `unit` completes at `end`: its entry frees then. */
export function complete(unit: i32, end: i64): void {
  const n = load<i32>(TAKEN + (<usize>unit << 2));
  store<i64>(ringAt(unit, n), end);
  store<i32>(TAKEN + (<usize>unit << 2), n + 1);
  if (end > allDone) allDone = end;
}

/** The host waits until every dispatched command has completed (gemmini_fence). */
export function fence(): void {
  waitUntil(0, max(allDone, unroller) << Q);
}

export function busyUntil(): i64 {
  return max(allDone, unroller);
}

// --- hazards between units, per row ---

/**
 * Earliest start for `unit` touching rows first + i * step (i < count) of one memory: after the last write of every
 * other unit to them, and, if this command writes them, after the other units' last reads too.
 */
export function rowsReady(unit: i32, acc: bool, first: i32, count: i32, step: i32, write: bool): i64 {
  let t: i64 = 0;
  for (let i = 0; i < count; i++) {
    const slot = slotOf(acc, first + i * step);
    for (let v = 0; v < UNITS; v++) {
      if (v == unit) continue;
      t = max(t, load<i64>(timeSlot(v, 1, slot)));
      if (write) t = max(t, load<i64>(timeSlot(v, 0, slot)));
    }
  }
  return t;
}

/** Records that `unit` read (or wrote) those rows until cycle `t`. */
export function rowsMark(unit: i32, acc: bool, first: i32, count: i32, step: i32, write: bool, t: i64): void {
  const w = write ? 1 : 0;
  for (let i = 0; i < count; i++) {
    const p = timeSlot(unit, w, slotOf(acc, first + i * step));
    if (t > load<i64>(p)) store<i64>(p, t);
  }
}

// --- DMA engines ---

/** One request of `beats` data beats, ready at `ready`; returns the cycle it completes. */
function request(engine: i32, ready: i64, beats: i32): i64 {
  const e = <usize>engine;
  const n = load<i32>(DMA_COUNT + (e << 2));
  const ring = DMA_RING + ((e * <usize>DMA_IN_FLIGHT + <usize>(n % DMA_IN_FLIGHT)) << 3);
  // the request issued DMA_IN_FLIGHT before this one must have completed (its slot is reused)
  let issue = max(max(ready, load<i64>(DMA_ISSUE_FREE + (e << 3))), n >= DMA_IN_FLIGHT ? load<i64>(ring) : 0);
  let done: i64;
  const busFree = load<i64>(DMA_BUS_FREE + (e << 3));
  if (engine == READER) {
    // the request goes out; its data comes back DMA_READ_LATENCY later, one beat per cycle on the shared data path
    const data = max(issue + DMA_READ_LATENCY, busFree);
    done = data + beats;
    store<i64>(DMA_BUS_FREE + (e << 3), done);
    store<i64>(DMA_ISSUE_FREE + (e << 3), issue + DMA_ISSUE_INTERVAL);
  } else {
    // a write carries its data with the request: the data path is busy for its beats, the ack comes back later
    const send = max(issue, busFree);
    store<i64>(DMA_BUS_FREE + (e << 3), send + beats);
    store<i64>(DMA_ISSUE_FREE + (e << 3), send + beats);
    done = send + beats + DMA_WRITE_LATENCY;
  }
  store<i64>(ring, done);
  store<i32>(DMA_COUNT + (e << 2), n + 1);
  return done;
}

/**
 * The requests of one row of `bytes` main-memory bytes at `addr`: split at 64-byte boundaries, each piece moving the
 * 16-byte beats it touches. Returns the cycle the last one completes.
 */
export function dmaRow(engine: i32, ready: i64, addr: u64, bytes: i32): i64 {
  let done: i64 = ready;
  let a = addr;
  const end = addr + <u64>bytes;
  while (a < end) {
    const chunkEnd = min((a | <u64>(DMA_REQUEST_BYTES - 1)) + 1, end);
    const beat = <u64>DMA_BEAT_BYTES;
    const beats = <i32>((chunkEnd - 1) / beat - a / beat + 1);
    done = max(done, request(engine, ready, beats));
    a = chunkEnd;
  }
  return done;
}

/** The next cycle the engine can issue a request: a unit in order starts its next command's requests from here. */
export function dmaIssueFree(engine: i32): i64 {
  return load<i64>(DMA_ISSUE_FREE + (<usize>engine << 3));
}

/** Work that keeps an engine's request issue busy without main-memory traffic (an mvin of zeros writes its rows). */
export function dmaHold(engine: i32, until: i64): void {
  const p = DMA_ISSUE_FREE + (<usize>engine << 3);
  if (until > load<i64>(p)) store<i64>(p, until);
}

/**
 * Profile event (events.ts kind 6): detail bits 0..7 the command's funct, 8..9 the unit, 10 issued by the loop
 * unroller, 16..23 the rows it moved (computes: 16).
 */
export function event(unit: i32, funct: i32, rows: i32, start: i64, end: i64): void {
  const detail = (funct & 0xff) | (unit << 8) | (unrolling ? 1 << 10 : 0) | ((rows & 0xff) << 16);
  recordGemmini(detail, currentLayer(), start, end);
}
