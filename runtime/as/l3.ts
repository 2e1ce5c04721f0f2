// Siracusa's L3 (off-chip HyperRAM) through its own DMA, which blocks: the call returns when the data is there
// (HARDWARE.md "L3"; the C twin is hal_l3_read/hal_l3_write in runtime/c/include/firmgen_hal.h). The cluster DMA
// cannot reach L3, so L3 data is staged through L2 (the generator's midend/l3.ts plans where). Timing:
// docs/timing.md, "L3 (HyperRAM) DMA".

import * as chip from "./chip";

/** Copies `bytes` from L3 at `l3` to L2 at `l2` (linear addresses, memory.ts). */
export function l3_read(l2: usize, l3: usize, bytes: i32): void {
  chip.l3_copy(l2, l3, bytes, 0);
}

/** Copies `bytes` from L2 at `l2` to L3 at `l3`. */
export function l3_write(l3: usize, l2: usize, bytes: i32): void {
  chip.l3_copy(l2, l3, bytes, 1);
}
