// firmgen firmware for SpiNNaker2: the scheduler and worker loops. This code is the same for every model; the
// model is the DRAM image (memory/dram.bin, docs/spinnaker2.md) that the host writes before it raises the
// scheduler's interrupt. In the emulator, PE 0 (the scheduler) runs from cycle 0 and runs the workers' handlers
// whenever it waits for them (s2.ts, wait_workers).

import { scheduler_main } from "./scheduler";

scheduler_main();
