// Region bases, read from the emulator once at start. The firmware addresses memory by linear address:
// linear = region_base(i) + (chip address - chip base of region i)  (docs/firmware-abi.md).

import * as chip from "./chip";

/** SpiNNaker2: the DRAM and 152 PE SRAMs. */
const MAX_REGIONS: i32 = 160;
/** The firmware's window ends where the chip's regions begin: static data and stub heap must stay below. */
const FIRMWARE_LIMIT: usize = 0x0080_0000;

const COUNT: i32 = chip.region_count();
const LINEAR = new StaticArray<usize>(MAX_REGIONS);
const CHIP = new StaticArray<u32>(MAX_REGIONS);
const SIZE = new StaticArray<u32>(MAX_REGIONS);
for (let i = 0; i < COUNT; i++) {
  LINEAR[i] = chip.region_linear_base(i);
  CHIP[i] = chip.region_chip_base(i);
  SIZE[i] = chip.region_size(i);
}
if (__heap_base > FIRMWARE_LIMIT) abort("firmware static data runs past its 4 MiB window into the chip's regions");

export function region_count(): i32 {
  return COUNT;
}

/** Linear base of region i. */
export function region_base(i: i32): usize {
  if (<u32>i >= <u32>COUNT) abort("region_base: no such region");
  return unchecked(LINEAR[i]);
}

/** Linear address of a chip address; aborts if no region holds it. For set-up code, not inner loops. */
export function chip_to_linear(addr: u32): usize {
  for (let i = 0; i < COUNT; i++) {
    const off = addr - unchecked(CHIP[i]);
    if (addr >= unchecked(CHIP[i]) && off < unchecked(SIZE[i])) return unchecked(LINEAR[i]) + <usize>off;
  }
  abort("chip_to_linear: the address lies in no region");
  return 0;
}
