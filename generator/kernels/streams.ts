import { GenError } from '../errors.js';

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
export const CONV_LOOP: MacShape = { macs: 32, accesses: 6 };
/**
 * Depthwise, the C's row path (conv.c `rowdot`, filter words in registers): at stride 1 a word of an input row serves
 * both pixels of a pair, two sdotp of 3 taps; two such words per iteration.
 */
export const DW_LOOP: MacShape = { macs: 12, accesses: 2 };
/** The row path at stride 2 or more: a word per pixel, one sdotp of 3 taps. */
export const DW_STRIDED_LOOP: MacShape = { macs: 12, accesses: 4 };
/**
 * Linear, the C's register block (gemm.c.mustache, firmgen_simd.h fg_dot4x2): the k-th words of two A rows and of
 * four B rows (n-major B), 8 sdotp.
 */
export const GEMM_LOOP: MacShape = { macs: 32, accesses: 6 };
/** Linear with a k-major B (the C's scalar loop): one A element and two words of 4 columns of B's row k. */
export const GEMM_KMAJOR_LOOP: MacShape = { macs: 8, accesses: 3 };

/** A loop's shape without its time: the period comes from the platform's cost per MAC (loopOf). */
export type MacShape = Omit<MacLoop, 'period'>;

/**
 * The loop on a platform: period = the platform's cost per MAC x MACs per iteration, so the declared loop takes the
 * cycles its class charges. The cost tables keep each MAC class a whole number of cycles per iteration of its loop
 * (the fit rounds to it: scripts/cost-fit/fit.ts).
 */
export function loopOf(shape: MacShape, costPerMac: number): MacLoop {
  const period = costPerMac * shape.macs;
  if (!Number.isInteger(period) || period < shape.accesses) {
    throw new GenError('internal', `a loop of ${shape.macs} MACs at ${costPerMac} cycles per MAC is not a whole number of cycles of at least ${shape.accesses}`);
  }
  return { ...shape, period };
}
