import { formatShape, sizeOf, stridesOf } from '../ir/ndarray.js';

/** numpy broadcasting of two shapes; null when they are incompatible. */
export function broadcastShapes(a: readonly number[], b: readonly number[]): number[] | null {
  const rank = Math.max(a.length, b.length);
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) return null;
    out[i] = da === 1 ? db : da;
  }
  return out;
}

export function broadcastAll(shapes: readonly (readonly number[])[]): number[] | null {
  let out: number[] | null = [];
  for (const s of shapes) {
    out = broadcastShapes(out, s);
    if (!out) return null;
  }
  return out;
}

export function describeShapes(shapes: readonly (readonly number[])[]): string {
  return shapes.map(formatShape).join(' and ');
}

/**
 * For every element of a tensor of shape `outShape`, the flat index of the element of an array of shape `inShape`
 * that broadcasts onto it. Precomputing the map keeps elementwise loops free of index arithmetic.
 */
export function broadcastIndex(inShape: readonly number[], outShape: readonly number[]): Int32Array {
  const n = sizeOf(outShape);
  const map = new Int32Array(n);
  const rank = outShape.length;
  const inStrides = stridesOf(inShape);
  // Stride 0 along broadcast axes; the input's leading missing axes are broadcast too.
  const strides = outShape.map((_, i) => {
    const j = i - (rank - inShape.length);
    return j < 0 || inShape[j] === 1 ? 0 : inStrides[j];
  });
  const idx = new Array<number>(rank).fill(0);
  let off = 0;
  for (let f = 0; f < n; f++) {
    map[f] = off;
    for (let d = rank - 1; d >= 0; d--) {
      idx[d]++;
      off += strides[d];
      if (idx[d] < outShape[d]) break;
      off -= strides[d] * idx[d];
      idx[d] = 0;
    }
  }
  return map;
}

/** Normalises a possibly negative axis into [0, rank). */
export function normAxis(axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new RangeError(`axis ${axis} out of range for rank ${rank}`);
  return a;
}
