// Gemmini's RoCC commands for AS firmware: the emulator's gemmini_rocc (emulator/assembly/gemmini/rocc.ts) with the
// register encodings of gemmini.h's macros, so the AS firmware issues what the C firmware's `.insn` issues. Main-memory
// addresses are chip addresses (the DRAM at 0x8000_0000), as the C firmware's pointers are; local addresses follow
// docs/gemmini.md "Local addresses". Semantics and timing: docs/gemmini.md.

@external("chip", "gemmini_rocc")
export declare function gemmini_rocc(funct: i32, rs1: u64, rs2: u64): void;

/** The host waits until every command issued so far has completed (gemmini.h's gemmini_fence). */
@external("chip", "gemmini_fence")
export declare function gemmini_fence(): void;

export const GEMMINI_GARBAGE_ADDR: u32 = 0xffff_ffff;
/** Local address bits: the accumulator, accumulate on write, raw int32 read. */
export const GEMMINI_ACC: u32 = 0x8000_0000;
export const GEMMINI_ACC_ACCUMULATE: u32 = 0x4000_0000;
export const GEMMINI_ACC_RAW: u32 = 0x2000_0000;
export const GEMMINI_OUTPUT_STATIONARY: i32 = 0;
export const GEMMINI_WEIGHT_STATIONARY: i32 = 1;
export const GEMMINI_NO_ACTIVATION: i32 = 0;
export const GEMMINI_RELU: i32 = 1;

// @ts-ignore: decorator
@inline function operand(addr: u32, cols: i32, rows: i32): u64 {
  return (<u64>rows << 48) | (<u64>cols << 32) | <u64>addr;
}

// @ts-ignore: decorator
@inline function bits(f: f32): u64 {
  return <u64>reinterpret<u32>(f);
}

/** mvin (funct 2), mvin2 (1), mvin3 (14) by `id` 0, 1, 2: `rows` <= 16 rows of `cols` from `dram` to `local`. */
export function gemmini_mvin(dram: u64, local: u32, cols: i32, rows: i32, id: i32 = 0): void {
  gemmini_rocc(id == 0 ? 2 : id == 1 ? 1 : 14, dram, operand(local, cols, rows));
}

export function gemmini_mvout(dram: u64, local: u32, cols: i32, rows: i32): void {
  gemmini_rocc(3, dram, operand(local, cols, rows));
}

export function gemmini_preload(bd: u32, c: u32, bdCols: i32, bdRows: i32, cCols: i32, cRows: i32): void {
  gemmini_rocc(6, operand(bd, bdCols, bdRows), operand(c, cCols, cRows));
}

export function gemmini_compute_preloaded(a: u32, bd: u32, aCols: i32, aRows: i32, bdCols: i32, bdRows: i32): void {
  gemmini_rocc(4, operand(a, aCols, aRows), operand(bd, bdCols, bdRows));
}

export function gemmini_compute_accumulated(a: u32, bd: u32, aCols: i32, aRows: i32, bdCols: i32, bdRows: i32): void {
  gemmini_rocc(5, operand(a, aCols, aRows), operand(bd, bdCols, bdRows));
}

/** gemmini_extended3_config_ex (the execute pipeline's own accumulator scale is left at 1.0). */
export function gemmini_config_ex(
  dataflow: i32, act: i32, shift: u32, aStride: i32 = 1, cStride: i32 = 1, aTranspose: i32 = 0, bTranspose: i32 = 0,
): void {
  const rs1 = (bits(1.0) << 32) | (<u64>aStride << 16) | (<u64>bTranspose << 9) | (<u64>aTranspose << 8) |
    (<u64>act << 3) | (<u64>dataflow << 2);
  gemmini_rocc(0, rs1, (<u64>cStride << 48) | <u64>shift);
}

/** gemmini_extended4_config_ld: main-memory `stride` in bytes, mvin `scale`, int8 rows into the accumulator. */
export function gemmini_config_ld(stride: u64, scale: f32 = 1.0, shrunk: bool = false, blockStride: i32 = 16, id: i32 = 0): void {
  const rs1 = (bits(scale) << 32) | (<u64>blockStride << 16) | (<u64>1 << 8) | (<u64>id << 3) | (<u64>(shrunk ? 1 : 0) << 2) | 1;
  gemmini_rocc(0, rs1, stride);
}

/** gemmini_extended_config_st: store `stride` in bytes, activation and acc_scale on mvout, no pooling. */
export function gemmini_config_st(stride: u32, act: i32, scale: f32): void {
  gemmini_rocc(0, (<u64>act << 2) | 2, (bits(scale) << 32) | <u64>stride);
}

/** gemmini_extended2_config_st with max-pooling (docs/gemmini.md "mvout with max-pooling"). */
export function gemmini_config_st_pool(
  stride: u32, act: i32, scale: f32, poolStride: i32, poolSize: i32, poolOutDim: i32, porows: i32, pocols: i32,
  orows: i32, ocols: i32, upad: i32, lpad: i32,
): void {
  const rs1 = (<u64>ocols << 56) | (<u64>orows << 48) | (<u64>pocols << 40) | (<u64>porows << 32) |
    (<u64>poolOutDim << 24) | (<u64>lpad << 10) | (<u64>upad << 8) | (<u64>poolSize << 6) | (<u64>poolStride << 4) |
    (<u64>act << 2) | 2;
  gemmini_rocc(0, rs1, (bits(scale) << 32) | <u64>stride);
}

/** gemmini_loop_ws: C = A.B + D over I x J x K blocks of 16 (padding on the last ones); strides in elements. */
export function gemmini_loop_ws(
  I: i32, J: i32, K: i32, padI: i32, padJ: i32, padK: i32, A: u64, B: u64, D: u64, C: u64,
  strideA: u64, strideB: u64, strideD: u64, strideC: u64, aTranspose: bool, bTranspose: bool, fullC: bool, lowD: bool,
  exAccumulate: bool, act: i32,
): void {
  gemmini_rocc(9, (<u64>padK << 32) | (<u64>padJ << 16) | <u64>padI, (<u64>K << 32) | (<u64>J << 16) | <u64>I);
  gemmini_rocc(10, A, B);
  gemmini_rocc(11, D, C);
  gemmini_rocc(12, strideA, strideB);
  gemmini_rocc(13, strideD, strideC);
  const rs1 = (<u64>act << 8) | (<u64>(lowD ? 1 : 0) << 2) | (<u64>(fullC ? 1 : 0) << 1) | <u64>(exAccumulate ? 1 : 0);
  gemmini_rocc(8, rs1, (<u64>(bTranspose ? 1 : 0) << 1) | <u64>(aTranspose ? 1 : 0));
}

export function gemmini_flush(): void {
  gemmini_rocc(7, 0, 0);
}

/**
 * gemmini_loop_conv_ws: its six configuration commands (funct 16..21), then loop_conv_ws (15), with gemmini.h's
 * field layout (docs/gemmini.md "loop_conv_ws"); no pooling, transposes, input dilation or downsampling; `dw` 1: the
 * depthwise mode (one channel, weights read with stride 1). `bias` or
 * `output` 0: no bias moved in (the sums accumulate onto the accumulator rows as they are), no results moved out.
 */
export function gemmini_loop_conv_ws(
  batchSize: i32, inRowDim: i32, inColDim: i32, inChannels: i32, outChannels: i32, outRowDim: i32, outColDim: i32,
  stride: i32, kernelDim: i32, kernelDilation: i32, batches: i32, orows: i32, ocols: i32, ochs: i32,
  krows: i32, kcols: i32, kchs: i32, lpad: i32, rpad: i32, upad: i32, dpad: i32,
  inStride: i32, weightStride: i32, outStride: i32, weights: u64, output: u64, bias: u64, input: u64,
  maxPixelsPerRow: i32, act: i32, aId: i32, bId: i32, dw: i32 = 0,
): void {
  gemmini_rocc(16, (<u64>outChannels << 48) | (<u64>inChannels << 32) | (<u64>inRowDim << 16) | <u64>batchSize,
    (<u64>stride << 48) | (<u64>outColDim << 32) | (<u64>outRowDim << 16) | <u64>outRowDim);
  // no pooling: window 1, stride 1, the pooled tile the tile itself
  gemmini_rocc(17, (<u64>kernelDim << 48) | (<u64>outColDim << 32) | (<u64>1 << 16) | (<u64>1 << 8),
    (<u64>batches << 48) | (<u64>orows << 32) | (<u64>ocols << 16) | <u64>ochs);
  gemmini_rocc(18, (<u64>krows << 48) | (<u64>kcols << 32) | (<u64>kchs << 16) | <u64>lpad,
    (<u64>rpad << 48) | (<u64>upad << 32) | (<u64>dpad << 24) | <u64>inColDim);
  gemmini_rocc(19, (<u64>orows << 48) | <u64>kernelDilation,
    (<u64>inStride << 48) | (<u64>weightStride << 32) | (<u64>outStride << 16) | <u64>ocols);
  gemmini_rocc(20, weights, output);
  gemmini_rocc(21, bias, input);
  gemmini_rocc(15, (<u64>aId << 18) | (<u64>bId << 16) | (<u64>maxPixelsPerRow << 8) | (<u64>dw << 6) | <u64>(bias == 0 ? 1 : 0),
    (<u64>act << 3) | 1);
}
