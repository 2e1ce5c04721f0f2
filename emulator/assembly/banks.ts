// L1 bank conflicts between the cluster cores, and the cost of cores reading L2 directly (docs/timing.md, "L1 bank
// conflicts" and "L2 from the cluster"). A kernel declares, per core and per phase of a fork, the access streams of
// its inner loop (mem_stream in agents.ts): each stream is one access per loop iteration at base + i x step, and
// the loop takes `period` cycles per iteration. The emulator runs a fork's cores one after another, so the streams
// are only known all together when the phase ends: at the barrier or join, simulate() replays the cores in
// lockstep from the phase start against the word-interleaved banks, one grant per bank per cycle, and returns each
// core's stall cycles, which agents.ts adds to its clock.
// Imports nothing from agents.ts (agents.ts imports this on barrier/join; asc rejects initialisation cycles).

import { MAX_CORES } from "./limits";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { region_linear_base, region_size } from "./regions";

/** Streams one core's inner loop may declare (pulp-nn's 4x2 conv loop reads 2 activation and 4 weight words). */
export const MAX_STREAMS: i32 = 6;
const BASE = memory.data(MAX_CORES * MAX_STREAMS * 4);
const STEP = memory.data(MAX_CORES * MAX_STREAMS * 4);
const NSTREAMS = memory.data(MAX_CORES * 4);
const COUNT = memory.data(MAX_CORES * 4);
const PERIOD = memory.data(MAX_CORES * 4);
/** Whether the core's current declaration (since its last index 0) is the loop kept. */
const ACCEPT = memory.data(MAX_CORES * 4);
// Simulation state per core: iteration, slot within it, stalls so far, stalls at the window's half.
const ITER = memory.data(MAX_CORES * 4);
const SLOT = memory.data(MAX_CORES * 4);
const STALL = memory.data(MAX_CORES * 4);
const HALF = memory.data(MAX_CORES * 4);
const LIMIT = memory.data(MAX_CORES * 4);
/** Q16 stall cycles of each core from the last simulate(). */
const RESULT = memory.data(MAX_CORES * 8);
/** Round-robin pointer per bank: the core that has priority next (MAX_BANKS entries). */
const MAX_BANKS: i32 = 64;
const RR = memory.data(MAX_BANKS * 4);
const REQ = memory.data(MAX_BANKS * 4);

let enabled = false;
let l1Region: i32 = -1;
let l2Region: i32 = -1;
let bankMask: u32 = 0;
let wordShift: u32 = 2;
let window: i32 = 64;
/** Cycles between the loop starts of consecutive cores in the replay (core c starts at c x startSkew). */
let startSkew: i32 = 0;
/** Extra cycles per access to L2 over the 1 cycle the cost tables charge for every access. */
let l2ExtraCycles: i64 = 0;
/** Cores that declared streams in the current phase (bit per core); 0: nothing to simulate. */
let declared: u64 = 0;
/** Totals over the run, Q16 cycles: L1 bank stalls and L2 latency charged. */
let l1StallTotal: i64 = 0;
let l2StallTotal: i64 = 0;

/**
 * The chip's model (chips/siracusa-memory.ts): `banks` word-interleaved banks of 2^`wordLog2` bytes in region `l1`;
 * each access to region `l2` (-1: none) costs `l2Extra` cycles more than an L1 access; `windowIters` iterations are
 * simulated exactly before the steady state is extrapolated; core c's loop starts `skew` x c cycles into the phase.
 */
export function enableBanks(l1: i32, banks: i32, wordLog2: i32, l2: i32, l2Extra: i64, windowIters: i32, skew: i32 = 0): void {
  assert(banks > 0 && banks <= MAX_BANKS && (banks & (banks - 1)) == 0 && windowIters >= 2);
  enabled = true;
  l1Region = l1;
  l2Region = l2;
  bankMask = <u32>(banks - 1);
  wordShift = <u32>wordLog2;
  l2ExtraCycles = l2Extra;
  window = windowIters;
  setStartSkew(skew);
}

/**
 * The replay's start skew (docs/timing.md "L1 bank conflicts"): the chip's value at configure, another one for the
 * cost fit's sweep (scripts/cost-fit/skew.ts). Forgets the cached replays, which were made with the old one.
 */
export function setStartSkew(cycles: i32): void {
  assert(cycles >= 0);
  startSkew = cycles;
  memory.fill(CACHE_LEN, 0, ENTRIES * 4);
}

export function resetBanks(): void {
  enabled = false;
  declared = 0;
  l1StallTotal = 0;
  l2StallTotal = 0;
  memory.fill(NSTREAMS, 0, MAX_CORES * 4);
  memory.fill(ACCEPT, 0, MAX_CORES * 4);
  memory.fill(CACHE_LEN, 0, ENTRIES * 4);
}

function streamFault(why: string, value: i32): void {
  msgBegin("mem_stream: ");
  msgText(why);
  msgDec(value);
  raise();
}

/**
 * Stream `index` of a loop of core `core` (0-based): `count` iterations of `period` cycles, each making one access at
 * `addr + i x step`. Index 0 starts a loop; its further streams follow with indices 1, 2, ... and the same count and
 * period. A core keeps one loop per phase for the bank simulation, the longest (count x period; the first on a tie):
 * kernels declare the inner loop that dominates their time, and a kernel made of several nests declares each.
 * Returns the Q16 cycles to charge at once (L2 latency: every declared access to L2, whichever loop), else 0.
 */
export function addStream(core: i32, addr: usize, step: i32, count: i32, period: i32, index: i32): i64 {
  if (!enabled || count <= 0 || core >= 32) return 0;
  if (period <= 0) streamFault("period must be at least 1 cycle, got ", period);
  if (index < 0 || index >= MAX_STREAMS) streamFault("stream index out of range 0..5: ", index);
  if (index >= period) streamFault("more accesses per iteration than cycles: period ", period);
  const q = l2Latency(addr, count);
  const b1 = region_linear_base(l1Region);
  const off = <usize>core << 2;
  if (index == 0) {
    const n = load<i32>(NSTREAMS + off);
    const longer = n == 0 || <i64>count * <i64>period > <i64>load<i32>(COUNT + off) * <i64>load<i32>(PERIOD + off);
    store<i32>(ACCEPT + off, longer ? 1 : 0);
    if (longer) {
      store<i32>(NSTREAMS + off, 0);
      store<i32>(COUNT + off, count);
      store<i32>(PERIOD + off, period);
    }
  } else if (load<i32>(COUNT + off) != count || load<i32>(PERIOD + off) != period) {
    if (load<i32>(ACCEPT + off) != 0) streamFault("a stream differs from its loop's stream 0 in count or period; index ", index);
  }
  if (load<i32>(ACCEPT + off) == 0) return q;
  // Streams outside L1 (L2 above, or memories the cores do not load from in loops) take no bank slot.
  if (addr < b1 || addr - b1 >= <usize>region_size(l1Region)) return q;
  const n = load<i32>(NSTREAMS + off);
  const s = (<usize>(core * MAX_STREAMS + n)) << 2;
  store<u32>(BASE + s, <u32>(addr - b1));
  store<i32>(STEP + s, step);
  store<i32>(NSTREAMS + off, n + 1);
  declared |= (<u64>1) << <u64>core;
  return 0;
}

/**
 * `count` accesses whose addresses follow the data (a table read by codes): in L2 each waits for L2's latency, as a
 * stream's do (no data cache between the cluster cores and L2); elsewhere nothing, not even a bank slot, since the bank
 * replay needs the addresses. Returns the Q16 cycles to charge at once.
 */
export function addLatency(addr: usize, count: i32): i64 {
  if (!enabled || count <= 0) return 0;
  return l2Latency(addr, count);
}

/** Q16 stall cycles of `count` accesses at `addr`'s memory: L2's extra latency each if it is L2, else 0; counted. */
function l2Latency(addr: usize, count: i32): i64 {
  if (l2Region < 0) return 0;
  const b2 = region_linear_base(l2Region);
  // Every access in L2 waits for L2: there is no data cache between the cluster cores and L2.
  if (addr < b2 || addr - b2 >= <usize>region_size(l2Region)) return 0;
  const q = (<i64>count * l2ExtraCycles) << 16;
  l2StallTotal += q;
  return q;
}

/** Whether any core of the phase declared L1 streams (agents.ts skips simulate() when none did). */
export function anyStreams(): bool {
  return declared != 0;
}

/** Q16 stall cycles of core `core` from the last simulate(). */
export function stallOf(core: i32): i64 {
  return load<i64>(RESULT + (<usize>core << 3));
}

/**
 * The phase of `team` cores ends: replays their declared loops together and leaves each core's stalls in RESULT
 * (stallOf); clears the declarations.
 *
 * Core c starts its loop c x startSkew cycles into the phase (0: all in lockstep). An iteration is `period` cycles:
 * its streams' accesses in slots 0, 1, ... (one per cycle, in declaration order), then compute. In each cycle every core at an access slot
 * requests the bank of its address; each bank grants one request, round robin from the core after the one it
 * granted last; a core not granted stalls a cycle and requests again, its later slots waiting. The first `window`
 * iterations of each core are simulated exactly; a longer loop adds, per further iteration, the mean stalls of the
 * window's second half (the steady state, after the start-up skew has settled).
 */
export function simulate(team: i32): void {
  assert(team <= 32); // one request bit per core
  memory.fill(RESULT, 0, <usize>team << 3);
  if (declared == 0) return;
  let running: i32 = 0;
  for (let c = 0; c < team; c++) {
    const off = <usize>c << 2;
    const n = load<i32>(NSTREAMS + off);
    store<i32>(ITER + off, 0);
    store<i32>(SLOT + off, 0);
    store<i32>(STALL + off, 0);
    store<i32>(HALF + off, 0);
    const lim = n == 0 ? 0 : min(load<i32>(COUNT + off), window);
    store<i32>(LIMIT + off, lim);
    if (lim > 0) running++;
  }
  const half = window >> 1;
  if (!cached(team)) {
    replay(team, running, half);
    remember(team);
  }
  for (let c = 0; c < team; c++) {
    const off = <usize>c << 2;
    if (load<i32>(LIMIT + off) == 0) continue;
    const count = <i64>load<i32>(COUNT + off);
    const st = <i64>load<i32>(STALL + off);
    let q = st << 16;
    if (count > <i64>window) {
      // Steady state: stalls of iterations [half, window) per iteration, times the iterations not simulated.
      const steady = st - <i64>load<i32>(HALF + off);
      q += ((steady * (count - <i64>window)) << 16) / <i64>(window - half);
    }
    store<i64>(RESULT + (<usize>c << 3), q);
    l1StallTotal += q;
  }
  memory.fill(NSTREAMS, 0, <usize>team << 2);
  memory.fill(ACCEPT, 0, <usize>team << 2);
  declared = 0;
}

/** The replay itself (see simulate): leaves STALL and HALF per core. */
function replay(team: i32, running: i32, half: i32): void {
  memory.fill(RR, 0, MAX_BANKS * 4);
  let cycle: i32 = 0;
  while (running > 0) {
    cycle++;
    // Requests of this cycle, one bit per core per bank.
    memory.fill(REQ, 0, MAX_BANKS * 4);
    for (let c = 0; c < team; c++) {
      const off = <usize>c << 2;
      const it = load<i32>(ITER + off);
      if (it >= load<i32>(LIMIT + off)) continue;
      if (cycle <= c * startSkew) continue; // not started yet
      const slot = load<i32>(SLOT + off);
      if (slot >= load<i32>(NSTREAMS + off)) continue;
      const s = (<usize>(c * MAX_STREAMS + slot)) << 2;
      const a = load<u32>(BASE + s) + <u32>(it * load<i32>(STEP + s));
      const bank = <usize>((a >> wordShift) & bankMask) << 2;
      store<u32>(REQ + bank, load<u32>(REQ + bank) | (1 << <u32>c));
    }
    // Grants: per bank the first requesting core at or after its round-robin pointer.
    let granted: u32 = 0;
    for (let b: u32 = 0; b <= bankMask; b++) {
      const req = load<u32>(REQ + (<usize>b << 2));
      if (req == 0) continue;
      const from = load<u32>(RR + (<usize>b << 2));
      const high = req & ~((1 << from) - 1); // requesters at or after the pointer
      const w = high != 0 ? ctz(high) : ctz(req);
      granted |= 1 << w;
      store<u32>(RR + (<usize>b << 2), w + 1 >= <u32>team ? 0 : w + 1);
    }
    // Advance: a granted core (or one in a compute slot) moves to its next slot; the others stall.
    for (let c = 0; c < team; c++) {
      const off = <usize>c << 2;
      const it = load<i32>(ITER + off);
      const lim = load<i32>(LIMIT + off);
      if (it >= lim) continue;
      if (cycle <= c * startSkew) continue;
      const slot = load<i32>(SLOT + off);
      if (slot < load<i32>(NSTREAMS + off) && (granted & (1 << <u32>c)) == 0) {
        store<i32>(STALL + off, load<i32>(STALL + off) + 1);
        continue;
      }
      if (slot + 1 < load<i32>(PERIOD + off)) {
        store<i32>(SLOT + off, slot + 1);
        continue;
      }
      store<i32>(SLOT + off, 0);
      store<i32>(ITER + off, it + 1);
      if (it + 1 == half) store<i32>(HALF + off, load<i32>(STALL + off));
      if (it + 1 == lim) running--;
    }
  }
}

// Replays are cached by everything they depend on: per core its streams' bank-relevant bits (address and step
// modulo banks x word bytes: adding a multiple of 64 bytes never changes a bank), period, stream count and simulated
// iterations. A tiled layer repeats the same pattern tile after tile, so most phases are a lookup, not a replay.
const KEY_CORE: i32 = 4 + 2 * MAX_STREAMS;
const KEY_MAX: i32 = 1 + 32 * KEY_CORE;
const KEY = memory.data(KEY_MAX);
const ENTRIES: i32 = 64;
const CACHE_KEYS = memory.data(ENTRIES * KEY_MAX);
const CACHE_LEN = memory.data(ENTRIES * 4);
const CACHE_STALL = memory.data(ENTRIES * 32 * 4);
const CACHE_HALF = memory.data(ENTRIES * 32 * 4);
let keyLen: i32 = 0;
let keySlot: i32 = 0;

function buildKey(team: i32): void {
  const mask = (bankMask << wordShift) | ((1 << wordShift) - 1);
  let k = 0;
  store<u8>(KEY, <u8>team);
  k = 1;
  for (let c = 0; c < team; c++) {
    const off = <usize>c << 2;
    const n = load<i32>(NSTREAMS + off);
    store<u8>(KEY + <usize>k, <u8>n);
    store<u16>(KEY + <usize>k + 1, <u16>min(load<i32>(PERIOD + off), 0xffff));
    store<u8>(KEY + <usize>k + 3, <u8>load<i32>(LIMIT + off));
    for (let i = 0; i < n; i++) {
      const st = (<usize>(c * MAX_STREAMS + i)) << 2;
      store<u8>(KEY + <usize>(k + 4 + 2 * i), <u8>(load<u32>(BASE + st) & mask));
      store<u8>(KEY + <usize>(k + 5 + 2 * i), <u8>(<u32>load<i32>(STEP + st) & mask));
    }
    k += 4 + 2 * n;
  }
  keyLen = k;
  let h: u32 = 2166136261;
  for (let i = 0; i < k; i++) h = (h ^ <u32>load<u8>(KEY + <usize>i)) * 16777619;
  keySlot = <i32>(h & <u32>(ENTRIES - 1));
}

/** Whether the pattern was replayed before; if so STALL and HALF hold its result. */
function cached(team: i32): bool {
  if ((bankMask << wordShift) > 255) return false; // the key keeps 8 address bits
  buildKey(team);
  if (load<i32>(CACHE_LEN + (<usize>keySlot << 2)) != keyLen) return false;
  if (memory.compare(CACHE_KEYS + <usize>(keySlot * KEY_MAX), KEY, <usize>keyLen) != 0) return false;
  memory.copy(STALL, CACHE_STALL + <usize>(keySlot * 128), <usize>team << 2);
  memory.copy(HALF, CACHE_HALF + <usize>(keySlot * 128), <usize>team << 2);
  return true;
}

function remember(team: i32): void {
  if ((bankMask << wordShift) > 255) return;
  memory.copy(CACHE_KEYS + <usize>(keySlot * KEY_MAX), KEY, <usize>keyLen);
  store<i32>(CACHE_LEN + (<usize>keySlot << 2), keyLen);
  memory.copy(CACHE_STALL + <usize>(keySlot * 128), STALL, <usize>team << 2);
  memory.copy(CACHE_HALF + <usize>(keySlot * 128), HALF, <usize>team << 2);
}

// --- runtime exports ---

/** L1 bank-conflict stall cycles charged to all cores so far (whole cycles). */
export function l1_stall_cycles(): i64 {
  return l1StallTotal >> 16;
}

/** Cycles charged for cores' L2 accesses beyond the 1 cycle per access of the cost tables, so far. */
export function l2_stall_cycles(): i64 {
  return l2StallTotal >> 16;
}

/** Cycles of one core access to L2 (0: the chip has no such model). */
export function l2_access_cycles(): i32 {
  return enabled ? <i32>(l2ExtraCycles + 1) : 0;
}

/** L1 banks the conflict model arbitrates (0: none). */
export function l1_banks(): i32 {
  return enabled ? <i32>(bankMask + 1) : 0;
}
