// The HyperRAM DMA: how Siracusa's firmware reaches L3. HARDWARE.md, row "L3": off-chip HyperRAM, "reached by a
// separate, blocking DMA". The caller issues a copy between L2 and L3 and sleeps until it is done, so the data is
// there when the call returns (no wait, no channel); the cluster DMA cannot reach L3 (dma.ts) and no core can load
// from it. Timing and its sources: chips/siracusa.ts (siracusaL3Dma) and docs/timing.md, "L3 (HyperRAM) DMA".

import { currentAgent, cyclesOf, spend } from "./agents";
import { Q } from "./cost";
import { currentLayer, msgLayer, recordL3 } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { msgAddress, region_linear_base, region_size, regionAt } from "./regions";

/** Event detail (events.ts, kind 5): bits 0..23 the bytes, bit 24 the direction (set: L2 to L3). */
export const DETAIL_TO_L3: i32 = 1 << 24;

let enabled = false;
let l2Region: i32 = -1;
let l3Region: i32 = -1;
let setupCycles: i64 = 0;
let burstLatency: i64 = 0;
let burstBytes: i32 = 1;
/** Bandwidth as a fraction: `bytesNum` bytes every `bytesDen` cycles. */
let bytesNum: i64 = 1;
let bytesDen: i64 = 1;

export function resetL3Dma(): void {
  enabled = false;
}

/**
 * The chip has a HyperRAM DMA between regions `l2` and `l3`. A copy costs `setup` cycles of the caller's work (it
 * programs the channel), then every burst of up to `burst` bytes pays `latency` cycles before its data, which moves
 * at `num` bytes per `den` cycles.
 */
export function enableL3Dma(l2: i32, l3: i32, setup: i64, latency: i64, burst: i32, num: i64, den: i64): void {
  enabled = true;
  l2Region = l2;
  l3Region = l3;
  setupCycles = setup;
  burstLatency = latency;
  burstBytes = burst;
  bytesNum = num;
  bytesDen = den;
}

/** "l3_copy: <bytes> bytes L2 to L3: ", the start of every fault of a copy. */
function msgCopy(bytes: i32, toL3: i32): void {
  msgBegin("l3_copy: ");
  msgDec(bytes);
  msgText(toL3 != 0 ? " bytes L2 to L3: " : " bytes L3 to L2: ");
}

function fail(why: string, bytes: i32, toL3: i32): void {
  msgCopy(bytes, toL3);
  msgText(why);
  msgLayer();
  raise();
}

function checkSide(name: string, region: i32, ptr: usize, bytes: i32, toL3: i32): void {
  const r = regionAt(ptr);
  if (r == region && <i64>(ptr - region_linear_base(r)) + <i64>bytes <= <i64>region_size(r)) return;
  msgCopy(bytes, toL3);
  msgText("the ");
  msgText(name);
  msgText(" side must lie inside ");
  msgText(name);
  msgText(", got ");
  msgAddress(ptr, r);
  msgLayer();
  raise();
}

/** Cycles of a copy of `bytes` (setup excluded): each burst's latency, then the data at the link's rate. */
export function l3TransferCycles(bytes: i64): i64 {
  return l3CopyCycles(bytes, burstLatency, burstBytes, bytesNum, bytesDen);
}

/** The same for given link figures (the RV32 core's HyperRAM DMA device, iss/l3.ts, passes chips/siracusa.ts's). */
export function l3CopyCycles(bytes: i64, latency: i64, burst: i32, num: i64, den: i64): i64 {
  const bursts = (bytes + <i64>burst - 1) / <i64>burst;
  return bursts * latency + (bytes * den + num - 1) / num;
}

/**
 * Device call behind the HALs' l3_read/l3_write: copies `bytes` between L2 at `l2` and L3 at `l3` (to L3 when
 * `toL3` != 0) and returns when the data has arrived; the calling agent's clock moves past the whole transfer.
 */
export function l3_copy(l2: usize, l3: usize, bytes: i32, toL3: i32): void {
  if (!enabled) fail("this chip has no L3 DMA", bytes, toL3);
  const a = currentAgent();
  if (a < 0) fail("no agent runs this (call enter(core) after fork or barrier)", bytes, toL3);
  if (bytes <= 0 || bytes >= DETAIL_TO_L3) fail("the length must be 1 .. 16 MiB - 1 bytes", bytes, toL3);
  checkSide("L2", l2Region, l2, bytes, toL3);
  checkSide("L3", l3Region, l3, bytes, toL3);
  const start = cyclesOf(a);
  spend(a, (setupCycles + l3TransferCycles(bytes)) << Q);
  if (toL3 != 0) memory.copy(l3, l2, bytes);
  else memory.copy(l2, l3, bytes);
  recordL3(a, currentLayer(), bytes | (toL3 != 0 ? DETAIL_TO_L3 : 0), start, cyclesOf(a));
}

/** Parameters, for reports and tests. */
export function l3_setup_cycles(): i32 {
  return <i32>setupCycles;
}

export function l3_transfer_cycles(bytes: i32): i32 {
  return <i32>l3TransferCycles(bytes);
}
