// Tangram-style tiled accelerator (HARDWARE.md "Tangram-style tiled accelerator"; docs/tangram.md): the chip's DRAM
// (the four LPDDR4 channels as one address space) and the control core that runs the firmware's other layers with
// the shared kernels, priced as the generic scalar core. The engines, the mesh NoC and the DRAM channels' timing are
// the engine model (../tangram/engines.ts), which the firmware's engine layers call with tangram_run; its figures
// come in each program from the generator's hardware description.

import { addRegion } from "../regions";
import { MiB } from "../layout";

/**
 * ASSUMPTION: the emulator models the first 64 MiB of the DRAM at 0x8000_0000, the size class of the Gemmini and
 * SpiNNaker2 DRAM models: enough for the functional models firmgen runs on it (the large timing-only workloads are
 * the cost model's, not emulated).
 */
export const TANGRAM_DRAM_BASE: u32 = 0x8000_0000;
export const TANGRAM_DRAM_BYTES: u32 = 64 * MiB;

export function tangramRegions(): void {
  addRegion("DRAM", TANGRAM_DRAM_BASE, TANGRAM_DRAM_BYTES);
}
