// The event log: a fixed ring of 32-byte records in the emulator window [EVENT_LOG_BASE, EVENT_LOG_LIMIT), so
// recording never grows a heap. When full, the oldest records are overwritten and events_total() keeps counting,
// so the runtime can say how many it lost. Record layout (little-endian), read directly by the runtime:
//   +0 i32 kind, +4 i32 agent, +8 i32 layer id, +12 i32 detail, +16 i64 start, +24 i64 end (cycles).
// Kinds: 0 layer (a layer_begin..layer_end span on one agent; detail 0); 1 share (one cluster core's work in one
// phase of a fork, from the phase start to the core's own clock at the barrier or join that ends the phase, before
// the team meets; layer = the master's open layer or -1, detail = phase index within the fork). Shares are what the
// trace draws per core: the layer markers run on the master only, so without them the cores' time would be blank.
// Kind 2 dma: one cluster DMA transfer (dma.ts); agent = the issuing agent, layer = its open layer (else the
// master's, else -1), detail = the transfer in mchan v7 command-word bits (0..16 bytes, 17 into L1, 19 2-D on the
// external side, 23 2-D on the L1 side) with the channel id in bits 24..27; start..end = the engine's busy interval
// (start = max(issue, engine free), end = completion). Direction 17 picks the engine: a trace draws one lane each.
// On SpiNNaker2 the dma records are a PE's own DMA (pe-dma.ts): bit 17 = into the PE's SRAM, 19 = 2-D on the DRAM
// side, no channel. Kind 3 mla: one MAC-array job (mla.ts) on PE `agent`, detail = its 4x16 output blocks,
// start..end = the array's busy interval. Kind 4 npu: one N-EUREKA job (neureka.ts); agent = the core that wrote
// TRIGGER, layer = its open layer (else the master's, else -1), detail = bits 0..7 job id, 8..9 mode (0 3x3,
// 1 3x3 depthwise, 2 1x1), 10 weights from the neural memory (WMEM), 12..15 weight bits, 16 int32 output
// (norm/quant off); start..end = the engine's busy interval (start = max(trigger, previous job's end)). Kind 5 l3:
// one HyperRAM DMA copy (l3-dma.ts); agent = the caller, which slept through it; detail = bits 0..23 bytes, bit 24
// set for L2 to L3; start..end = the copy, setup included. Kind 6 gemmini: one Gemmini command on one of its units
// (gemmini/timing.ts); agent 0 (the host), detail = bits 0..7 funct, 8..9 unit (0 load, 1 execute, 2 store), 10 issued
// by the loop unroller, 16..23 rows; start..end = the unit's busy interval (computes: the array's 16-cycle stream).
// Kind 8 wait (the RV32 core, `gen run --on iss`): hart `agent` (0 the fabric controller or the only hart, k >= 1
// cluster core k - 1) did not run: detail 1 idle in the event unit (no work dispatched), 2 at a barrier, 3 waiting for
// the cluster task's end, 4 asleep on the cluster DMA or an L3 copy, 5 asleep on N-EUREKA; layer = the one its marks
// opened (else -1); start..end = the cycles it lost, on its own clock. Kind 7 bss2: see recordBss2.

import { EVENT_LOG_BASE, EVENT_LOG_LIMIT } from "./layout";
import { currentAgent, cyclesOf } from "./agents";
import { MAX_AGENTS } from "./limits";
import { msgBegin, msgDec, msgText, raise } from "./fault";

export const EVENT_BYTES: i32 = 32;
export const KIND_LAYER: i32 = 0;
export const KIND_SHARE: i32 = 1;
export const KIND_DMA: i32 = 2;
export const KIND_MLA: i32 = 3;
export const KIND_NPU: i32 = 4;
export const KIND_L3: i32 = 5;
export const KIND_GEMMINI: i32 = 6;
export const KIND_BSS2: i32 = 7;
export const KIND_WAIT: i32 = 8;
const CAPACITY: i32 = <i32>((EVENT_LOG_LIMIT - EVENT_LOG_BASE) / <usize>EVENT_BYTES);
const NO_LAYER: i32 = -1;

/** Per agent: the open layer id (or NO_LAYER) and the cycle it began. */
const OPEN_LAYER = memory.data(MAX_AGENTS * 4);
const OPEN_START = memory.data(MAX_AGENTS * 8);

let next: i32 = 0;
let total: i32 = 0;

export function resetEvents(): void {
  next = 0;
  total = 0;
  memory.fill(OPEN_LAYER, 0xff, MAX_AGENTS * 4);
}

function record(kind: i32, agent: i32, layer: i32, detail: i32, start: i64, end: i64): void {
  const p = EVENT_LOG_BASE + <usize>next * <usize>EVENT_BYTES;
  store<i32>(p, kind);
  store<i32>(p, agent, 4);
  store<i32>(p, layer, 8);
  store<i32>(p, detail, 12);
  store<i64>(p, start, 16);
  store<i64>(p, end, 24);
  next = next + 1 == CAPACITY ? 0 : next + 1;
  total++;
}

function openLayerOf(agent: i32): i32 {
  return load<i32>(OPEN_LAYER + (<usize>agent << 2));
}

/** The layer a fault happened in: the current agent's open layer, else the master's (a fork inside a layer). */
export function currentLayer(): i32 {
  const a = currentAgent();
  const own = a >= 0 ? openLayerOf(a) : NO_LAYER;
  return own != NO_LAYER ? own : openLayerOf(0);
}

/** The layer open outside any agent (the RV32 core's layer marks, iss/cluster-eu.ts): the master's slot. */
export function setOuterLayer(layer: i32): void {
  store<i32>(OPEN_LAYER, layer < 0 ? NO_LAYER : layer);
}

/** The open layer of the agent running now (else the master's), -1 outside any: the runtime names a trap's layer. */
export function current_layer(): i32 {
  return currentLayer();
}

/** Ends a fault message with the layer it happened in: " in layer N", or " outside any layer". */
export function msgLayer(): void {
  const layer = currentLayer();
  if (layer >= 0) {
    msgText(" in layer ");
    msgDec(layer);
  } else {
    msgText(" outside any layer");
  }
}

function markerAgent(op: string, layer: i32): i32 {
  const a = currentAgent();
  if (a < 0 || layer < 0) {
    msgBegin(op);
    msgText("(");
    msgDec(layer);
    msgText(layer < 0 ? "): layer ids are >= 0" : "): no agent runs this (call enter(core) after fork or barrier)");
    raise();
  }
  return a;
}

export function layer_begin(layer: i32): void {
  const a = markerAgent("layer_begin", layer);
  const open = openLayerOf(a);
  if (open != NO_LAYER) {
    msgBegin("layer_begin(");
    msgDec(layer);
    msgText("): layer ");
    msgDec(open);
    msgText(" is still open on agent ");
    msgDec(a);
    raise();
  }
  store<i32>(OPEN_LAYER + (<usize>a << 2), layer);
  store<i64>(OPEN_START + (<usize>a << 3), cyclesOf(a));
}

export function layer_end(layer: i32): void {
  const a = markerAgent("layer_end", layer);
  if (openLayerOf(a) != layer) {
    msgBegin("layer_end(");
    msgDec(layer);
    msgText("): agent ");
    msgDec(a);
    msgText(" has not begun that layer");
    raise();
  }
  record(KIND_LAYER, a, layer, 0, load<i64>(OPEN_START + (<usize>a << 3)), cyclesOf(a));
  store<i32>(OPEN_LAYER + (<usize>a << 2), NO_LAYER);
}

/** One core's share of a fork phase (agents.ts calls it at barrier and join, in whole cycles). */
export function recordShare(agent: i32, phase: i32, start: i64, end: i64): void {
  record(KIND_SHARE, agent, openLayerOf(0), phase, start, end);
}

/** One cluster DMA transfer (dma.ts), in whole cycles. */
export function recordDma(agent: i32, layer: i32, detail: i32, start: i64, end: i64): void {
  record(KIND_DMA, agent, layer, detail, start, end);
}

/** One MLA job (mla.ts), in whole cycles. */
export function recordMla(agent: i32, layer: i32, blocks: i32, start: i64, end: i64): void {
  record(KIND_MLA, agent, layer, blocks, start, end);
}

/** One HyperRAM DMA copy (l3-dma.ts). */
export function recordL3(agent: i32, layer: i32, detail: i32, start: i64, end: i64): void {
  record(KIND_L3, agent, layer, detail, start, end);
}

/** One Gemmini command on one unit (gemmini/timing.ts), in whole cycles. */
export function recordGemmini(detail: i32, layer: i32, start: i64, end: i64): void {
  record(KIND_GEMMINI, 0, layer, detail, start, end);
}

/**
 * One phase of a BrainScaleS-2 device call (brainscales2/api.ts), in whole cycles of the calling agent: detail bits
 * 0..1 the phase (0 inputs over the link, 1 the analog run, 2 outputs over the link, 3 a block write over the link),
 * bits 2.. the bytes moved (the run: its multiply-accumulates).
 */
export function recordBss2(agent: i32, layer: i32, detail: i32, start: i64, end: i64): void {
  record(KIND_BSS2, agent, layer, detail, start, end);
}

/** One N-EUREKA job (neureka.ts), in whole cycles. */
export function recordNpu(agent: i32, layer: i32, detail: i32, start: i64, end: i64): void {
  record(KIND_NPU, agent, layer, detail, start, end);
}

/** A hart of the RV32 core that did not run from `start` to `end` (kind wait, detail: why; see the header). */
export function recordWait(hart: i32, why: i32, start: i64, end: i64): void {
  if (end > start) record(KIND_WAIT, hart, openLayerOf(0), why, start, end);
}

/** The layer the RV32 core's marks opened (setOuterLayer), -1 outside any. */
export function outerLayer(): i32 {
  return openLayerOf(0);
}

// --- runtime exports ---

export function events_ptr(): usize {
  return EVENT_LOG_BASE;
}

export function events_capacity(): i32 {
  return CAPACITY;
}

/** Records held: min(total, capacity). */
export function events_count(): i32 {
  return total < CAPACITY ? total : CAPACITY;
}

/** Index of the oldest held record. */
export function events_first(): i32 {
  return total < CAPACITY ? 0 : next;
}

/** Records ever written; events_total() - events_count() were overwritten. */
export function events_total(): i32 {
  return total;
}
