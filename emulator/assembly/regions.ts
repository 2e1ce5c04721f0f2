// The region table of the configured chip: each memory of the chip at its chip address, placed at a linear base
// from REGION_AREA in table order, aligned to 1 MiB unless the chip description asks for less (SpiNNaker2's 152 PE
// SRAMs of 128 KiB sit 128 KiB apart: at 1 MiB each they would need 152 MiB). Held in static memory (the emulator
// never allocates).

import { MAX_MEMORY_PAGES, REGION_ALIGN, REGION_AREA } from "./layout";
import { fault, msgBegin, msgDec, msgHex, msgText, raise } from "./fault";

/** SpiNNaker2: DRAM plus 152 PE SRAMs. */
const MAX_REGIONS: i32 = 160;
const NAMES = memory.data(MAX_REGIONS * sizeof<usize>());
const CHIP = memory.data(MAX_REGIONS * 4);
const SIZE = memory.data(MAX_REGIONS * 4);
const ALIGN = memory.data(MAX_REGIONS * 4);
const LINEAR = memory.data(MAX_REGIONS * sizeof<usize>());
/** 1: only a DMA engine reaches the region (Siracusa's L3): no core loads or stores there. */
const DMA_ONLY = memory.data(MAX_REGIONS);
let count: i32 = 0;

// Names made at configure time ("PE17") live in this static table as AssemblyScript strings: a 20-byte object
// header (its runtime id at ptr - 8, its byte length at ptr - 4, which is all String and the runtime read) and the
// UTF-16 characters. The emulator never allocates, so the headers are written by hand.
const NAME_SLOT: usize = 48;
const NAME_HEADER: usize = 20;
const NAME_TABLE = memory.data(<i32>(MAX_REGIONS * <i32>NAME_SLOT), 16);

export function resetRegions(): void {
  count = 0;
}

/**
 * Appends a region to the table (chip descriptions call this from configure). Its linear base is aligned to `align`
 * bytes (a power of two; default 1 MiB).
 */
export function addRegion(name: string, chipBase: u32, size: u32, align: u32 = <u32>REGION_ALIGN): void {
  if (count == MAX_REGIONS) {
    fault("configure: more than 160 regions");
    return;
  }
  store<usize>(NAMES + (<usize>count) * sizeof<usize>(), changetype<usize>(name));
  store<u32>(CHIP + (<usize>count << 2), chipBase);
  store<u32>(SIZE + (<usize>count << 2), size);
  store<u32>(ALIGN + (<usize>count << 2), align);
  store<u8>(DMA_ONLY + <usize>count, 0);
  count++;
}

/** The region added last is reached only through a DMA engine (its chip description says which). */
export function markLastDmaOnly(): void {
  if (count > 0) store<u8>(DMA_ONLY + <usize>(count - 1), 1);
}

export function regionDmaOnly(i: i32): bool {
  return <u32>i < <u32>count && load<u8>(DMA_ONLY + <usize>i) != 0;
}

/** "<prefix><index>" as a string in the static name table, for region `count` (the next one added). */
export function indexedName(prefix: string, index: i32): string {
  const ptr = NAME_TABLE + <usize>count * NAME_SLOT + NAME_HEADER;
  let n: i32 = 0;
  for (let i = 0; i < prefix.length; i++) store<u16>(ptr + <usize>(n++ << 1), <u16>prefix.charCodeAt(i));
  let div = 1;
  while (div * 10 <= index) div *= 10;
  for (; div > 0; div /= 10) store<u16>(ptr + <usize>(n++ << 1), <u16>(48 + (index / div) % 10));
  assert(<usize>(n << 1) <= NAME_SLOT - NAME_HEADER);
  store<u32>(ptr - 8, idof<string>());
  store<u32>(ptr - 4, <u32>(n << 1));
  return changetype<string>(ptr);
}

/** Assigns linear bases in table order and grows the memory to hold them; faults if they cannot fit. */
export function placeRegions(): void {
  let base = REGION_AREA;
  for (let i = 0; i < count; i++) {
    const align = <usize>load<u32>(ALIGN + (<usize>i << 2));
    base = (base + align - 1) & ~(align - 1);
    store<usize>(LINEAR + (<usize>i) * sizeof<usize>(), base);
    base += <usize>region_size(i);
  }
  const pages = <i32>((base + 0xffff) >> 16);
  if (pages > MAX_MEMORY_PAGES || (pages > memory.size() && memory.grow(pages - memory.size()) < 0)) {
    msgBegin("configure: the chip's regions need ");
    msgDec(<i64>base);
    msgText(" bytes of linear memory, the emulator has at most ");
    msgDec((<i64>MAX_MEMORY_PAGES) << 16);
    raise();
  }
}

function checkIndex(i: i32): void {
  if (<u32>i >= <u32>count) {
    msgBegin("region index ");
    msgDec(i);
    msgText(" out of range: the chip has ");
    msgDec(count);
    msgText(" regions");
    raise();
  }
}

export function region_count(): i32 {
  return count;
}

export function region_chip_base(i: i32): u32 {
  checkIndex(i);
  return load<u32>(CHIP + (<usize>i << 2));
}

export function region_size(i: i32): u32 {
  checkIndex(i);
  return load<u32>(SIZE + (<usize>i << 2));
}

export function region_linear_base(i: i32): usize {
  checkIndex(i);
  return load<usize>(LINEAR + (<usize>i) * sizeof<usize>());
}

/** Pointer to the region's name, an AS string (UTF-16, byte length at ptr - 4). */
export function region_name(i: i32): usize {
  checkIndex(i);
  return load<usize>(NAMES + (<usize>i) * sizeof<usize>());
}

export function regionNameOf(i: i32): string {
  return changetype<string>(region_name(i));
}

/** The region whose linear range holds `ptr`, or -1. */
export function regionAt(ptr: usize): i32 {
  for (let i = 0; i < count; i++) {
    const base = load<usize>(LINEAR + (<usize>i) * sizeof<usize>());
    if (ptr >= base && ptr - base < <usize>load<u32>(SIZE + (<usize>i << 2))) return i;
  }
  return -1;
}

/** Appends "0x<chip address> (region NAME" or "linear 0x<address> (no region" to the fault message. */
export function msgAddress(ptr: usize, region: i32): void {
  if (region < 0) {
    msgText("linear ");
    msgHex(<u32>ptr);
    msgText(" (no region");
    return;
  }
  msgHex(region_chip_base(region) + <u32>(ptr - region_linear_base(region)));
  msgText(" (region ");
  msgText(regionNameOf(region));
}

/**
 * A device's private area of `bytes` in linear memory after the last region, 64 KiB aligned, grown into and cleared
 * (Gemmini's scratchpad, BrainScaleS-2's synapse arrays): not in the region table, so no firmware pointer reaches it.
 * Faults naming `what` when the memory cannot hold it. Returns its linear base.
 */
export function placePrivate(bytes: usize, what: string): usize {
  const last = count - 1;
  const end = region_linear_base(last) + <usize>region_size(last);
  const base = (end + 0xffff) & ~(<usize>0xffff);
  const top = base + bytes;
  const pages = <i32>((top + 0xffff) >> 16);
  if (pages > MAX_MEMORY_PAGES || (pages > memory.size() && memory.grow(pages - memory.size()) < 0)) {
    fault("configure: no room for " + what + " in the linear memory");
  }
  memory.fill(base, 0, bytes);
  return base;
}
