// check(ptr, bytes, write): a kernel's buffer must lie inside one region of the chip that the cores reach. Anything
// else (the firmware's own window, a hole between regions, a buffer running past a region's end, a region only a
// DMA engine reaches such as Siracusa's L3) is a fault that names the address, the region and the current layer.
//
// Tile guards: a tiled layer arms a guard around each output buffer of the current tile (tile_guard) before its
// cores compute; each enter() of the next core and tile_guard_end() after the compute compare the 8 bytes before
// and after every armed buffer with what they held when armed. Nothing else writes L1 in that window (DMA data land
// only at dma_wait, which the tile loop calls outside it), so a change is a core's store past its tile buffer: the
// fault names the core that last ran, the address, the region and the layer. A store past the buffer that writes the
// bytes already there is not seen (a guard, not a per-store check: checks are per tile, not per element).
// Neither check is charged: the emulated cycles are those of the firmware without them.

import { currentAgent } from "./agents";
import { msgLayer } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { msgAddress, regionAt, regionDmaOnly, region_size, region_linear_base } from "./regions";

export function check(ptr: usize, bytes: i32, write: i32): void {
  const r = regionAt(ptr);
  if (r >= 0 && bytes >= 0 && <u64>(ptr - region_linear_base(r)) + <u64>bytes <= <u64>region_size(r) && !regionDmaOnly(r)) return;
  checkFault(ptr, bytes, write, r);
}

function checkFault(ptr: usize, bytes: i32, write: i32, r: i32): void {
  msgBegin("check: ");
  msgText(write != 0 ? "write of " : "read of ");
  msgDec(bytes);
  msgText(" bytes at ");
  msgAddress(ptr, r);
  if (r >= 0) {
    const past = bytes >= 0 ? <i64>(ptr - region_linear_base(r)) + <i64>bytes - <i64>region_size(r) : 0;
    if (bytes < 0) msgText(", negative size");
    else if (past > 0) {
      msgText(", runs past its end by ");
      msgDec(past);
      msgText(" bytes");
    } else msgText(", which only a DMA engine reaches: no core loads or stores there");
  }
  msgText(")");
  msgLayer();
  raise();
}

const MAX_GUARDS: i32 = 16;
const GUARD_BYTES: usize = 8;
/** Per guard: buffer pointer, bytes (usize each), then the 8 bytes before and the 8 bytes after it. */
const GUARD_SLOT: usize = 2 * sizeof<usize>() + 2 * GUARD_BYTES;
const GUARDS = memory.data(<i32>(MAX_GUARDS * <i32>GUARD_SLOT), 8);
let guards: i32 = 0;

function slotOf(i: i32): usize {
  return GUARDS + <usize>i * GUARD_SLOT;
}

/** The guard range before (side 0) or after (side 1) a buffer, clipped to its region; 0 bytes when none. */
function guardAt(ptr: usize, bytes: usize, side: i32): usize {
  return side == 0 ? ptr - GUARD_BYTES : ptr + bytes;
}

function guardLen(ptr: usize, bytes: usize, side: i32): usize {
  const r = regionAt(ptr);
  if (r < 0) return 0;
  const base = region_linear_base(r);
  const end = base + <usize>region_size(r);
  if (side == 0) return min(GUARD_BYTES, ptr - base);
  return ptr + bytes >= end ? 0 : min(GUARD_BYTES, end - (ptr + bytes));
}

/** Arms a guard around the output buffer [ptr, ptr + bytes) of the tile about to be computed (checked first). */
export function tile_guard(ptr: usize, bytes: i32, first: i32): void {
  if (first != 0) guards = 0;
  check(ptr, bytes, 1);
  if (guards == MAX_GUARDS) return; // more outputs than guards: the rest go unguarded
  const g = slotOf(guards++);
  store<usize>(g, ptr);
  store<usize>(g + sizeof<usize>(), <usize>bytes);
  for (let side = 0; side < 2; side++) {
    const at = guardAt(ptr, <usize>bytes, side);
    const n = guardLen(ptr, <usize>bytes, side);
    memory.copy(g + 2 * sizeof<usize>() + <usize>side * GUARD_BYTES, at, n);
  }
}

/** Compares every armed guard; called on each enter() and by tile_guard_end. */
export function verifyGuards(): void {
  for (let i = 0; i < guards; i++) {
    const g = slotOf(i);
    const ptr = load<usize>(g);
    const bytes = load<usize>(g + sizeof<usize>());
    for (let side = 0; side < 2; side++) {
      const at = guardAt(ptr, bytes, side);
      const n = guardLen(ptr, bytes, side);
      const saved = g + 2 * sizeof<usize>() + <usize>side * GUARD_BYTES;
      for (let k: usize = 0; k < n; k++) {
        if (load<u8>(at + k) != load<u8>(saved + k) && !inArmedBuffer(at + k)) guardFault(at + k, ptr, bytes, side);
      }
    }
  }
}

/** A byte inside another output buffer of the same tile (adjacent outputs): its own kernel may write it. */
function inArmedBuffer(at: usize): bool {
  for (let i = 0; i < guards; i++) {
    const g = slotOf(i);
    const ptr = load<usize>(g);
    if (at >= ptr && at - ptr < load<usize>(g + sizeof<usize>())) return true;
  }
  return false;
}

function guardFault(at: usize, ptr: usize, bytes: usize, side: i32): void {
  guards = 0;
  const a = currentAgent();
  msgBegin("tile check: ");
  if (a > 0) {
    msgText("core ");
    msgDec(a - 1);
  } else msgText("the firmware");
  msgText(" stored at ");
  msgAddress(at, regionAt(at));
  msgText("), ");
  msgText(side == 0 ? "before" : "past");
  msgText(" its tile buffer of ");
  msgDec(<i64>bytes);
  msgText(" bytes at ");
  msgAddress(ptr, regionAt(ptr));
  msgText(")");
  msgLayer();
  raise();
}

/** After a tile's compute: the last core's stores are compared, and the guards disarmed. */
export function tile_guard_end(): void {
  verifyGuards();
  guards = 0;
}
