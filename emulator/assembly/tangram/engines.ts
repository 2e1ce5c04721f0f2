// The Tangram engines as an event model (docs/tangram.md "Engine programs"): runs the per-engine programs the
// generator writes (generator/platforms/tangram/programs.ts, whose layout this file reads) on the engines, the mesh
// NoC and the DRAM channels. Every figure (grid, channel and link rates, hop latency, word size) comes in the
// program's header from the generator's hardware description, so a configuration file reaches the model too.
//
// Time: each engine has its own clock (f64 cycles from the call); commands run in global time order (the engine with
// the smallest clock whose next command can go). A load takes its channel (queued behind earlier transfers on it)
// and the links from the channel's edge port to the engine; a send takes the links of its XY route; a link or
// channel is held for words / rate cycles from the transfer's start (contention: a later transfer waits); the data
// arrive hop latency x hops after their last word leaves. Loads and sends are asynchronous (an engine's own DMA);
// WAIT_LOADS and RECV block. When every engine is done the control core waits until the last one finishes.
//
// Functional mode (products): the last COMPUTE of an engine adds its block's 8-bit x 8-bit products (and the bias, once per
// output) into the output, which the run zeroes first: the sums are exact in any order (two's-complement addition
// modulo the output's width is associative, and the final sum fits the type the generator gave the output), so the
// result is bit-exact with the reference. Max pooling: the last COMPUTE writes its block's window maxima (no split
// over channels of one output, so no partial results). A pipeline segment's program (segment-programs.ts: functional
// kind 3, a record per layer after the message table, seven operand addresses per layer in a table at `x`) computes
// per STEP the engine's rows of the step (products into the output or the layer's accumulators; pooling; the
// element-wise clip(requant(x))) and per FINISH the leader's requantization of the step's whole sums; a command runs
// only after the messages before it in its engine's list, so a step reads only data its producers have finished.
// Timing-only mode skips the arithmetic and the zeroing; schedule and counters are the same.

import { clockQ, waitUntil } from "../agents";
import { Q } from "../cost";
import { msgBegin, msgDec, msgText, raise } from "../fault";

const MAGIC: i32 = 0x54474d31;
const HEADER: i32 = 48;
const ENGINE: i32 = 14;
const COMMAND: i32 = 4;

const OP_LOAD: i32 = 1;
const OP_WAIT_LOADS: i32 = 2;
const OP_COMPUTE: i32 = 3;
const OP_SEND: i32 = 4;
const OP_RECV: i32 = 5;
const OP_STORE: i32 = 6;
const OP_STEP: i32 = 7;
const OP_FINISH: i32 = 8;

/** Bounds of the model's tables (static data: they count in the emulator's 1 MiB window). */
const MAX_ENGINES: i32 = 1024;
/** Outputs of a requantized layer: their int32 sums wait here until the last engine is done. */
export const MAX_ACCUMULATORS: i32 = 65536;
const ACC: usize = memory.data(MAX_ACCUMULATORS * 4);
const MAX_SIDE: i32 = 64;
const MAX_CHANNELS: i32 = 16;

const CLOCK: usize = memory.data(MAX_ENGINES * 8);
const LOADS: usize = memory.data(MAX_ENGINES * 8);
const PC: usize = memory.data(MAX_ENGINES * 4);
/** Four outgoing links per engine position: east, west, south, north. */
const LINKS: usize = memory.data(MAX_ENGINES * 4 * 8);
/** Edge ports per row: west in, west out, east in, east out. */
const PORTS: usize = memory.data(MAX_SIDE * 4 * 8);
const CHANNELS: usize = memory.data(MAX_CHANNELS * 8);
/** The program's own message table (its arrival times, f64; -1 not sent yet). */
let MESSAGES: usize = 0;

let prog: usize = 0;
let engines: i32 = 0;
let rows: i32 = 0;
let cols: i32 = 0;
let channels: i32 = 0;
let channelBytes: f64 = 0;
let linkWords: f64 = 0;
let hopCycles: f64 = 0;
let wordBytes: f64 = 0;

// counters of the last run (read by the runtime and the tests)
let lastCycles: f64 = 0;
let dramWords: i64 = 0;
let wordHops: i64 = 0;
let computeCycles: i64 = 0;
let linkWait: f64 = 0;

// @ts-ignore: decorator
@inline function word(i: i32): i32 {
  return load<i32>(prog + (<usize>i << 2));
}

// @ts-ignore: decorator
@inline function f64At(base: usize, i: i32): f64 {
  return load<f64>(base + (<usize>i << 3));
}

// @ts-ignore: decorator
@inline function setF64(base: usize, i: i32, v: f64): void {
  store<f64>(base + (<usize>i << 3), v);
}

function fail(why: string, value: i64): void {
  msgBegin("tangram: ");
  msgText(why);
  msgText(" ");
  msgDec(value);
  raise();
}

function engineWord(e: i32, i: i32): i32 {
  return word(HEADER + e * ENGINE + i);
}

/** Link `dir` (0 east, 1 west, 2 south, 3 north) leaving engine position (r, c). */
function linkId(r: i32, c: i32, dir: i32): i32 {
  return (r * cols + c) * 4 + dir;
}

// A route is a list of link slots: positive for LINKS, negative (-(slot+1)) for PORTS.
const ROUTE: usize = memory.data(4 * (2 * MAX_SIDE + 4));
let routeLen: i32 = 0;

function routeAdd(slot: i32): void {
  store<i32>(ROUTE + (<usize>routeLen << 2), slot);
  routeLen++;
}

function routeFree(): f64 {
  let t: f64 = 0;
  for (let i = 0; i < routeLen; i++) {
    const s = load<i32>(ROUTE + (<usize>i << 2));
    t = max(t, s >= 0 ? f64At(LINKS, s) : f64At(PORTS, -s - 1));
  }
  return t;
}

function routeHold(until: f64): void {
  for (let i = 0; i < routeLen; i++) {
    const s = load<i32>(ROUTE + (<usize>i << 2));
    if (s >= 0) setF64(LINKS, s, until);
    else setF64(PORTS, -s - 1, until);
  }
}

/** XY route between engine positions: along the row first, then along the column. */
function routeXY(r1: i32, c1: i32, r2: i32, c2: i32): void {
  routeLen = 0;
  let c = c1;
  while (c != c2) {
    if (c2 > c) { routeAdd(linkId(r1, c, 0)); c++; } else { routeAdd(linkId(r1, c, 1)); c--; }
  }
  let r = r1;
  while (r != r2) {
    if (r2 > r) { routeAdd(linkId(r, c2, 2)); r++; } else { routeAdd(linkId(r, c2, 3)); r--; }
  }
}

/** The route between an edge port of row r (east or west) and the engine at (r, c); `inbound`: port to engine. */
function routeEdge(r: i32, c: i32, east: bool, inbound: bool): void {
  routeLen = 0;
  const port = r * 4 + (east ? 2 : 0) + (inbound ? 0 : 1);
  routeAdd(-port - 1);
  if (east) {
    for (let x = cols - 1; x > c; x--) routeAdd(inbound ? linkId(r, x, 1) : linkId(r, x - 1, 0));
  } else {
    for (let x = 0; x < c; x++) routeAdd(inbound ? linkId(r, x, 0) : linkId(r, x + 1, 1));
  }
}

function channelEast(ch: i32): bool {
  const perSide = max(1, channels / 2);
  return ch >= perSide;
}

/** A pipeline segment's program: its layers, their records (segment-programs.ts LAYER_WORDS each). */
const LAYER: i32 = 42;
const MAX_LAYERS: i32 = 64;
const ARGS_PER_LAYER: i32 = 7;
let segment = false;
let segmentLayers: i32 = 0;
let lastEngine: i32 = 0;
/** The segment's operand addresses (7 per layer: x, w, bias, y, mul, add, x2) and the current layer's. */
let ARGS: usize = 0;
let X: usize = 0;
let W: usize = 0;
let B: usize = 0;
let Y: usize = 0;
let MUL: usize = 0;
let ADD: usize = 0;
let X2: usize = 0;

/** Makes segment layer l's record the operation the arithmetic reads, and its operands the current ones. */
function useLayer(l: i32): void {
  FB = word(13) + l * LAYER - 10;
  ACC_BASE = fw(51);
  if (ARGS == 0) return;
  const at = ARGS + (<usize>(l * ARGS_PER_LAYER) << 2);
  X = <usize>load<u32>(at);
  W = <usize>load<u32>(at + 4);
  B = <usize>load<u32>(at + 8);
  Y = <usize>load<u32>(at + 12);
  MUL = <usize>load<u32>(at + 16);
  ADD = <usize>load<u32>(at + 20);
  X2 = <usize>load<u32>(at + 24);
}

/** The segment layer engine e computes. */
function layerOf(e: i32): i32 {
  for (let l = 0; l < segmentLayers; l++) {
    const first = word(word(13) + l * LAYER + 1);
    if (e >= first && e < first + word(word(13) + l * LAYER + 31)) return l;
  }
  fail("an engine of no segment layer:", e);
  return -1;
}

/**
 * Checks an operation (at FB) and its engines' blocks [e0, e1) before any arithmetic, and zeroes what it sums into:
 * the output of products, or their accumulators when requantized.
 */
function prepare(e0: i32, e1: i32, kind: i32, y: usize): void {
  if (kind == 2) {
    if (fw(38) < 0 || fw(38) > 1 || fw(42) != fw(38)) fail("pooling takes an 8-bit map into its own type, not kinds", fw(38) * 10 + fw(42));
  } else if (kind == 1) {
    if (fw(38) < 0 || fw(38) > 1 || fw(39) < 0 || fw(39) > 1) fail("operands must be int8 or uint8 (kinds 0, 1), not kinds", fw(38) * 10 + fw(39));
    if (fw(40) < 0 || fw(40) > 4) fail("unknown bias element kind", fw(40));
  } else if (kind == 3 || kind == 4) {
    if (!segment) fail("an element-wise operation outside a segment, kind", kind);
    if (fw(38) < 0 || fw(38) > 4) fail("unknown input element kind", fw(38));
    // The requantized Add of two maps: the second map's kind in the bias flag's word, the scales' in the filter's
    // and the bias's; it requantizes its sum.
    if (kind == 4 && (fw(37) < 0 || fw(37) > 4 || fw(39) < 0 || fw(39) > 4 || fw(40) < 0 || fw(40) > 4 || fw(43) == 0)) fail("bad operands of a two-map element-wise operation, kinds", fw(37) * 100 + fw(39) * 10 + fw(40));
  } else fail("unknown functional operation", kind);
  if (fw(42) < 0 || fw(42) > 4) fail("unknown output element kind", fw(42));
  if (kind != 2 && fw(43) != 0) {
    if (fw(43) < 1 || fw(43) > 32 || (fw(46) >> 1) > 4 || (fw(47) >> 1) > 4) fail("bad requantization parameters, shift + 1 =", fw(43));
  }
  if (kind == 1 && fw(43) != 0) {
    const outputs = <i64>dim(0) * dim(1) * dim(3) * dim(4);
    if (<i64>ACC_BASE + outputs > MAX_ACCUMULATORS) fail("requantized layers have more outputs than the model's accumulators (65536):", <i64>ACC_BASE + outputs);
    memory.fill(ACC + (<usize>ACC_BASE << 2), 0, <usize>outputs << 2);
  } else if (kind == 1) zeroOutput(y);
  // The blocks must lie inside the operation's dimensions (batch, output channels, input channels, rows, columns):
  // the arithmetic reads and writes the operands through them.
  for (let e = e0; e < e1; e++) {
    if (!inside(e, 4, dim(0)) || !inside(e, 6, dim(1)) || !inside(e, 8, dim(2)) || !inside(e, 10, dim(3)) || !inside(e, 12, dim(4))) fail("a block outside the operation, engine", e);
  }
}

/** Runs a layer's program (see the file comment); `functional` 0 skips the arithmetic. Returns the layer's cycles. */
export function tangram_run(program: usize, words: i32, x: usize, w: usize, b: usize, y: usize, mul: usize, add: usize, functional: i32): i64 {
  prog = program;
  if (words < HEADER || word(0) != MAGIC) fail("not an engine program (bad magic or size), words", words);
  engines = word(1);
  rows = word(2);
  cols = word(3);
  channels = word(4);
  channelBytes = <f64>word(5) / 65536.0;
  linkWords = <f64>word(6) / 65536.0;
  hopCycles = <f64>word(7);
  wordBytes = <f64>word(8);
  const messages = word(9);
  const commands = word(11);
  if (rows < 1 || cols < 1 || rows > MAX_SIDE || cols > MAX_SIDE || rows * cols > MAX_ENGINES) fail("the engine model holds at most 1024 engines, 64 a side; this grid has", <i64>rows * cols);
  if (engines < 1 || engines > rows * cols) fail("engines in the program out of the grid:", engines);
  if (channels < 1 || channels > MAX_CHANNELS) fail("DRAM channels out of range:", channels);
  const table = word(41);
  if (messages < 0 || table != HEADER + engines * ENGINE + commands * COMMAND) fail("bad message table, messages", messages);
  MESSAGES = prog + (<usize>table << 2);
  if (channelBytes <= 0 || linkWords <= 0) fail("a channel or link rate is not positive:", word(5));
  // A pipeline segment's program (functional kind 3) carries its layers' records after the message table.
  segment = word(10) == 3;
  segmentLayers = segment ? word(12) : 0;
  lastEngine = 0;
  if (segment && (segmentLayers < 1 || segmentLayers > MAX_LAYERS || word(13) != table + 2 * messages)) fail("bad segment layer table, layers", segmentLayers);
  if (words != HEADER + engines * ENGINE + commands * COMMAND + 2 * messages + segmentLayers * LAYER) fail("program size does not match its header, words", words);
  for (let e = 0; e < engines; e++) {
    setF64(CLOCK, e, 0);
    setF64(LOADS, e, 0);
    store<i32>(PC + (<usize>e << 2), 0);
    const r = engineWord(e, 0);
    const c = engineWord(e, 1);
    if (r < 0 || r >= rows || c < 0 || c >= cols) fail("engine outside the grid, engine", e);
    if (engineWord(e, 2) < HEADER + engines * ENGINE || engineWord(e, 3) < 0 || engineWord(e, 2) + engineWord(e, 3) * COMMAND > HEADER + engines * ENGINE + commands * COMMAND) fail("commands outside the program, engine", e);
  }
  for (let i = 0; i < rows * cols * 4; i++) setF64(LINKS, i, 0);
  for (let i = 0; i < rows * 4; i++) setF64(PORTS, i, 0);
  for (let i = 0; i < channels; i++) setF64(CHANNELS, i, 0);
  for (let i = 0; i < messages; i++) setF64(MESSAGES, i, -1);
  dramWords = 0;
  wordHops = 0;
  computeCycles = 0;
  linkWait = 0;
  const doMath = functional != 0 && word(10) != 0;
  FB = 0;
  ACC_BASE = 0;
  if (segment) {
    ARGS = doMath ? x : 0;
    for (let l = 0; l < segmentLayers; l++) {
      useLayer(l);
      const first = fw(11), count = fw(41);
      if (first < 0 || count < 1 || first + count > engines) fail("a segment layer's engines out of the program, layer", l);
      if (l > 0 && first != lastEngine) fail("a segment layer's engines do not follow the previous layer's, layer", l);
      lastEngine = first + count;
      if (fw(51) < 0) fail("a segment layer's accumulators out of the table, layer", l);
      if (doMath) prepare(first, first + count, fw(10), Y);
    }
    if (lastEngine != engines) fail("engines of no segment layer from engine", lastEngine);
  } else if (doMath) {
    prepare(0, engines, word(10), y);
  }

  while (true) {
    let best = -1;
    let bestClock: f64 = Infinity;
    let pending = 0;
    for (let e = 0; e < engines; e++) {
      const pc = load<i32>(PC + (<usize>e << 2));
      if (pc >= engineWord(e, 3)) continue;
      pending++;
      const at = engineWord(e, 2) + pc * COMMAND;
      if (word(at) == OP_RECV && f64At(MESSAGES, checkMessage(word(at + 3))) < 0) continue;
      const t = f64At(CLOCK, e);
      if (t < bestClock) { bestClock = t; best = e; }
    }
    if (pending == 0) break;
    if (best < 0) fail("every remaining engine waits for a message never sent (deadlock); engines waiting:", pending);
    step(best, doMath, x, w, b, y);
  }
  if (doMath && !segment && word(10) == 1 && word(43) != 0) requantize(y, mul, add, 0, dim(0), 0, dim(1), 0, dim(3), 0, dim(4), 0, dim(0) * dim(3));
  let end: f64 = 0;
  for (let e = 0; e < engines; e++) end = max(end, max(f64At(CLOCK, e), f64At(LOADS, e)));
  lastCycles = end;
  const cyclesTaken = <i64>Math.ceil(end);
  waitUntil(0, clockQ(0) + (cyclesTaken << Q));
  return cyclesTaken;
}

/** The engine's range [from, to) at record word i lies in [0, limit]. */
function inside(e: i32, i: i32, limit: i32): bool {
  const from = engineWord(e, i);
  const to = engineWord(e, i + 1);
  return from >= 0 && from <= to && to <= limit;
}

function checkMessage(id: i32): i32 {
  if (id < 0 || id >= word(9)) fail("message id out of range:", id);
  return id;
}

function step(e: i32, doMath: bool, x: usize, w: usize, b: usize, y: usize): void {
  const pcAt = PC + (<usize>e << 2);
  const pc = load<i32>(pcAt);
  store<i32>(pcAt, pc + 1);
  const at = engineWord(e, 2) + pc * COMMAND;
  const op = word(at);
  const a1 = word(at + 1);
  const a2 = word(at + 2);
  const a3 = word(at + 3);
  if (a2 < 0 || ((op == OP_COMPUTE || op == OP_STEP || op == OP_FINISH) && a1 < 0)) fail("a negative word count or cycle count, engine", e);
  const r = engineWord(e, 0);
  const c = engineWord(e, 1);
  const now = f64At(CLOCK, e);
  if (op == OP_LOAD || op == OP_STORE) {
    if (a1 < 0 || a1 >= channels) fail("DRAM channel out of range:", a1);
    const east = channelEast(a1);
    routeEdge(r, c, east, op == OP_LOAD);
    const hops = <f64>routeLen;
    const xfer = <f64>a2 / linkWords;
    const dur = <f64>a2 * wordBytes / channelBytes;
    dramWords += a2;
    wordHops += <i64>a2 * routeLen;
    if (op == OP_LOAD) {
      const chStart = max(now, f64At(CHANNELS, a1));
      setF64(CHANNELS, a1, chStart + dur);
      const free = routeFree();
      const t0 = max(chStart, free);
      linkWait += t0 - chStart;
      routeHold(t0 + xfer);
      const done = max(t0 + xfer, chStart + dur) + hops * hopCycles;
      setF64(LOADS, e, max(f64At(LOADS, e), done));
    } else {
      const free = routeFree();
      const t0 = max(now, free);
      linkWait += t0 - now;
      routeHold(t0 + xfer);
      const atPort = t0 + hops * hopCycles;
      const chStart = max(atPort, f64At(CHANNELS, a1));
      setF64(CHANNELS, a1, chStart + dur);
      setF64(CLOCK, e, max(chStart + dur, t0 + xfer + hops * hopCycles));
    }
  } else if (op == OP_WAIT_LOADS) {
    setF64(CLOCK, e, max(now, f64At(LOADS, e)));
  } else if (op == OP_COMPUTE) {
    setF64(CLOCK, e, now + <f64>a1);
    computeCycles += a1;
    if (doMath && a2 != 0) {
      if (segment) fail("a whole-block compute in a segment, engine", e);
      if (word(10) == 2) poolBlock(e, x, y, 0, dim(0) * dim(3));
      else computeBlock(e, x, w, b, y, 0, dim(0) * dim(3));
    }
  } else if (op == OP_STEP || op == OP_FINISH) {
    // A pipeline step's rows [a2, a3) of the engine's block (segment-programs.ts).
    setF64(CLOCK, e, now + <f64>a1);
    computeCycles += a1;
    if (doMath) {
      if (!segment) fail("a pipeline step outside a segment, engine", e);
      useLayer(layerOf(e));
      if (a3 < a2 || a3 > (engineWord(e, 5) - engineWord(e, 4)) * (engineWord(e, 11) - engineWord(e, 10))) fail("a step's rows out of the engine's block, engine", e);
      const kind = fw(10);
      if (op == OP_FINISH) {
        if (kind != 1 || fw(43) == 0) fail("an epilogue of a layer without one, engine", e);
        requantize(Y, MUL, ADD, engineWord(e, 4), engineWord(e, 5), engineWord(e, 6), engineWord(e, 7), engineWord(e, 10), engineWord(e, 11), engineWord(e, 12), engineWord(e, 13), a2, a3);
      } else if (kind == 1) computeBlock(e, X, W, B, Y, a2, a3);
      else if (kind == 2) poolBlock(e, X, Y, a2, a3);
      else eltBlock(e, X, Y, MUL, ADD, a2, a3);
    }
  } else if (op == OP_SEND) {
    if (a1 < 0 || a1 >= engines) fail("send to an engine not in the program:", a1);
    routeXY(r, c, engineWord(a1, 0), engineWord(a1, 1));
    const xfer = <f64>a2 / linkWords;
    const free = routeFree();
    const t0 = max(now, free);
    linkWait += t0 - now;
    routeHold(t0 + xfer);
    wordHops += <i64>a2 * routeLen;
    setF64(MESSAGES, checkMessage(a3), t0 + xfer + <f64>routeLen * hopCycles);
  } else if (op == OP_RECV) {
    setF64(CLOCK, e, max(now, f64At(MESSAGES, checkMessage(a3))));
  } else {
    fail("unknown command", op);
  }
}

// --- the arithmetic (functional mode) ---
//
// The operation's words are read at the header's offsets from FB: 0 for a single layer's program, a layer record of
// a pipeline segment otherwise (segment-programs.ts: record word i is header word i + 10). A segment layer's
// accumulators start at ACC_BASE.

let FB: i32 = 0;
let ACC_BASE: i32 = 0;

// @ts-ignore: decorator
@inline function fw(i: i32): i32 {
  return word(FB + i);
}

function dim(i: i32): i32 {
  return fw(12 + i);
}

function zeroOutput(y: usize): void {
  const n = dim(0), k = dim(1), ho = dim(3), wo = dim(4);
  const sn = fw(33), sk = fw(34), sh = fw(35), sw = fw(36);
  const yKind = fw(42);
  for (let a = 0; a < n; a++) for (let q = 0; q < k; q++) for (let i = 0; i < ho; i++) for (let j = 0; j < wo; j++) {
    setZero(y, a * sn + q * sk + i * sh + j * sw, yKind);
  }
}

/** Element i of an array of kind 0 int8, 1 uint8, 2 int16, 3 int32, 4 uint16 (programs.ts ELEMENT_KINDS), as int32. */
// @ts-ignore: decorator
@inline function element(base: usize, i: i32, kind: i32): i32 {
  if (kind == 0) return <i32>load<i8>(base + <usize>i);
  if (kind == 1) return <i32>load<u8>(base + <usize>i);
  if (kind == 2) return <i32>load<i16>(base + (<usize>i << 1));
  if (kind == 4) return <i32>load<u16>(base + (<usize>i << 1));
  return load<i32>(base + (<usize>i << 2));
}

/**
 * Adds `v` into element i of y, of kind `kind`, wrapping at its width: partial sums of several engines add modulo
 * 2^width, and the final sum, which the type holds (the generator gave y that type from its value range), is exact.
 */
function addInto(base: usize, i: i32, kind: i32, v: i32): void {
  if (kind == 0 || kind == 1) store<u8>(base + <usize>i, <u8>(<i32>load<u8>(base + <usize>i) + v));
  else if (kind == 2 || kind == 4) store<u16>(base + (<usize>i << 1), <u16>(<i32>load<u16>(base + (<usize>i << 1)) + v));
  else store<i32>(base + (<usize>i << 2), load<i32>(base + (<usize>i << 2)) + v);
}

function setZero(base: usize, i: i32, kind: i32): void {
  if (kind == 0 || kind == 1) store<u8>(base + <usize>i, 0);
  else if (kind == 2 || kind == 4) store<u16>(base + (<usize>i << 1), 0);
  else store<i32>(base + (<usize>i << 2), 0);
}

/**
 * Row oh of sample n lies in the rows [f0, f1) of the block from sample n0, row h0, hb rows a sample (counted in the
 * block, sample by sample: a pipeline step's, segment-programs.ts; a single layer's program: all its rows).
 */
// @ts-ignore: decorator
@inline function inBand(n: i32, oh: i32, n0: i32, h0: i32, hb: i32, f0: i32, f1: i32): bool {
  const f = (n - n0) * hb + (oh - h0);
  return f >= f0 && f < f1;
}

/**
 * y[n,k,oh,ow] += (c0 == 0 ? bias[k] : 0) + sum over the engine's input channels and the window of x * w, for the
 * block's rows in [f0, f1).
 */
function computeBlock(e: i32, x: usize, w: usize, b: usize, y: usize, f0: i32, f1: i32): void {
  const R = dim(5), S = dim(6), strideH = dim(7), strideW = dim(8), padT = dim(9), padL = dim(10), H = dim(11), W = dim(12);
  const xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28);
  const wk = fw(29), wc = fw(30), wr = fw(31), ws = fw(32);
  const yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const bias = fw(37) != 0;
  const xKind = fw(38), wKind = fw(39), bKind = fw(40), yKind = fw(42);
  const requant = fw(43) != 0;
  const K = dim(1), HO = dim(3), WO = dim(4);
  const n0 = engineWord(e, 4), n1 = engineWord(e, 5);
  const k0 = engineWord(e, 6), k1 = engineWord(e, 7);
  const c0 = engineWord(e, 8), c1 = engineWord(e, 9);
  const h0 = engineWord(e, 10), h1 = engineWord(e, 11);
  const w0 = engineWord(e, 12), w1 = engineWord(e, 13);
  for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) for (let oh = h0; oh < h1; oh++) {
    if (!inBand(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
    for (let ow = w0; ow < w1; ow++) {
      let acc: i32 = bias && c0 == 0 ? element(b, k, bKind) : 0;
      for (let c = c0; c < c1; c++) for (let r = 0; r < R; r++) {
        const ih = oh * strideH - padT + r;
        if (ih < 0 || ih >= H) continue;
        for (let s = 0; s < S; s++) {
          const iw = ow * strideW - padL + s;
          if (iw < 0 || iw >= W) continue;
          const xv = element(x, n * xn + c * xc + ih * xh + iw * xw, xKind);
          const wv = element(w, k * wk + c * wc + r * wr + s * ws, wKind);
          acc += xv * wv;
        }
      }
      if (requant) {
        const at = ACC + (<usize>(ACC_BASE + ((n * K + k) * HO + oh) * WO + ow) << 2);
        store<i32>(at, load<i32>(at) + acc);
      } else addInto(y, n * yn + k * yk + oh * yh + ow * yw, yKind, acc);
    }
  }
}

/** v requantized (SEMANTICS.md RequantShift: clip((v*mul + add + 2^(s-1)) >> s), in 64 bits), channel q's parameters. */
function requantOne(v: i64, q: i32, mul: usize, add: usize): i64 {
  const shift = fw(43) - 1;
  const m = <i64>element(mul, (fw(46) & 1) != 0 ? q : 0, fw(46) >> 1);
  const d = <i64>element(add, (fw(47) & 1) != 0 ? q : 0, fw(47) >> 1);
  const round: i64 = shift > 0 ? (<i64>1 << (shift - 1)) : 0;
  const r = (v * m + d + round) >> shift;
  const lo = <i64>fw(44), hi = <i64>fw(45);
  return r < lo ? lo : r > hi ? hi : r;
}

/**
 * The requantization of the whole sums of samples [n0, n1), channels [k0, k1), rows [h0, h1) in the folded rows
 * [f0, f1), columns [w0, w1) into y (an int32 sum times an int32 multiplier cannot overflow 64 bits), mul and add
 * scalar or per channel.
 */
function requantize(y: usize, mul: usize, add: usize, n0: i32, n1: i32, k0: i32, k1: i32, h0: i32, h1: i32, w0: i32, w1: i32, f0: i32, f1: i32): void {
  const k = dim(1), ho = dim(3), wo = dim(4);
  const sn = fw(33), sk = fw(34), sh = fw(35), sw = fw(36);
  const yKind = fw(42);
  for (let a = n0; a < n1; a++) for (let q = k0; q < k1; q++) for (let i = h0; i < h1; i++) {
    if (!inBand(a, i, n0, h0, h1 - h0, f0, f1)) continue;
    for (let j = w0; j < w1; j++) {
      const acc = <i64>load<i32>(ACC + (<usize>(ACC_BASE + ((a * k + q) * ho + i) * wo + j) << 2));
      const at = a * sn + q * sk + i * sh + j * sw;
      setZero(y, at, yKind);
      addInto(y, at, yKind, <i32>requantOne(acc, q, mul, add));
    }
  }
}

/** y[n,c,oh,ow] = the maximum of the window over x (elements in the padding never win; every window holds one). */
function poolBlock(e: i32, x: usize, y: usize, f0: i32, f1: i32): void {
  const R = dim(5), S = dim(6), strideH = dim(7), strideW = dim(8), padT = dim(9), padL = dim(10), H = dim(11), W = dim(12);
  const xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28);
  const yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const kind = fw(38);
  const n0 = engineWord(e, 4), n1 = engineWord(e, 5);
  const k0 = engineWord(e, 6), k1 = engineWord(e, 7);
  const h0 = engineWord(e, 10), h1 = engineWord(e, 11);
  const w0 = engineWord(e, 12), w1 = engineWord(e, 13);
  for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) for (let oh = h0; oh < h1; oh++) {
    if (!inBand(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
    for (let ow = w0; ow < w1; ow++) {
      let m: i32 = kind == 0 ? -128 : 0;
      for (let r = 0; r < R; r++) {
        const ih = oh * strideH - padT + r;
        if (ih < 0 || ih >= H) continue;
        for (let s = 0; s < S; s++) {
          const iw = ow * strideW - padL + s;
          if (iw < 0 || iw >= W) continue;
          m = max(m, element(x, n * xn + k * xc + ih * xh + iw * xw, kind));
        }
      }
      store<u8>(y + <usize>(n * yn + k * yk + oh * yh + ow * yw), <u8>m);
    }
  }
}

/**
 * An element-wise layer of a segment on the block's rows in [f0, f1): y = clip(requant(x)) per element (the
 * requantization and the clip each optional: a RequantShift, a ReLU or a Clip), or (kind 4, the requantized Add)
 * y = requant(x * sx + x2 * sx2) with the scalar scales sx at w and sx2 at b.
 */
function eltBlock(e: i32, x: usize, y: usize, mul: usize, add: usize, f0: i32, f1: i32): void {
  const two = fw(10) == 4;
  const sx: i64 = two ? <i64>element(W, 0, fw(39)) : 1;
  const sx2: i64 = two ? <i64>element(B, 0, fw(40)) : 0;
  const x2Kind = fw(37);
  const xn = fw(25), xc = fw(26), xh = fw(27), xw = fw(28);
  const yn = fw(33), yk = fw(34), yh = fw(35), yw = fw(36);
  const xKind = fw(38), yKind = fw(42);
  const requant = fw(43) != 0;
  const clip = fw(48) != 0;
  const lo = <i64>fw(49), hi = <i64>fw(50);
  const n0 = engineWord(e, 4), n1 = engineWord(e, 5);
  const k0 = engineWord(e, 6), k1 = engineWord(e, 7);
  const h0 = engineWord(e, 10), h1 = engineWord(e, 11);
  const w0 = engineWord(e, 12), w1 = engineWord(e, 13);
  for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) for (let oh = h0; oh < h1; oh++) {
    if (!inBand(n, oh, n0, h0, h1 - h0, f0, f1)) continue;
    for (let ow = w0; ow < w1; ow++) {
      const at = n * xn + k * xc + oh * xh + ow * xw;
      let v = <i64>element(x, at, xKind);
      if (two) v = v * sx + <i64>element(X2, at, x2Kind) * sx2;
      if (requant) v = requantOne(v, k, mul, add);
      if (clip) v = v < lo ? lo : v > hi ? hi : v;
      const to = n * yn + k * yk + oh * yh + ow * yw;
      setZero(y, to, yKind);
      addInto(y, to, yKind, <i32>v);
    }
  }
}

export function tangram_last_cycles(): f64 {
  return lastCycles;
}
export function tangram_dram_words(): i64 {
  return dramWords;
}
export function tangram_word_hops(): i64 {
  return wordHops;
}
export function tangram_compute_cycles(): i64 {
  return computeCycles;
}
export function tangram_link_wait(): f64 {
  return linkWait;
}
