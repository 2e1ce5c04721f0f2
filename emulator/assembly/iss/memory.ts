// The core's view of memory: a table of regions (chip address range -> bytes in wasm linear memory, extra wait
// cycles per access, access rights), filled by whoever wires the core to a chip (or by the tests). Plain RAM/ROM is
// read and written directly by the executor through a one-region cache (core.ts); MMIO regions go to the device
// dispatch (mmio.ts); TIMED regions go through a per-access hook (banked memories whose wait depends on the
// address and the time). Code windows hold the predecoded instruction slots (decode.ts) of executable ranges.

import { SLOT_BYTES } from "./decode";

export const MAX_REGIONS: i32 = 32;
export const FLAG_READ: i32 = 1;
export const FLAG_WRITE: i32 = 2;
export const FLAG_EXEC: i32 = 4;
export const FLAG_MMIO: i32 = 8;
export const FLAG_TIMED: i32 = 16;

const R_BASE = memory.data(MAX_REGIONS * 4);
const R_SIZE = memory.data(MAX_REGIONS * 4);
const R_LINEAR = memory.data(MAX_REGIONS * 4);
const R_WAIT = memory.data(MAX_REGIONS * 4);
const R_FLAGS = memory.data(MAX_REGIONS * 4);
const R_DEVICE = memory.data(MAX_REGIONS * 4);
let regionCount: i32 = 0;

export const MAX_WINDOWS: i32 = 16;
const W_BASE = memory.data(MAX_WINDOWS * 4);
const W_SIZE = memory.data(MAX_WINDOWS * 4);
const W_LINEAR = memory.data(MAX_WINDOWS * 4);
const W_SLOTS = memory.data(MAX_WINDOWS * 4);
let windowCount: i32 = 0;
/** Hull of every code window: a store outside it never touches predecoded code. */
export let codeLo: u32 = 0;
export let codeSpan: u32 = 0;
/** Chunk a code window covers when execution reaches an executable region outside every window. */
const AUTO_WINDOW: u32 = 0x1_0000;

export function resetMemory(): void {
  regionCount = 0;
  windowCount = 0;
  codeLo = 0;
  codeSpan = 0;
}

/** Bump allocation of fresh (zeroed) linear memory past everything in use: grows the memory. 0 if it cannot. */
export function allocLinear(bytes: u32): usize {
  const pages = <i32>((bytes + 0xffff) >> 16);
  const base = memory.grow(pages);
  if (base < 0) return 0;
  return (<usize>base) << 16;
}

// @ts-ignore: decorator
@inline function at(table: usize, i: i32): u32 {
  return load<u32>(table + (<usize>i << 2));
}

/** Adds a region; returns its index, or -1 if the table is full or it overlaps another region. */
export function addRegion(base: u32, size: u32, linear: usize, wait: i32, flags: i32, device: i32): i32 {
  if (regionCount == MAX_REGIONS || size == 0) return -1;
  for (let i = 0; i < regionCount; i++) {
    const b = at(R_BASE, i);
    if (base - b < at(R_SIZE, i) || b - base < size) return -1;
  }
  const i = regionCount++;
  store<u32>(R_BASE + (<usize>i << 2), base);
  store<u32>(R_SIZE + (<usize>i << 2), size);
  store<u32>(R_LINEAR + (<usize>i << 2), <u32>linear);
  store<i32>(R_WAIT + (<usize>i << 2), wait);
  store<i32>(R_FLAGS + (<usize>i << 2), flags);
  store<i32>(R_DEVICE + (<usize>i << 2), device);
  return i;
}

export function regionCountNow(): i32 { return regionCount; }
export function regionBase(i: i32): u32 { return at(R_BASE, i); }
export function regionSize(i: i32): u32 { return at(R_SIZE, i); }
export function regionLinear(i: i32): usize { return <usize>at(R_LINEAR, i); }
export function regionWait(i: i32): i32 { return <i32>at(R_WAIT, i); }
export function regionFlags(i: i32): i32 { return <i32>at(R_FLAGS, i); }
export function regionDevice(i: i32): i32 { return <i32>at(R_DEVICE, i); }

/** The region holding [addr, addr + bytes), or -1 (none, or the access straddles a region's end). */
export function findRegion(addr: u32, bytes: u32): i32 {
  for (let i = 0; i < regionCount; i++) {
    const off = addr - at(R_BASE, i);
    const size = at(R_SIZE, i);
    if (off < size) return size - off >= bytes ? i : -1;
  }
  return -1;
}

/** Linear address of chip address `addr` in a plain (non-MMIO) region for `bytes` bytes, or 0. */
export function linearOf(addr: u32, bytes: u32): usize {
  const r = findRegion(addr, bytes);
  if (r < 0 || (regionFlags(r) & FLAG_MMIO) != 0) return 0;
  return regionLinear(r) + <usize>(addr - regionBase(r));
}

// ---- code windows ----

export function windowCountNow(): i32 { return windowCount; }
export function windowBase(i: i32): u32 { return at(W_BASE, i); }
export function windowSize(i: i32): u32 { return at(W_SIZE, i); }
export function windowLinear(i: i32): usize { return <usize>at(W_LINEAR, i); }
export function windowSlots(i: i32): usize { return <usize>at(W_SLOTS, i); }

/**
 * Makes [base, base + size) a code window (inside one executable region); returns its index, or -1 (no such
 * region, no room, or no memory for the slots). A window already covering the range is reused.
 */
export function addWindow(base: u32, size: u32): i32 {
  base &= ~1;
  size = (size + 1) & ~1;
  for (let i = 0; i < windowCount; i++) {
    if (base - at(W_BASE, i) < at(W_SIZE, i) && at(W_SIZE, i) - (base - at(W_BASE, i)) >= size) return i;
  }
  const r = findRegion(base, size);
  if (r < 0 || windowCount == MAX_WINDOWS) return -1;
  if ((regionFlags(r) & (FLAG_EXEC | FLAG_MMIO)) != FLAG_EXEC) return -1;
  const slots = allocLinear((size >> 1) * <u32>SLOT_BYTES);
  if (slots == 0) return -1;
  const i = windowCount++;
  store<u32>(W_BASE + (<usize>i << 2), base);
  store<u32>(W_SIZE + (<usize>i << 2), size);
  store<u32>(W_LINEAR + (<usize>i << 2), <u32>(regionLinear(r) + <usize>(base - regionBase(r))));
  store<u32>(W_SLOTS + (<usize>i << 2), <u32>slots);
  const lo = codeSpan == 0 ? base : min(codeLo, base);
  const hi = codeSpan == 0 ? base + size : max(codeLo + codeSpan, base + size);
  codeLo = lo;
  codeSpan = hi - lo;
  return i;
}

/** The window holding `pc`, creating one over the surrounding chunk of an executable region; -1 if none can. */
export function windowFor(pc: u32): i32 {
  for (let i = 0; i < windowCount; i++) {
    if (pc - at(W_BASE, i) < at(W_SIZE, i)) return i;
  }
  const r = findRegion(pc, 2);
  if (r < 0) return -1;
  const rb = regionBase(r);
  const rEnd = rb + regionSize(r);
  let lo = pc & ~(AUTO_WINDOW - 1);
  if (lo - rb >= regionSize(r)) lo = rb; // the chunk starts before the region
  let hi = lo + AUTO_WINDOW;
  if (hi - rb > regionSize(r) || hi < lo) hi = rEnd;
  return addWindow(lo, hi - lo);
}

/** Forgets the predecoded slots overlapping a store to [addr, addr + bytes) (self-modifying or reloaded code). */
export function invalidateCode(addr: u32, bytes: u32): void {
  for (let i = 0; i < windowCount; i++) {
    const b = at(W_BASE, i);
    const size = at(W_SIZE, i);
    // a 32-bit instruction starting 2 bytes before addr also covers it
    const first = addr - 2 - b;
    for (let k: u32 = 0; k < bytes + 2; k += 2) {
      const off = first + k;
      if (off < size) store<u8>(<usize>at(W_SLOTS, i) + <usize>((off >> 1) * <u32>SLOT_BYTES), 0);
    }
  }
}
