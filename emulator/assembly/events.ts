// The event log: a fixed ring of 32-byte records in the emulator window [EVENT_LOG_BASE, EVENT_LOG_LIMIT), so
// recording never grows a heap. When full, the oldest records are overwritten and events_total() keeps counting,
// so the runtime can say how many it lost. Record layout (little-endian), read directly by the runtime:
//   +0 i32 kind (0 = layer), +4 i32 agent, +8 i32 layer id, +12 i32 reserved, +16 i64 start, +24 i64 end (cycles).

import { EVENT_LOG_BASE, EVENT_LOG_LIMIT } from "./layout";
import { currentAgent, cyclesOf, MAX_AGENTS } from "./agents";
import { msgBegin, msgDec, msgText, raise } from "./fault";

export const EVENT_BYTES: i32 = 32;
export const KIND_LAYER: i32 = 0;
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

function record(kind: i32, agent: i32, layer: i32, start: i64, end: i64): void {
  const p = EVENT_LOG_BASE + <usize>next * <usize>EVENT_BYTES;
  store<i32>(p, kind);
  store<i32>(p, agent, 4);
  store<i32>(p, layer, 8);
  store<i32>(p, 0, 12);
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
  record(KIND_LAYER, a, layer, load<i64>(OPEN_START + (<usize>a << 3)), cyclesOf(a));
  store<i32>(OPEN_LAYER + (<usize>a << 2), NO_LAYER);
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
