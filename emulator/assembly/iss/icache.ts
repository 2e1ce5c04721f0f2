// The cluster's instruction cache on the RV32 core (`gen run --on iss` on Siracusa). Until it was modelled, every
// fetch was free, which made the measured cycles optimistic wherever a kernel's code does not fit the cache (a big
// unrolled kernel, a layer whose code evicts the last one's).
//
// Geometry and latencies: the PULP cluster's hierarchical cache as GVSoC configures it for Siracusa
// (gvsoc-pulp `pulp/chips/siracusa/cluster.json` "icache", `models/cache/hierarchical_cache.py`):
// - a private L0 per cluster core: 8 sets x 4 ways x 16-byte lines (512 bytes); a miss refills from the shared level
//   in L0_REFILL cycles;
// - a shared level of 2 banks interleaved by line, each 32 sets x 4 ways x 16-byte lines (4 KiB in all); a miss
//   refills from L2 in SH_REFILL cycles plus the request's trip through the cluster interconnect and back from L2;
// - one refill at a time per bank: a miss waits for the bank's refill in flight; a line being refilled serves every
//   core that asks for it when the refill ends;
// - replacement: an empty way first, else a way an 8-bit LFSR per cache picks (GVSoC's pseudo-random policy for these
//   caches; ASSUMPTION: that it fills empty ways first, as GVSoC's model does not), so runs are repeatable.
// The trip to L2 is the data side's L2 access (chips/siracusa-memory.ts L2_ACCESS_CYCLES, itself an ASSUMPTION) plus
// the cluster interconnect's 2 cycles each way into the cache (GVSoC `cluster_ico` latency 2).
// ASSUMPTIONS: a hit costs nothing beyond the instruction's cycle (the core's prefetch buffer hides it); the
// prefetch buffer does not fetch ahead across a line (every new line is looked up when the core first executes from
// it); the fabric controller's fetches are free (its cache is not modelled).

import { MAX_HARTS } from "./harts";
import { L2_ACCESS_CYCLES } from "../chips/siracusa-memory";

export const LINE_LOG2: u32 = 4;
const L0_SETS: u32 = 8;
const L0_WAYS: u32 = 4;
// The shared level (GVSoC's "l1" of the cache; named apart from the cluster's L1 data memory, cluster-banks.ts).
const SH_BANKS: u32 = 2;
const SH_SETS: u32 = 32;
const SH_WAYS: u32 = 4;
/** GVSoC "refill_latency" of the L0 and of the shared level. */
const L0_REFILL: i64 = 2;
const SH_REFILL: i64 = 2;
/** Cluster interconnect latency (GVSoC cluster.py `Router(self, 'cluster_ico', latency=2)`). */
const ICO: i64 = 2;
/** Cycles of a line fetched from L2 into the shared level (the L0's own refill not included). */
const L2_LINE: i64 = SH_REFILL + ICO + L2_ACCESS_CYCLES;
/** Cycles one core waits for a line from L2 when no refill is in flight: what a cold line costs. */
export const COLD_LINE_CYCLES: i64 = L0_REFILL + L2_LINE;
/** An empty way's tag (a tag is a line number, pc >> LINE_LOG2: never this). */
const EMPTY: u32 = 0xffffffff;

// L0: per hart, L0_SETS x L0_WAYS tags and the LFSR.
const L0_TAGS = memory.data(MAX_HARTS * <i32>(L0_SETS * L0_WAYS) * 4);
const L0_LFSR = memory.data(MAX_HARTS * 4);
// Shared level: per bank, SH_SETS x SH_WAYS tags and the cycle each line is ready at; the bank's refill end; LFSR.
const SH_TAGS = memory.data(<i32>(SH_BANKS * SH_SETS * SH_WAYS) * 4);
const SH_READY = memory.data(<i32>(SH_BANKS * SH_SETS * SH_WAYS) * 8);
const SH_BUSY = memory.data(<i32>SH_BANKS * 8);
const SH_LFSR = memory.data(<i32>SH_BANKS * 4);
/** Harts whose fetches go through the cache (bit h). */
let cached: u32 = 0;

let l0Misses: i64 = 0;
let sharedMisses: i64 = 0;

/** Empties the caches; harts first..first+n-1 fetch through them from now on (n = 0: no hart does). */
export function configureIcache(first: i32, n: i32): void {
  memory.fill(L0_TAGS, <u8>EMPTY, MAX_HARTS * <i32>(L0_SETS * L0_WAYS) * 4);
  memory.fill(SH_TAGS, <u8>EMPTY, <i32>(SH_BANKS * SH_SETS * SH_WAYS) * 4);
  memory.fill(SH_READY, 0, <i32>(SH_BANKS * SH_SETS * SH_WAYS) * 8);
  memory.fill(SH_BUSY, 0, <i32>SH_BANKS * 8);
  for (let h = 0; h < MAX_HARTS; h++) store<u32>(L0_LFSR + (<usize>h << 2), 0xa5);
  for (let b: u32 = 0; b < SH_BANKS; b++) store<u32>(SH_LFSR + (<usize>b << 2), 0xa5);
  cached = 0;
  for (let h = first; h < first + n && h < MAX_HARTS; h++) if (h >= 0) cached |= 1 << h;
  l0Misses = 0;
  sharedMisses = 0;
}

/** Whether hart h's fetches go through the cache. */
export function icacheOn(h: i32): bool {
  return (cached >> h & 1) != 0;
}

export function icacheL0Misses(): i64 { return l0Misses; }
export function icacheSharedMisses(): i64 { return sharedMisses; }

/** Next way to replace: an 8-bit Fibonacci LFSR (taps 8, 6, 5, 4) stepped once per refill. */
function stepLfsr(at: usize): u32 {
  const s = load<u32>(at);
  const bit = ((s >> 7) ^ (s >> 5) ^ (s >> 4) ^ (s >> 3)) & 1;
  const next = ((s << 1) | bit) & 0xff;
  store<u32>(at, next);
  return next;
}

/** The way of the set at `set` (ways tags of 4 bytes) a refill takes: an empty one, else the LFSR's pick. */
function victim(set: usize, ways: u32, lfsr: usize): u32 {
  for (let w: u32 = 0; w < ways; w++) if (load<u32>(set + (<usize>w << 2)) == EMPTY) return w;
  return stepLfsr(lfsr) % ways;
}

/** Stall cycles of hart h's fetch from code line `line` (pc >> LINE_LOG2) at cycle `now`. */
export function icacheFetch(h: i32, line: u32, now: i64): i64 {
  const l0 = L0_TAGS + <usize>(<u32>h * L0_SETS * L0_WAYS + (line & (L0_SETS - 1)) * L0_WAYS) * 4;
  for (let w: u32 = 0; w < L0_WAYS; w++) if (load<u32>(l0 + (<usize>w << 2)) == line) return 0;
  l0Misses++;
  store<u32>(l0 + (<usize>victim(l0, L0_WAYS, L0_LFSR + (<usize>h << 2)) << 2), line);
  // the shared level: bank by the line's low bit, then set and tag from the rest
  const bank = line & (SH_BANKS - 1);
  const rest = line >> 1;
  const slot = (bank * SH_SETS + (rest & (SH_SETS - 1))) * SH_WAYS;
  for (let w: u32 = 0; w < SH_WAYS; w++) {
    if (load<u32>(SH_TAGS + <usize>(slot + w) * 4) == line) {
      // a line still on its way from L2 reaches this core's private level when it reaches the one that asked for it
      const ready = load<i64>(SH_READY + <usize>(slot + w) * 8);
      return max(L0_REFILL, ready - now);
    }
  }
  sharedMisses++;
  const busyAt = SH_BUSY + (<usize>bank << 3);
  const start = max(now + L0_REFILL, load<i64>(busyAt));
  const ready = start + L2_LINE;
  store<i64>(busyAt, ready);
  const way = victim(SH_TAGS + <usize>slot * 4, SH_WAYS, SH_LFSR + (<usize>bank << 2));
  store<u32>(SH_TAGS + <usize>(slot + way) * 4, line);
  store<i64>(SH_READY + <usize>(slot + way) * 8, ready);
  return ready - now;
}
