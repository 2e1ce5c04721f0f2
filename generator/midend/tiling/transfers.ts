import { bytesOf, type DType } from '../../ir/dtype.js';
import { stridesOf } from '../../ir/ndarray.js';
import type { Box } from './box.js';

/**
 * One cluster-DMA command: `bytes` in rows of `length` bytes that start `stride` bytes apart on the L2 side and
 * `l1Stride` bytes apart on the L1 side (either 0: that side contiguous).
 */
export interface Transfer {
  /** Byte offset of the first element in the L2 tensor. */
  ext: number;
  /** Byte offset in the L1 tile buffer. */
  l1: number;
  bytes: number;
  /** 0 for a contiguous (1-D) transfer. */
  stride: number;
  length: number;
  /** 0 for a contiguous L1 side; else rows of `length` every `l1Stride` bytes (padded conv filters). */
  l1Stride: number;
}

/** mchan: 17-bit length field (HARDWARE.md, cluster DMA command word bits 0..16). */
export const MAX_TRANSFER = 131071;

/**
 * The commands that copy a box of a row-major tensor to (or from) a contiguous L1 buffer of the box's shape:
 * the innermost partial dim and everything inside it is one row; the dim outside that gives the rows of a 2-D
 * command; dims further out repeat the command. Rows never straddle the 17-bit length limit.
 */
export function boxTransfers(shape: readonly number[], box: Box, dtype: DType): Transfer[] {
  const e = bytesOf(dtype);
  if (shape.length === 0) return [{ ext: 0, l1: 0, bytes: e, stride: 0, length: e, l1Stride: 0 }];
  // An empty box (a conv tile whose windows lie in the padding) moves nothing; a DMA command moves at least a byte.
  if (box.size.some((s) => s === 0)) return [];
  const strides = stridesOf(shape);
  const rank = shape.length;
  let d = rank - 1;
  while (d > 0 && box.size[d] === shape[d]) d--;
  // Row: box.size[d] x everything inside d (full extents), contiguous in both memories.
  const rowElems = box.size[d] * (d + 1 < rank ? strides[d] : 1);
  const rowBytes = rowElems * e;
  const rowsDim = d - 1;
  const rows = rowsDim >= 0 ? box.size[rowsDim] : 1;
  const rowStride = rowsDim >= 0 ? strides[rowsDim] * e : 0;
  const outer = box.size.slice(0, Math.max(0, rowsDim));
  const out: Transfer[] = [];
  let l1 = 0;
  const idx = outer.map(() => 0);
  const total = outer.reduce((a, b) => a * b, 1);
  for (let o = 0; o < total; o++) {
    let ext = 0;
    for (let i = 0; i < rank; i++) ext += (box.start[i] + (i < outer.length ? idx[i] : 0)) * strides[i];
    ext *= e;
    // Split the rows so a command stays within the length field.
    const rowsPerCmd = Math.max(1, Math.floor(MAX_TRANSFER / rowBytes));
    for (let r = 0; r < rows; r += rowsPerCmd) {
      const n = Math.min(rowsPerCmd, rows - r);
      if (rowBytes > MAX_TRANSFER) {
        for (let c = 0; c < rowBytes; c += MAX_TRANSFER) {
          const b = Math.min(MAX_TRANSFER, rowBytes - c);
          out.push({ ext: ext + r * rowStride + c, l1: l1 + c, bytes: b, stride: 0, length: b, l1Stride: 0 });
        }
      } else if (n === 1 || rowStride === rowBytes) {
        out.push({ ext: ext + r * rowStride, l1, bytes: n * rowBytes, stride: 0, length: n * rowBytes, l1Stride: 0 });
      } else {
        out.push({ ext: ext + r * rowStride, l1, bytes: n * rowBytes, stride: rowStride, length: rowBytes, l1Stride: 0 });
      }
      l1 += n * rowBytes;
    }
    for (let i = outer.length - 1; i >= 0; i--) {
      if (++idx[i] < outer[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}
