/**
 * Tiles of a convolution for loop_conv_ws, in the spirit of gemmini.h's tiled_conv_auto: start from the whole layer
 * (one batch image per loop) and shrink until the tile's input rows and weight rows fit half the scratchpad and its
 * output rows half the accumulator (docs/gemmini.md "loop_conv_ws": what the loop checks). The weights shrink first
 * (output then input channels, in blocks of 16) until they take at most half of that half, then the output rows,
 * then the output columns (in blocks of 16, keeping the array's rows full), then channels again.
 * Figures: HARDWARE.md "Gemmini" (scratchpad 16384 rows, accumulator 1024 rows, 16 elements a row).
 */
const SPAD_HALF = (4 * 4096) / 2;
const ACC_HALF = 1024 / 2;
const DIM = 16;

export interface ConvShape {
  C: number;
  O: number;
  OH: number;
  OW: number;
  KH: number;
  KW: number;
  /** The loop's stride (along a row; and down the rows when rowStride is not given). */
  stride: number;
  /** A vertical stride other than the loop's: every loop then computes one output row (the firmware steps the rows). */
  rowStride?: number;
  dilation: number;
}

export interface ConvTile {
  orows: number;
  ocols: number;
  ochs: number;
  kchs: number;
}

const blocks = (n: number): number => Math.ceil(n / DIM);

/** The loop's scratchpad rows: the padded input tile per input-channel block, then the weights. */
export function spadRows(s: ConvShape, t: ConvTile): number {
  const irows = t.orows * s.stride + (s.KH - 1) * s.dilation;
  const icols = t.ocols * s.stride + (s.KW - 1) * s.dilation;
  return blocks(t.kchs) * irows * icols + weightRows(s, t);
}

function weightRows(s: ConvShape, t: ConvTile): number {
  return blocks(t.ochs) * s.KH * s.KW * t.kchs;
}

export function accRows(t: ConvTile): number {
  return blocks(t.ochs) * t.orows * t.ocols;
}

export function convFits(s: ConvShape, t: ConvTile): boolean {
  return spadRows(s, t) <= SPAD_HALF && accRows(t) <= ACC_HALF;
}

/** One step down in blocks of 16 (to the largest multiple of 16 below n), never under 1. */
function down16(n: number): number {
  return n > DIM ? (n % DIM === 0 ? n - DIM : n - (n % DIM)) : n;
}

/** The tile, or undefined when not even one output pixel of one channel fits (a kernel too large for the scratchpad). */
export function convTile(s: ConvShape): ConvTile | undefined {
  const oneRow = s.rowStride !== undefined && s.rowStride !== s.stride;
  const t: ConvTile = { orows: oneRow ? 1 : s.OH, ocols: s.OW, ochs: s.O, kchs: s.C };
  while (!convFits(s, t)) {
    if (weightRows(s, t) > SPAD_HALF / 2 && t.ochs > DIM) t.ochs = down16(t.ochs);
    else if (weightRows(s, t) > SPAD_HALF / 2 && t.kchs > DIM) t.kchs = down16(t.kchs);
    else if (t.orows > 1) t.orows--;
    else if (t.ocols > DIM) t.ocols = down16(t.ocols);
    else if (t.ochs > DIM) t.ochs = down16(t.ochs);
    else if (t.kchs > DIM) t.kchs = down16(t.kchs);
    else if (t.ocols > 1) t.ocols--;
    else return undefined;
  }
  return t;
}
