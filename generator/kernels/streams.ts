/**
 * The inner loops behind the MAC cost classes (docs/timing.md, "Siracusa cluster core" and "L1 bank conflicts"): how
 * many MACs one iteration does, in how many cycles, with how many memory accesses. The AS conv and GEMM kernels
 * declare these loops to the emulator (chip.mem_stream) so that it can charge L1 bank conflicts and L2 latency; the
 * cycles are the cost tables' (emulator/assembly/cost.ts), so period / macs equals the class's cost per MAC
 * (test/kernels/streams.test.ts checks it against the emulator).
 */
export interface MacLoop {
  /** MACs of one iteration. */
  macs: number;
  /** Cycles of one iteration. */
  period: number;
  /** Word accesses of one iteration, in the order the kernels declare them. */
  accesses: number;
}

/** pulp-nn's 4x2 conv loop: 2 activation words (two output pixels) and 4 filter words (four channels), 8 sdotp. */
export const CONV_LOOP: MacLoop = { macs: 32, period: 14, accesses: 6 };
/** Depthwise: one activation word, one filter word, one sdotp per 4 MACs. */
export const DW_LOOP: MacLoop = { macs: 4, period: 3, accesses: 2 };
/** Linear: one activation word shared by two output neurons' weight words, 2 sdotp per 8 MACs. */
export const GEMM_LOOP: MacLoop = { macs: 8, period: 5, accesses: 3 };
