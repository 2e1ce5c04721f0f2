// Cost classes of `chip.compute(cls, units)`: what one unit of work is. The emulator's per-chip tables
// (emulator/assembly/cost.ts) import these ids, so firmware and emulator cannot disagree on the numbering.
// The cycles per unit of each class, per chip, and where they come from: docs/timing.md.

/** One multiply-accumulate of a dense (im2col) convolution. */
export const MAC_CONV: i32 = 0;
/** One multiply-accumulate of a depthwise convolution. */
export const MAC_DW: i32 = 1;
/** One multiply-accumulate of a GEMM / fully connected layer / MatMul. */
export const MAC_GEMM: i32 = 2;
/** One output element of an elementwise op (add, sub, mul, max, relu, copy with a cast, ...). */
export const ELEMENT: i32 = 3;
/** One requantized output (acc * mul + add) >> shift, clipped, stored. */
export const REQUANT: i32 = 4;
/** One byte moved by a core (memcpy, im2col gather, transpose, pad). */
export const COPY_BYTE: i32 = 5;
/** One element of an integer softmax row, divisions excluded (charge those as DIV). */
export const SOFTMAX_ELEM: i32 = 6;
/** One element of an integer layer/RMS norm row, divisions and the square root excluded. */
export const NORM_ELEM: i32 = 7;
/** One integer division. */
export const DIV: i32 = 8;
/** Fixed overhead of one kernel call on one core (prologue, argument struct, share computation). */
export const CALL: i32 = 9;

/** One element moved by a data-movement kernel (Transpose, Slice, Concat, Pad, a cast copy): the C walks it by index. */
export const MOVE_ELEM: i32 = 10;
/** One window tap of a pooling output (MaxPool: a load and a max). */
export const POOL_TAP: i32 = 11;

/** Number of cost classes; ids are 0 .. NUM_CLASSES-1. */
export const NUM_CLASSES: i32 = 12;
