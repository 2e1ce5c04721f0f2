/*
 * The depthwise plane path (conv.c `plane`): a unit is a band of output rows of one channel; its input rows are copied
 * into a buffer on the core's stack between zero columns (and zero rows where the window reaches into the padding),
 * so every pixel pair reads its window rows as they lie. The row path before it read the pairs in the padding's
 * columns one by one through fg_row_at: on small maps the edges were most of a row (MobileNetV1-0.25's 6x6 depthwise
 * layers, 3 pairs a row, 2 of them edges) and a unit's code passed a core's 512-byte instruction cache (ISS: a quarter
 * to a third of those layers' cycles waiting for fetches).
 */

/**
 * Bytes of the band buffer at most: a cluster core other than core 0 has a stack of 1 KiB (firmgen_pulp.h), the row
 * path's frame is 144 bytes (gcc -fstack-usage, rv32-xpulp) and the SIMD conv's frame of 704 fits beside the tile loop's
 * (conv.ts CHUNK).
 */
export const PLANE_BYTES = 512;

export interface Plane {
  /** Units: batch x channels x bands. */
  units: number;
  bands: number;
  /** Output rows per band (the last band takes what is left). */
  R: number;
  /** Buffer rows (a band's window rows) and the bytes of each: a multiple of 4. */
  BR: number;
  BW: number;
  /** Bytes before the first row: the alignment of the rows' columns with the fewest word accesses off a word (an
   * output row's window words, windowOffWords, against the copies' stores, copyWords). */
  off: number;
  /** The buffer in words. */
  words: number;
  /** Input rows a window spans: (KH - 1) x DY + 1. */
  span: number;
  /** Rows the bands fill (copied, or zeroed where another band left input) and their words, over all units. */
  fills: { rows: number; words: number };
  /**
   * Word accesses off a word boundary, a cycle more each on CV32E40P (MISALIGNED): `row`, an output row's window words
   * (the pairs' and a lone pixel's); `fills`, the copies' loads and stores over all units (the input tile's first
   * byte on a word: the planner's L1 slots are words).
   */
  misaligned: { row: number; fills: number };
}

/**
 * The plane path for a layer, or undefined where one band of a single output row does not fit PLANE_BYTES (the row
 * path stays). Bands as tall as fit, then more of them while the cores would idle: the count that gives the
 * busiest core the least work, a band's rows against the rows it copies (ASSUMPTION: a row copied costs what a
 * quarter of an output row's pairs do; few layers have more than one band).
 */
export function planeOf(p: {
  N: number; CO: number; H: number; W: number; HO: number; WO: number; KH: number; SY: number; SX: number; DY: number;
  PT: number; PL: number; cores: number;
  /** Input channels and outputs per input channel (the input channel of output co is co / COG): CO and 1 if absent. */
  C?: number; COG?: number;
}): Plane | undefined {
  const { N, CO, H, W, HO, WO, KH, SY, SX, DY, PL } = p;
  const C = p.C ?? CO;
  const COG = p.COG ?? 1;
  if (HO < 1 || WO < 1) return undefined;
  const pairs = Math.ceil(WO / 2);
  // The last byte a pair's words reach: one word at column ox for both pixels at stride 1, a word at each pixel's
  // column otherwise (a lone last pixel reads one word).
  const lastOx = 2 * (pairs - 1);
  const reach = SX === 1 ? lastOx + 3 : (WO % 2 === 1 ? lastOx * SX : (lastOx + 1) * SX) + 3;
  const BW = roundUp4(Math.max(PL + W, reach + 1));
  // The rows' alignment: an output row's window words against the copies' stores into the buffer (column PL), both
  // counted at the input's rows (each copied about once): a misaligned word costs the same either way.
  const off = [0, 1, 2, 3].reduce((best, o) => {
    const cost = (at: number): number => HO * windowOffWords(at, WO, SX, KH) + H * (((at + PL) & 3) !== 0 ? copyWords(W) : 0);
    return cost(o) < cost(best) ? o : best;
  }, 0);
  const span = (KH - 1) * DY + 1;
  const maxRows = Math.floor((PLANE_BYTES - off) / BW);
  if (maxRows < span) return undefined;
  const tallest = Math.min(HO, Math.floor((maxRows - span) / SY) + 1);
  const fewest = Math.ceil(HO / tallest);
  const channels = N * CO;
  const work = (bands: number): number => {
    const R = Math.ceil(HO / bands);
    return Math.ceil((channels * bands) / p.cores) * (4 * R + (R - 1) * SY + span);
  };
  let bands = fewest;
  for (let b = fewest + 1; b <= HO; b++) if (work(b) < work(bands)) bands = b;
  const R = Math.ceil(HO / bands);
  bands = Math.ceil(HO / R);
  const BR = (R - 1) * SY + span;
  let rows = 0;
  // The input rows the bands copy, by row (a row two bands share is copied by both).
  const copies = new Array<number>(H).fill(0);
  for (let band = 0; band < bands; band++) {
    const oy0 = band * R;
    const need = (Math.min(R, HO - oy0) - 1) * SY + span;
    for (let j = 0; j < need; j++) {
      const iy = oy0 * SY - p.PT + j;
      if (iy >= 0 && iy < H) copies[iy]++;
      // One band: a row in the padding stays as the first zeroing left it.
      if ((iy >= 0 && iy < H) || bands > 1) rows++;
    }
  }
  // A copied row's words: stores off a word where column PL is, loads where its first input byte is.
  let offFills = 0;
  const storeOff = ((off + PL) & 3) !== 0 ? 1 : 0;
  for (let n = 0; n < N; n++) {
    for (let co = 0; co < CO; co++) {
      const plane = (n * C + Math.floor(co / COG)) * H;
      for (let iy = 0; iy < H; iy++) offFills += copies[iy] * copyWords(W) * (storeOff + (((plane + iy) * W) & 3 ? 1 : 0));
    }
  }
  return {
    units: channels * bands, bands, R, BR, BW, off, words: Math.ceil((off + BR * BW) / 4), span,
    fills: { rows: channels * rows, words: channels * rows * Math.ceil(W / 4) },
    misaligned: { row: windowOffWords(off, WO, SX, KH), fills: offFills },
  };
}

/** Words fg_copy_row moves for a row of w bytes (two a pass of its loop, then one; the last bytes alone). */
function copyWords(w: number): number {
  return 2 * Math.floor(w / 8) + (w % 8 >= 4 ? 1 : 0);
}

/**
 * An output row's window words off a word boundary with the row's column 0 at byte `off` of a word: a pair's word at
 * column ox for both pixels at stride 1 (kernels/dw-asm.ts `shared`), else one at each pixel's column; a lone last
 * pixel's at its column; one per window row.
 */
function windowOffWords(off: number, WO: number, SX: number, KH: number): number {
  let n = 0;
  const at = (col: number): number => (((off + col) & 3) !== 0 ? 1 : 0);
  for (let ox = 0; ox + 1 < WO; ox += 2) n += SX === 1 ? at(ox) : at(ox * SX) + at((ox + 1) * SX);
  if (WO % 2 === 1) n += at((WO - 1) * SX);
  return n * KH;
}

/** The plane path's pixel pairs per output row in the row path's terms: all of them in one loop, no edges; a lone
 * last pixel takes one word and one dot product per window row. */
export function planeRow(WO: number, SX: number): { ix0: number; ix1: number; edge: number; words: number; dots: number } {
  const pairs = Math.floor(WO / 2);
  const lone = WO % 2;
  return { ix0: 0, ix1: 2 * pairs, edge: 0, words: (SX === 1 ? pairs : 2 * pairs) + lone, dots: WO };
}

const roundUp4 = (n: number): number => (n + 3) & ~3;
