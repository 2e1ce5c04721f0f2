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
 * Linear memory size in 64 KiB pages: enough for the regions of the largest chip. Siracusa: L1 256 KiB at 8 MiB,
 * L2 2 MiB at 9 MiB, L3 16 MiB at 11 MiB, NMS_MRAM 4 MiB at 27 MiB, NMS_SRAM 4 MiB at 31 MiB, end 35 MiB.
 * asconfig.json sets initialMemory and maximumMemory to this value; configure() checks that the regions fit.
 */
export const MEMORY_PAGES: i32 = 560;

export function memory_pages(): i32 {
  return MEMORY_PAGES;
}

/** Where the emulator's static data ends; must stay below EVENT_LOG_BASE (checked by configure and a test). */
export function heap_base(): usize {
  return __heap_base;
}
