// Siracusa memory map (HARDWARE.md, Siracusa table) and cluster size.

import { addRegion } from "../regions";
import { enableDma } from "../dma";
import { KiB, MiB } from "../layout";

/** 8 cluster worker cores (pulp-sdk archi/chips/siracusa/properties.h). */
export const SIRACUSA_CORES: i32 = 8;

export function siracusaRegions(): void {
  addRegion("L1", 0x1000_0000, 256 * KiB); // TCDM, 16 banks x 16 KiB
  addRegion("L2", 0x1C00_0000, 2 * MiB);
  // ASSUMPTION: L3 is off-chip HyperRAM behind a blocking DMA; it has no address in the cores' map, so we give it
  // the chip address 0x8000_0000 (free in the PULP map) and the 16 MiB size class of the Deeploy tutorial.
  addRegion("L3", 0x8000_0000, 16 * MiB);
  addRegion("NMS_MRAM", 0x1040_0000, 4 * MiB); // NPU weight memory, non-volatile
  addRegion("NMS_SRAM", 0x1080_0000, 4 * MiB);
}

/**
 * Cluster DMA (mchan v7), HARDWARE.md "cluster DMA timing": 8 bytes/cycle each way into and out of L1 (two 32-bit L1
 * ports per direction), ~14 cycles of interconnect latency before data, 2 queued commands per core. The L1 side is
 * region 0; the external side L2 (1) or L3 (2). ASSUMPTION: L3 is reached at L2's speed (on the chip it sits behind
 * the separate HyperRAM DMA, HARDWARE.md "L3"; docs/timing.md says what this leaves out).
 */
export function siracusaDma(): void {
  enableDma(0, (1 << 1) | (1 << 2), 14, 8, 2);
}
