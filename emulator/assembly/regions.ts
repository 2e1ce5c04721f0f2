// The region table of the configured chip: each memory of the chip at its chip address, placed at a 1 MiB-aligned
// linear base from REGION_AREA in table order. Held in static memory (the emulator never allocates).

import { MEMORY_PAGES, REGION_ALIGN, REGION_AREA } from "./layout";
import { fault, msgBegin, msgDec, msgHex, msgText, raise } from "./fault";

const MAX_REGIONS: i32 = 8;
const NAMES = memory.data(MAX_REGIONS * sizeof<usize>());
const CHIP = memory.data(MAX_REGIONS * 4);
const SIZE = memory.data(MAX_REGIONS * 4);
const LINEAR = memory.data(MAX_REGIONS * sizeof<usize>());
let count: i32 = 0;

export function resetRegions(): void {
  count = 0;
}

/** Appends a region to the table (chip descriptions call this from configure). */
export function addRegion(name: string, chipBase: u32, size: u32): void {
  if (count == MAX_REGIONS) {
    fault("configure: more than 8 regions");
    return;
  }
  store<usize>(NAMES + (<usize>count) * sizeof<usize>(), changetype<usize>(name));
  store<u32>(CHIP + (<usize>count << 2), chipBase);
  store<u32>(SIZE + (<usize>count << 2), size);
  count++;
}

/** Assigns linear bases in table order; faults if the regions do not fit the emulator's memory. */
export function placeRegions(): void {
  let base = REGION_AREA;
  for (let i = 0; i < count; i++) {
    store<usize>(LINEAR + (<usize>i) * sizeof<usize>(), base);
    base = (base + <usize>region_size(i) + REGION_ALIGN - 1) & ~(REGION_ALIGN - 1);
  }
  if (base > (<usize>MEMORY_PAGES) << 16) {
    msgBegin("configure: the chip's regions need ");
    msgDec(<i64>base);
    msgText(" bytes of linear memory, the emulator has ");
    msgDec((<i64>MEMORY_PAGES) << 16);
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
