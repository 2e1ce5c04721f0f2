// N-EUREKA weight memory format (HARDWARE.md "Weight layout", from pulp-nnx test/NeurekaWeight.py): the engine reads
// weights as 32-byte words. Each weight is stored unsigned as w - offset with offset = -2^(bits-1) (the engine adds
// offset * sum(x) back), its bits unpacked least significant first, and input channels are padded with zeros to
// the subtile (28 for 3x3 and 3x3 depthwise, 32 for 1x1).
//   3x3 dense: one word per (cout, cin subtile, bit plane): bit (tap * 28 + channel) of the word is that bit of
//              weight[cout][subtile * 28 + channel][tap] (taps row-major, 252 of the 256 bits used).
//   3x3 dw:    as dense with one "output channel" and the channels as input channels: one word per
//              (channel subtile, bit plane).
//   1x1:       one word per (cout, cin subtile): bit plane b of channel c sits at bit (c >> 2) * 32 + b * 4 + (c & 3),
//              bit planes above `bits` are zero (all 8 plane slots are always there).
// Bytes are packed little-endian (bit i of the word is bit i % 8 of byte i / 8).

import { GenError } from '../../../errors.js';

export type NpuMode = '3x3' | '3x3dw' | '1x1';

/** Engine geometry (HARDWARE.md "Geometry"). */
export const WORD_BYTES = 32;
export const CIN_SUBTILE_3X3 = 28;
export const CIN_SUBTILE_1X1 = 32;
export const COUT_SUBTILE = 32;
/** Depthwise processes 28 channels per subtile, input and output alike. */
export const DW_SUBTILE = 28;
export const OUT_SUBTILE_HW = 6;

export function cinSubtileOf(mode: NpuMode): number {
  return mode === '1x1' ? CIN_SUBTILE_1X1 : CIN_SUBTILE_3X3;
}

/** The unsigned storage offset for `bits`-bit signed weights: stored = w + 2^(bits-1). */
export function weightOffset(bits: number): number {
  return -(1 << (bits - 1));
}

/** Smallest width 2..8 that holds every weight as a signed integer. */
export function weightBits(values: ArrayLike<number>): number {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < values.length; i++) {
    lo = Math.min(lo, values[i]);
    hi = Math.max(hi, values[i]);
  }
  for (let b = 2; b <= 8; b++) if (lo >= -(1 << (b - 1)) && hi <= (1 << (b - 1)) - 1) return b;
  throw new GenError('unsupported', `weights in [${lo}, ${hi}] need more than 8 bits`);
}

export interface EncodeInput {
  mode: NpuMode;
  bits: number;
  /** Output channels (dense) or channels (depthwise). */
  cout: number;
  /** Input channels (dense); ignored for depthwise. */
  cin: number;
  /** weight(co, ci, tap) with tap = ky * k + kx; for depthwise ci is 0 and co the channel. */
  weight: (co: number, ci: number, tap: number) => number;
}

/** Bytes of encoded weights per output channel (dense) or per 28-channel subtile (depthwise). */
export function encodedStride(mode: NpuMode, bits: number, cin: number): number {
  if (mode === '1x1') return Math.ceil(cin / CIN_SUBTILE_1X1) * WORD_BYTES;
  if (mode === '3x3') return Math.ceil(cin / CIN_SUBTILE_3X3) * bits * WORD_BYTES;
  return bits * WORD_BYTES;
}

/** Total encoded bytes. */
export function encodedBytes(mode: NpuMode, bits: number, cout: number, cin: number): number {
  if (mode === '3x3dw') return Math.ceil(cout / DW_SUBTILE) * encodedStride(mode, bits, cin);
  return cout * encodedStride(mode, bits, cin);
}

function setBit(out: Uint8Array, word: number, bit: number): void {
  out[word * WORD_BYTES + (bit >> 3)] |= 1 << (bit & 7);
}

/** Encodes weights into the engine's memory format (see the header of this file). */
export function encodeWeights(e: EncodeInput): Uint8Array {
  const { mode, bits, cout, cin } = e;
  if (bits < 2 || bits > 8) throw new GenError('unsupported', `N-EUREKA weights have 2..8 bits, not ${bits}`);
  const offset = weightOffset(bits);
  const stored = (co: number, ci: number, tap: number): number => {
    const w = e.weight(co, ci, tap);
    const s = w - offset;
    if (s < 0 || s >= 1 << bits) throw new GenError('unsupported', `weight ${w} does not fit ${bits} bits`);
    return s;
  };
  const out = new Uint8Array(encodedBytes(mode, bits, cout, cin));
  if (mode === '1x1') {
    const subtiles = Math.ceil(cin / CIN_SUBTILE_1X1);
    for (let co = 0; co < cout; co++) {
      for (let ci = 0; ci < cin; ci++) {
        const s = stored(co, ci, 0);
        const word = co * subtiles + Math.floor(ci / CIN_SUBTILE_1X1);
        const c = ci % CIN_SUBTILE_1X1;
        for (let b = 0; b < bits; b++) if ((s >> b) & 1) setBit(out, word, (c >> 2) * 32 + b * 4 + (c & 3));
      }
    }
    return out;
  }
  if (mode === '3x3') {
    const subtiles = Math.ceil(cin / CIN_SUBTILE_3X3);
    for (let co = 0; co < cout; co++) {
      for (let ci = 0; ci < cin; ci++) {
        const sub = Math.floor(ci / CIN_SUBTILE_3X3);
        const c = ci % CIN_SUBTILE_3X3;
        for (let tap = 0; tap < 9; tap++) {
          const s = stored(co, ci, tap);
          for (let b = 0; b < bits; b++) {
            if ((s >> b) & 1) setBit(out, (co * subtiles + sub) * bits + b, tap * CIN_SUBTILE_3X3 + c);
          }
        }
      }
    }
    return out;
  }
  for (let ch = 0; ch < cout; ch++) {
    const sub = Math.floor(ch / DW_SUBTILE);
    const c = ch % DW_SUBTILE;
    for (let tap = 0; tap < 9; tap++) {
      const s = stored(ch, 0, tap);
      for (let b = 0; b < bits; b++) if ((s >> b) & 1) setBit(out, sub * bits + b, tap * DW_SUBTILE + c);
    }
  }
  return out;
}
