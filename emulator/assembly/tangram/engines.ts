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
// over channels of one output, so no partial results). Timing-only mode skips the
// arithmetic and the zeroing; schedule and counters are the same.

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
  if (words != HEADER + engines * ENGINE + commands * COMMAND + 2 * messages) fail("program size does not match its header, words", words);
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
  if (doMath && word(10) == 2) {
    if (word(38) < 0 || word(38) > 1 || word(42) != word(38)) fail("pooling takes an 8-bit map into its own type, not kinds", word(38) * 10 + word(42));
  } else if (doMath) {
    if (word(10) != 1) fail("unknown functional operation", word(10));
    if (word(38) < 0 || word(38) > 1 || word(39) < 0 || word(39) > 1) fail("operands must be int8 or uint8 (kinds 0, 1), not kinds", word(38) * 10 + word(39));
    if (word(40) < 0 || word(40) > 4) fail("unknown bias element kind", word(40));
    if (word(42) < 0 || word(42) > 4) fail("unknown output element kind", word(42));
    if (word(43) != 0) {
      const outputs = <i64>word(12) * word(13) * word(15) * word(16);
      if (outputs > MAX_ACCUMULATORS) fail("a requantized layer has more outputs than the model's accumulators (65536):", outputs);
      if (word(43) < 1 || word(43) > 32 || (word(46) >> 1) > 4 || (word(47) >> 1) > 4) fail("bad requantization parameters, shift + 1 =", word(43));
      memory.fill(ACC, 0, <usize>outputs << 2);
    } else zeroOutput(y);
  }
  // The blocks must lie inside the operation's dimensions (batch, output channels, input channels, rows, columns):
  // the arithmetic reads and writes the operands through them.
  if (doMath) {
    for (let e = 0; e < engines; e++) {
      if (!inside(e, 4, word(12)) || !inside(e, 6, word(13)) || !inside(e, 8, word(14)) || !inside(e, 10, word(15)) || !inside(e, 12, word(16))) fail("a block outside the operation, engine", e);
    }
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
  if (doMath && word(10) == 1 && word(43) != 0) requantize(y, mul, add);
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
  if (a2 < 0 || (op == OP_COMPUTE && a1 < 0)) fail("a negative word count or cycle count, engine", e);
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
      if (word(10) == 2) poolBlock(e, x, y);
      else computeBlock(e, x, w, b, y);
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

function dim(i: i32): i32 {
  return word(12 + i);
}

function zeroOutput(y: usize): void {
  const n = dim(0), k = dim(1), ho = dim(3), wo = dim(4);
  const sn = word(33), sk = word(34), sh = word(35), sw = word(36);
  const yKind = word(42);
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

/** y[n,k,oh,ow] += (c0 == 0 ? bias[k] : 0) + sum over the engine's input channels and the window of x * w. */
function computeBlock(e: i32, x: usize, w: usize, b: usize, y: usize): void {
  const R = dim(5), S = dim(6), strideH = dim(7), strideW = dim(8), padT = dim(9), padL = dim(10), H = dim(11), W = dim(12);
  const xn = word(25), xc = word(26), xh = word(27), xw = word(28);
  const wk = word(29), wc = word(30), wr = word(31), ws = word(32);
  const yn = word(33), yk = word(34), yh = word(35), yw = word(36);
  const bias = word(37) != 0;
  const xKind = word(38), wKind = word(39), bKind = word(40), yKind = word(42);
  const requant = word(43) != 0;
  const K = dim(1), HO = dim(3), WO = dim(4);
  const n0 = engineWord(e, 4), n1 = engineWord(e, 5);
  const k0 = engineWord(e, 6), k1 = engineWord(e, 7);
  const c0 = engineWord(e, 8), c1 = engineWord(e, 9);
  const h0 = engineWord(e, 10), h1 = engineWord(e, 11);
  const w0 = engineWord(e, 12), w1 = engineWord(e, 13);
  for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) for (let oh = h0; oh < h1; oh++) for (let ow = w0; ow < w1; ow++) {
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
      const at = ACC + (<usize>(((n * K + k) * HO + oh) * WO + ow) << 2);
      store<i32>(at, load<i32>(at) + acc);
    } else addInto(y, n * yn + k * yk + oh * yh + ow * yw, yKind, acc);
  }
}

/**
 * The requantization of every whole sum into y (SEMANTICS.md RequantShift: clip((acc*mul + add + 2^(s-1)) >> s),
 * in 64 bits: an int32 sum times an int32 multiplier cannot overflow them), mul and add scalar or per channel.
 */
function requantize(y: usize, mul: usize, add: usize): void {
  const n = dim(0), k = dim(1), ho = dim(3), wo = dim(4);
  const sn = word(33), sk = word(34), sh = word(35), sw = word(36);
  const yKind = word(42);
  const shift = word(43) - 1;
  const lo = <i64>word(44), hi = <i64>word(45);
  const mulPer = (word(46) & 1) != 0, mulKind = word(46) >> 1;
  const addPer = (word(47) & 1) != 0, addKind = word(47) >> 1;
  const round: i64 = shift > 0 ? (<i64>1 << (shift - 1)) : 0;
  for (let a = 0; a < n; a++) for (let q = 0; q < k; q++) {
    const m = <i64>element(mul, mulPer ? q : 0, mulKind);
    const d = <i64>element(add, addPer ? q : 0, addKind);
    for (let i = 0; i < ho; i++) for (let j = 0; j < wo; j++) {
      const acc = <i64>load<i32>(ACC + (<usize>(((a * k + q) * ho + i) * wo + j) << 2));
      let v = (acc * m + d + round) >> shift;
      v = v < lo ? lo : v > hi ? hi : v;
      const at = a * sn + q * sk + i * sh + j * sw;
      setZero(y, at, yKind);
      addInto(y, at, yKind, <i32>v);
    }
  }
}

/** y[n,c,oh,ow] = the maximum of the window over x (elements in the padding never win; every window holds one). */
function poolBlock(e: i32, x: usize, y: usize): void {
  const R = dim(5), S = dim(6), strideH = dim(7), strideW = dim(8), padT = dim(9), padL = dim(10), H = dim(11), W = dim(12);
  const xn = word(25), xc = word(26), xh = word(27), xw = word(28);
  const yn = word(33), yk = word(34), yh = word(35), yw = word(36);
  const kind = word(38);
  const n0 = engineWord(e, 4), n1 = engineWord(e, 5);
  const k0 = engineWord(e, 6), k1 = engineWord(e, 7);
  const h0 = engineWord(e, 10), h1 = engineWord(e, 11);
  const w0 = engineWord(e, 12), w1 = engineWord(e, 13);
  for (let n = n0; n < n1; n++) for (let k = k0; k < k1; k++) for (let oh = h0; oh < h1; oh++) for (let ow = w0; ow < w1; ow++) {
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
