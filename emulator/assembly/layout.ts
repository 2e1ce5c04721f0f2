// The windows of the one linear memory that emulator and firmware share (docs/firmware-abi.md).

export const KiB: u32 = 1024;
export const MiB: u32 = 1024 * 1024;

/** Emulator private window [0, 4 MiB): static data (must end below EVENT_LOG_BASE), then the event log. */
export const EVENT_LOG_BASE: usize = 0x0010_0000;
export const EVENT_LOG_LIMIT: usize = 0x0040_0000;

/** Firmware private window [4 MiB, 8 MiB): its static data and stub heap (--memoryBase 0x400000). */
export const FIRMWARE_BASE: usize = 0x0040_0000;

/** Chip regions start here, each at a 1 MiB-aligned linear base. */
export const REGION_AREA: usize = 0x0080_0000;
export const REGION_ALIGN: usize = 0x0010_0000;

/**
 * Linear memory size in 64 KiB pages at instantiation: enough for Siracusa's regions (L1 256 KiB at 8 MiB, L2 2 MiB
 * at 9 MiB, L3 16 MiB at 11 MiB, NMS_MRAM 4 MiB at 27 MiB, NMS_SRAM 4 MiB at 31 MiB, end 35 MiB). asconfig.json sets
 * initialMemory to this value. A chip with more memory (SpiNNaker2) makes configure() grow the memory once, before
 * the runtime or the firmware look at it; MAX_MEMORY_PAGES (asconfig.json maximumMemory) bounds that.
 */
export const MEMORY_PAGES: i32 = 560;
/** 128 MiB: SpiNNaker2 with 152 PEs (8 MiB + 19 MiB of PE SRAM, then 64 MiB of DRAM at 27 MiB) ends at 91 MiB. */
export const MAX_MEMORY_PAGES: i32 = 2048;

/** Pages the memory has now (MEMORY_PAGES, or more after configure() grew it for a larger chip). */
export function memory_pages(): i32 {
  return memory.size();
}

/** Where the emulator's static data ends; must stay below EVENT_LOG_BASE (checked by configure and a test). */
export function heap_base(): usize {
  return __heap_base;
}
