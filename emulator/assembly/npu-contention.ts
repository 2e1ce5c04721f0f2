// L1 (TCDM) contention between N-EUREKA and the cluster cores (docs/timing.md, "N-EUREKA", contention). The NPU and
// the cores share the TCDM through the HCI interconnect, which the pulp-nnx Siracusa BSP configures with the NPU at
// priority and a max stall of 8 (cluster control register 0x0020_0018). Model: while a job runs, a cluster core's
// compute is stretched by the job's TCDM load, the fraction of the L1 bandwidth its streamer takes on average over
// the job (neureka-job.ts computes it); the master (fabric controller) is outside the cluster and is not slowed.
// Its own module, importing nothing, so that agents.ts can read it on the hot path without an import cycle.

/** Jobs remembered: a core's compute is checked against the latest RING jobs only. */
const RING: i32 = 64;
const START = memory.data(RING * 8);
const END = memory.data(RING * 8);
/** Q16 extra cycles per cycle of overlap. */
const LOAD = memory.data(RING * 8);
let count: i32 = 0;
let next: i32 = 0;

/** The latest end (Q16) of any job: a core clock at or past it needs no scan. 0 without jobs. */
export let npuBusyUntil: i64 = 0;

export function resetContention(): void {
  count = 0;
  next = 0;
  npuBusyUntil = 0;
}

/** A job busy on [start, end) (Q16 cycles) that slows overlapping core work by `loadQ16` / 65536 per cycle. */
export function addContention(start: i64, end: i64, loadQ16: i64): void {
  const off = <usize>next << 3;
  store<i64>(START + off, start);
  store<i64>(END + off, end);
  store<i64>(LOAD + off, loadQ16);
  next = next + 1 == RING ? 0 : next + 1;
  if (count < RING) count++;
  if (end > npuBusyUntil) npuBusyUntil = end;
}

/** Extra Q16 cycles for core work of `q` Q16 cycles starting at `from`: overlap with each job x its load. */
export function contentionExtra(from: i64, q: i64): i64 {
  const to = from + q;
  let extra: i64 = 0;
  let i = next;
  for (let n = 0; n < count; n++) {
    i = i == 0 ? RING - 1 : i - 1;
    const off = <usize>i << 3;
    const s = load<i64>(START + off);
    const e = load<i64>(END + off);
    if (e <= from) break; // jobs run one after another: every older one ended earlier still
    const lo = max(s, from);
    const hi = min(e, to);
    if (hi > lo) {
      const overlap = hi - lo;
      const f = load<i64>(LOAD + off);
      // overlap x f / 2^16 without overflowing i64 for long runs: whole cycles and the Q16 fraction apart
      extra += (overlap >> 16) * f + (((overlap & 0xffff) * f) >> 16);
    }
  }
  return extra;
}
