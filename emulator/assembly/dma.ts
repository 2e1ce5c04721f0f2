// The cluster DMA (Siracusa: mchan v7). Protocol and timing from HARDWARE.md, rows "cluster DMA (mchan v7)" and
// "cluster DMA timing"; the model and its sources are written up in docs/timing.md, "Cluster DMA".
//
// - Channels: 16 ids. dma_alloc() hands out the lowest free one and makes it the calling core's active channel:
//   on the chip a command counts on the channel its core allocated last (pulp-sdk plp_dma_counter_alloc: "activates
//   it for all the next transfers until another one is allocated"), so a copy naming another channel is a fault here
//   rather than a silent mismatch on the board.
// - Time: two engines, into L1 and out of L1, each moving `bytesPerCycle` after `latency` cycles; a transfer
//   completes at max(issue, engine free) + latency + data cycles, and the engine is then free. A core may have
//   `queueDepth` commands outstanding (issued, not complete); issuing another stalls it until the oldest completes.
// - Data lands at completion, observed lazily: a wait lands every transfer (on any channel) whose completion time the
//   waiting core's clock has reached, copying from the source as it is then. There is no snapshot at issue: it would
//   need up to 16 x 128 KiB of buffer in the emulator's 1 MiB window, and the only firmware it would treat
//   differently is firmware that writes a DMA source before waiting for the transfer, which the mchan protocol
//   forbids; such firmware gets the new bytes here and fails its test, the strict side. A core that reads a
//   destination before its wait sees the old bytes: a missing wait shows up as wrong outputs.
// - dma_finish() (called by the runtime after the firmware returns) faults if a transfer was never waited for.

import { clockQ, currentAgent, MAX_AGENTS, spend, waitUntil } from "./agents";
import { Q } from "./cost";
import { extentOf, RECORD_BYTES, Transfer, walk } from "./dma-transfer";
import { currentLayer, msgLayer, recordDma } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import {
  CHANNELS, checkActive, checkChannel, checkRows, checkSide, checkSize, finishFault, MAX_BYTES,
} from "./dma-check";

// Command-word bits (HARDWARE.md; Deeploy mchan_v7.h), reused in the event record's detail word (events.ts).
const CMD_TO_L1: i32 = 1 << 17;
const CMD_2D_EXT: i32 = 1 << 19;
const CMD_2D_L1: i32 = 1 << 23;
export const INFO_CHANNEL_SHIFT: i32 = 24;
// Register accesses on the core's demux port, one cycle each (HARDWARE.md "core timing": load/store 1): alloc reads
// `cmd`, free writes `status`; a copy writes command, L1 and external address, plus size and stride for each 2-D side
// (Deeploy mchan_v7.h, mchan_transfer_2d_*). A wait is charged nothing: the core sleeps until the completion event.
const REG_CYCLES: i64 = 1;
/** Transfers issued and not yet waited for, at most. */
const POOL: i32 = 1024;
const POOL_DATA = memory.data(POOL * RECORD_BYTES);
const FREE_AT = memory.data(2 * 8);
const ACTIVE = memory.data(MAX_AGENTS * 4);

let enabled = false;
let l1Region: i32 = -1;
let extMask: i32 = 0;
let latency: i64 = 0;
let bytesPerCycle: i32 = 1;
let queueDepth: i32 = 1;
let allocated: i32 = 0;
let pending: i32 = 0;
/** Slots at and above `top` are free: the scans stop there (a network keeps only a few transfers pending). */
let top: i32 = 0;
let seq: i64 = 0;

// @ts-ignore: decorator
@inline function slot(i: i32): Transfer {
  return changetype<Transfer>(POOL_DATA + <usize>(i * RECORD_BYTES));
}

/** configure(): no DMA until a chip description enables it. */
export function resetDma(): void {
  assert(offsetof<Transfer>() <= <usize>RECORD_BYTES);
  enabled = false;
  allocated = 0;
  pending = 0;
  top = 0;
  seq = 0;
  memory.fill(FREE_AT, 0, 16);
  memory.fill(ACTIVE, 0xff, MAX_AGENTS * 4);
  for (let i = 0; i < POOL; i++) slot(i).channel = -1;
}

/** The chip has a cluster DMA: which region is L1, which regions (bit mask) are external, and its timing. */
export function enableDma(l1: i32, ext: i32, latencyCycles: i64, bytesEachCycle: i32, queue: i32): void {
  enabled = true;
  l1Region = l1;
  extMask = ext;
  latency = latencyCycles;
  bytesPerCycle = bytesEachCycle;
  queueDepth = queue;
}

function fail(op: string, why: string): void {
  msgBegin(op);
  msgText(": ");
  msgText(why);
  raise();
}

/** The agent issuing a DMA call; faults on a chip without DMA or between fork/barrier and enter. */
function issuer(op: string): i32 {
  if (!enabled) fail(op, "this chip has no cluster DMA");
  const a = currentAgent();
  if (a < 0) fail(op, "no agent runs this (call enter(core) after fork or barrier)");
  return a;
}

function activeOf(a: i32): i32 {
  return load<i32>(ACTIVE + (<usize>a << 2));
}

export function dma_alloc(): i32 {
  const a = issuer("dma_alloc");
  if (allocated == (1 << CHANNELS) - 1) fail("dma_alloc", "all 16 channels are allocated (wait for and free one first)");
  const ch = ctz(~allocated);
  allocated |= 1 << ch;
  store<i32>(ACTIVE + (<usize>a << 2), ch);
  spend(a, REG_CYCLES << Q);
  return ch;
}

export function dma_free(ch: i32): void {
  const a = issuer("dma_free");
  checkChannel("dma_free", ch, allocated);
  let open = 0;
  for (let i = 0; i < top; i++) if (slot(i).channel == ch) open++;
  if (open > 0) {
    msgBegin("dma_free: channel ");
    msgDec(ch);
    msgText(" has ");
    msgDec(open);
    msgText(" transfer(s) not waited for");
    msgLayer();
    raise();
  }
  allocated &= ~(1 << ch);
  for (let i = 0; i < MAX_AGENTS; i++) if (activeOf(i) == ch) store<i32>(ACTIVE + (<usize>i << 2), -1);
  spend(a, REG_CYCLES << Q);
}

/** Outstanding = issued by this agent and not complete at `now`; the earliest completion among them. */
function stallForQueue(a: i32): void {
  for (;;) {
    const now = clockQ(a);
    let outstanding = 0;
    let first: i64 = i64.MAX_VALUE;
    for (let i = 0; i < top; i++) {
      const t = slot(i);
      if (t.channel >= 0 && t.agent == a && t.end > now) {
        outstanding++;
        first = min(first, t.end);
      }
    }
    if (outstanding < queueDepth) return;
    waitUntil(a, first);
  }
}

/**
 * Device call behind the HAL's dma_copy_*: `bytes` between L1 at `l1` and L2/L3 at `ext`; a side with length 0 is
 * contiguous, else rows of `length` bytes every `stride` bytes (ext: command bit 19, L1: bit 23).
 */
export function dma_copy(
  ch: i32, l1: usize, ext: usize, bytes: i32, toL1: i32,
  extLength: i32, extStride: i32, l1Length: i32, l1Stride: i32,
): void {
  const a = issuer("dma_copy");
  checkChannel("dma_copy", ch, allocated);
  checkActive(ch, bytes, toL1, a, activeOf(a));
  checkSize(ch, bytes, toL1);
  checkRows(ch, bytes, toL1, "external", extLength, extStride);
  checkRows(ch, bytes, toL1, "L1", l1Length, l1Stride);
  const l1Extent = extentOf(bytes, l1Length, l1Stride);
  const extExtent = extentOf(bytes, extLength, extStride);
  checkSide(ch, bytes, toL1, "L1", "L1", 1 << l1Region, l1, l1Extent);
  checkSide(ch, bytes, toL1, "external", "L2", extMask, ext, extExtent);
  if (pending == POOL) fail("dma_copy", "more than 1024 transfers issued and not waited for");

  stallForQueue(a);
  spend(a, (3 + (extLength > 0 ? 2 : 0) + (l1Length > 0 ? 2 : 0)) * REG_CYCLES << Q);
  let i = 0;
  while (slot(i).channel >= 0) i++;
  top = max(top, i + 1);
  const t = slot(i);
  t.channel = ch;
  t.agent = a;
  t.bytes = bytes;
  t.toL1 = toL1 != 0 ? 1 : 0;
  t.landed = 0;
  t.layer = currentLayer();
  t.l1 = l1;
  t.ext = ext;
  t.l1Length = l1Length;
  t.l1Stride = l1Stride;
  t.extLength = extLength;
  t.extStride = extStride;
  t.detail = bytes | (toL1 != 0 ? CMD_TO_L1 : 0) | (extLength > 0 ? CMD_2D_EXT : 0) | (l1Length > 0 ? CMD_2D_L1 : 0) |
    (ch << INFO_CHANNEL_SHIFT);
  t.seq = seq++;
  const engine = FREE_AT + (toL1 != 0 ? 0 : 8);
  const start = max(clockQ(a), load<i64>(engine));
  t.end = start + ((latency + walk(t, bytesPerCycle, false)) << Q);
  store<i64>(engine, t.end);
  pending++;
  recordDma(a, t.layer, t.detail, start >> Q, t.end >> Q);
}

/** Copies every transfer complete at `now` and not yet landed, in completion order (ties: issue order). */
function landDue(now: i64): void {
  for (;;) {
    let next = -1;
    for (let i = 0; i < top; i++) {
      const t = slot(i);
      if (t.channel < 0 || t.landed != 0 || t.end > now) continue;
      if (next < 0 || t.end < slot(next).end || (t.end == slot(next).end && t.seq < slot(next).seq)) next = i;
    }
    if (next < 0) return;
    walk(slot(next), bytesPerCycle, true);
    slot(next).landed = 1;
  }
}

/** Waits for every transfer on the channel: the core sleeps until the last completes; due data lands. */
export function dma_wait(ch: i32): void {
  const a = issuer("dma_wait");
  checkChannel("dma_wait", ch, allocated);
  let last: i64 = 0;
  for (let i = 0; i < top; i++) if (slot(i).channel == ch) last = max(last, slot(i).end);
  waitUntil(a, last);
  landDue(clockQ(a));
  let used = 0;
  for (let i = 0; i < top; i++) {
    if (slot(i).channel == ch) {
      slot(i).channel = -1;
      pending--;
    }
    if (slot(i).channel >= 0) used = i + 1;
  }
  top = used;
}

/** After the firmware returns: every transfer must have been waited for, or its data never (reliably) arrived. */
export function dma_finish(): void {
  if (pending == 0) return;
  let first = -1;
  for (let i = 0; i < top; i++) {
    if (slot(i).channel >= 0 && (first < 0 || slot(i).seq < slot(first).seq)) first = i;
  }
  finishFault(pending, slot(first));
}

// --- parameters, for reports and tests ---

export function dma_channels(): i32 {
  return enabled ? CHANNELS : 0;
}

export function dma_max_bytes(): i32 {
  return MAX_BYTES;
}

export function dma_latency_cycles(): i32 {
  return <i32>latency;
}

export function dma_bytes_per_cycle(): i32 {
  return bytesPerCycle;
}

export function dma_queue_depth(): i32 {
  return queueDepth;
}

export function dma_register_cycles(): i32 {
  return <i32>REG_CYCLES;
}
