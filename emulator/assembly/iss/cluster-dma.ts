// The cluster DMA as firmgen's RV32 cores reach it: mchan v7 at 0x1020_4400 behind the per-core demux, the register
// protocol of HARDWARE.md "cluster DMA (mchan v7)" (Deeploy mchan_v7.h), as the board HAL drives it
// (runtime/c/siracusa/hal_pulp.c; the ISS build's hal_iss.c drives it the same way):
//   +0 R  cmd     allocate the lowest free channel (0..15) and make it this core's active one
//   +0 W  cmd     push a command word: command (length bits 0..16, bit 17 to L1, 19 2-D external, 23 2-D L1), L1
//                 address, external address, then (2-D external) length and stride, then (2-D L1) length and stride;
//                 the transfer starts on the core's active channel with the last word
//   +4 R  status  bit i: channel i has a transfer not complete at the reading core's time
//   +4 W  status  free the channels of the mask
// Timing as the AS path's model (emulator/assembly/dma.ts, docs/timing.md "Cluster DMA"), with the same figures
// (chips/siracusa.ts): two engines (into and out of L1), latency + one cycle per 8-byte beat of each piece
// (dma-transfer.ts walk), 2 commands outstanding per core (a third sleeps its core until the oldest completes).
// Data lands at completion, observed when a core reads `status` or wakes from the DMA sleep (cluster-eu.ts): a core
// that uses a destination before waiting for it sees the old bytes, as on the chip.

import { deviceSetDmaWait, deviceSetFault, deviceSetStatus, DEV_BAD_OFFSET } from "./mmio";
import { findRegion, regionBase, regionFlags, regionLinear, regionSize, FLAG_MMIO } from "./memory";
import { l1Region } from "./cluster-state";
import { MAX_HARTS } from "./harts";
import { FAULT_DMA } from "./faults";
import { extentOf, RECORD_BYTES, Transfer, walk } from "../dma-transfer";
import { outerLayer, recordDma } from "../events";
import { INFO_CHANNEL_SHIFT } from "../dma";
import { DMA_BYTES_PER_CYCLE, DMA_LATENCY_CYCLES, DMA_QUEUE_PER_CORE } from "../chips/siracusa";

export const MCHAN_BASE: u32 = 0x1020_4400;
export const MCHAN_SIZE: u32 = 0x400;
const CHANNELS: i32 = 16;
const MAX_BYTES: i32 = 131071;
const CMD_TO_L1: u32 = 1 << 17;
const CMD_2D_EXT: u32 = 1 << 19;
const CMD_2D_L1: u32 = 1 << 23;

/** Transfers not yet freed, at most (the HAL keeps a handful in flight). */
const POOL: i32 = 64;
const POOL_DATA = memory.data(POOL * RECORD_BYTES);
/** Per hart: active channel, words received of the command being pushed, and the words. */
const ACTIVE = memory.data(MAX_HARTS * 4);
const STAGE = memory.data(MAX_HARTS * 4);
const WORDS = memory.data(MAX_HARTS * 7 * 4);

let allocated: i32 = 0;
let seq: i64 = 0;
let freeToL1: i64 = 0;
let freeFromL1: i64 = 0;

// @ts-ignore: decorator
@inline function slot(i: i32): Transfer {
  return changetype<Transfer>(POOL_DATA + <usize>(i * RECORD_BYTES));
}

// @ts-ignore: decorator
@inline function hw(table: usize, hart: i32): usize {
  return table + (<usize>hart << 2);
}

export function resetMchan(): void {
  allocated = 0;
  seq = 0;
  freeToL1 = 0;
  freeFromL1 = 0;
  memory.fill(ACTIVE, 0xff, MAX_HARTS * 4);
  memory.fill(STAGE, 0, MAX_HARTS * 4);
  for (let i = 0; i < POOL; i++) slot(i).channel = -1;
}

/** Copies every transfer complete at `now` and not yet landed, in completion order (ties: issue order). */
function landDue(now: i64): void {
  for (;;) {
    let next = -1;
    for (let i = 0; i < POOL; i++) {
      const t = slot(i);
      if (t.channel < 0 || t.end > now) continue;
      if (next < 0 || t.end < slot(next).end || (t.end == slot(next).end && t.seq < slot(next).seq)) next = i;
    }
    if (next < 0) return;
    walk(slot(next), DMA_BYTES_PER_CYCLE, true);
    slot(next).channel = -1; // complete and landed: the slot is free (the channel stays allocated)
  }
}

/** The earliest completion after `now` of any transfer (`now` if none is pending). */
export function mchanNextCompletion(now: i64): i64 {
  let t: i64 = i64.MAX_VALUE;
  for (let i = 0; i < POOL; i++) if (slot(i).channel >= 0 && slot(i).end > now) t = min(t, slot(i).end);
  return t == i64.MAX_VALUE ? now : t;
}

export function mchanRead(hart: i32, offset: u32, size: i32, now: i64): i32 {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return 0; }
  if (offset == 0) {
    if (allocated == (1 << CHANNELS) - 1) { deviceSetFault(FAULT_DMA, MCHAN_BASE); return 0; }
    const ch = ctz(~allocated);
    allocated |= 1 << ch;
    store<i32>(hw(ACTIVE, hart), ch);
    store<i32>(hw(STAGE, hart), 0);
    return ch;
  }
  if (offset == 4) {
    landDue(now);
    let busy = 0;
    for (let i = 0; i < POOL; i++) if (slot(i).channel >= 0 && slot(i).end > now) busy |= 1 << slot(i).channel;
    return busy;
  }
  deviceSetStatus(DEV_BAD_OFFSET);
  return 0;
}

export function mchanWrite(hart: i32, offset: u32, size: i32, value: i32, now: i64): void {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  if (offset == 4) {
    landDue(now);
    for (let i = 0; i < POOL; i++) {
      const t = slot(i);
      if (t.channel < 0 || (value & (1 << t.channel)) == 0) continue;
      if (t.end > now) { deviceSetFault(FAULT_DMA, <u32>t.channel); return; } // freed while busy
      t.channel = -1;
    }
    allocated &= ~value;
    return;
  }
  if (offset != 0) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  const stage = load<i32>(hw(STAGE, hart));
  const words = WORDS + <usize>(hart * 7 * 4);
  store<u32>(words + (<usize>stage << 2), <u32>value);
  const cmd = load<u32>(words);
  const need = 3 + ((cmd & CMD_2D_EXT) != 0 ? 2 : 0) + ((cmd & CMD_2D_L1) != 0 ? 2 : 0);
  if (stage + 1 < need) { store<i32>(hw(STAGE, hart), stage + 1); return; }
  store<i32>(hw(STAGE, hart), 0);
  issue(hart, cmd, load<u32>(words + 4), load<u32>(words + 8), words + 12, now);
}

/** Linear address of [addr, addr + extent) inside one RAM region (L1 or not, as asked); 0 with a fault if none. */
function linearOf(addr: u32, extent: i64, inL1: bool): usize {
  const r = findRegion(addr, 1);
  if (r < 0 || (regionFlags(r) & FLAG_MMIO) != 0 || (r == l1Region) != inL1
    || <i64>(addr - regionBase(r)) + extent > <i64>regionSize(r)) {
    deviceSetFault(FAULT_DMA, addr);
    return 0;
  }
  return regionLinear(r) + <usize>(addr - regionBase(r));
}

function issue(hart: i32, cmd: u32, l1: u32, ext: u32, rest: usize, now: i64): void {
  const ch = load<i32>(hw(ACTIVE, hart));
  const bytes = <i32>(cmd & 0x1ffff);
  if (ch < 0 || (allocated & (1 << ch)) == 0) { deviceSetFault(FAULT_DMA, <u32>ch); return; }
  if (bytes == 0 || bytes > MAX_BYTES) { deviceSetFault(FAULT_DMA, <u32>bytes); return; }
  let extLength = 0, extStride = 0, l1Length = 0, l1Stride = 0;
  let k: usize = 0;
  if ((cmd & CMD_2D_EXT) != 0) { extLength = load<i32>(rest); extStride = load<i32>(rest + 4); k = 8; }
  if ((cmd & CMD_2D_L1) != 0) { l1Length = load<i32>(rest + k); l1Stride = load<i32>(rest + k + 4); }
  const l1Lin = linearOf(l1, extentOf(bytes, l1Length, l1Stride), true);
  if (l1Lin == 0) return;
  const extLin = linearOf(ext, extentOf(bytes, extLength, extStride), false);
  if (extLin == 0) return;
  // A core with DMA_QUEUE_PER_CORE commands outstanding sleeps until the oldest completes.
  let start = now;
  for (;;) {
    let outstanding = 0;
    let first: i64 = i64.MAX_VALUE;
    for (let i = 0; i < POOL; i++) {
      const t = slot(i);
      if (t.channel >= 0 && t.agent == hart && t.end > start) { outstanding++; first = min(first, t.end); }
    }
    if (outstanding < DMA_QUEUE_PER_CORE) break;
    start = first;
  }
  if (start > now) deviceSetDmaWait(start - now);
  let i = 0;
  while (i < POOL && slot(i).channel >= 0) i++;
  if (i == POOL) { deviceSetFault(FAULT_DMA, <u32>ch); return; }
  const t = slot(i);
  t.channel = ch;
  t.agent = hart;
  t.detail = <i32>cmd;
  t.bytes = bytes;
  t.toL1 = (cmd & CMD_TO_L1) != 0 ? 1 : 0;
  t.landed = 0;
  t.layer = 0;
  t.l1 = l1Lin;
  t.ext = extLin;
  t.l1Length = l1Length;
  t.l1Stride = l1Stride;
  t.extLength = extLength;
  t.extStride = extStride;
  t.seq = seq++;
  const begin = max(start, t.toL1 != 0 ? freeToL1 : freeFromL1);
  t.end = begin + DMA_LATENCY_CYCLES + walk(t, DMA_BYTES_PER_CYCLE, false);
  if (t.toL1 != 0) freeToL1 = t.end;
  else freeFromL1 = t.end;
  // The trace's record (events.ts kind dma): the command word's bits with the channel above them, as dma.ts's.
  recordDma(hart, outerLayer(), <i32>(cmd & 0x00ff_ffff) | (ch << INFO_CHANNEL_SHIFT), begin, t.end);
}
