// Memory timing of the cluster cores on the RV32 core: L1's word-interleaved banks, arbitrated from the actual
// addresses the harts touch, and L2 as seen from the cluster. The figures are the AS path's (chips/siracusa-memory.ts,
// HARDWARE.md "L1 (TCDM)"): 16 banks, bank = (addr >> 2) & 15, one access per bank per cycle; an L2 access from a
// cluster core takes L2_ACCESS_CYCLES (an ASSUMPTION stated there); the fabric controller's L2 accesses are plain.
//
// Arbitration: each bank remembers, for the last RING cycles, which hart it served. An access at cycle c to a bank
// another hart holds at c waits a cycle and tries c + 1 (fixed priority to the hart that came first in emulation
// order, an approximation of the round-robin arbiter). The scheduler (cluster.ts) runs harts in short slices ordered
// by their clocks, so slices overlap by far fewer than RING cycles. A running N-EUREKA job adds its share of the banks
// to a cluster core's L1 accesses (iss/npu.ts npuL1Wait).

import { clusterEnabled, coreOf, l1Region, l2ClusterWait, l2Region } from "./cluster-state";
import { L1_BANKS, L1_WORD_LOG2 } from "../chips/siracusa-memory";
import { npuL1Wait } from "./npu";

const RING: i32 = 256;
const SEEN = memory.data(L1_BANKS * RING * 8);
/** A conflict chain longer than this is cut (8 cores can queue at most 7 behind one). */
const MAX_WAIT: i32 = 16;

let conflicts: i64 = 0;

export function resetBanksIss(): void {
  memory.fill(SEEN, 0xff, L1_BANKS * RING * 8);
  conflicts = 0;
}

/** Cycles of conflict stalls the L1 banks caused so far (all harts). */
export function bankConflictCycles(): i64 {
  return conflicts;
}

/** Wait cycles of one access, or -1 when the region is not one the cluster times. */
export function clusterAccessWait(region: i32, hart: i32, addr: u32, now: i64): i32 {
  if (!clusterEnabled()) return -1;
  if (region == l2Region) return coreOf(hart) >= 0 ? l2ClusterWait : 0;
  if (region != l1Region) return -1;
  const bank = <i32>((addr >> <u32>L1_WORD_LOG2) & <u32>(L1_BANKS - 1));
  const row = SEEN + <usize>(bank * RING * 8);
  let c = now;
  let wait = 0;
  let e = row + (<usize>(<i32>c & (RING - 1)) << 3);
  let v = load<i64>(e);
  while (v >= 0 && (v >> 5) == c && <i32>(v & 31) != hart && wait < MAX_WAIT) {
    c++;
    wait++;
    e = row + (<usize>(<i32>c & (RING - 1)) << 3);
    v = load<i64>(e);
  }
  store<i64>(e, (c << 5) | <i64>hart);
  conflicts += <i64>wait;
  // A running N-EUREKA job's share of the banks (iss/npu.ts): counted as memory wait, not as a core-core conflict.
  return coreOf(hart) >= 0 ? wait + npuL1Wait(hart, c) : wait;
}
