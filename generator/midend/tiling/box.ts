import { ndarray, stridesOf, type NDArray } from '../../ir/ndarray.js';

/** A box of a tensor: start and size per dim. */
export interface Box {
  start: number[];
  size: number[];
}

export function fullBox(shape: readonly number[]): Box {
  return { start: shape.map(() => 0), size: [...shape] };
}

export function boxEquals(a: Box, b: Box): boolean {
  return a.start.every((s, i) => s === b.start[i]) && a.size.every((s, i) => s === b.size[i]);
}

export function boxElements(b: Box): number {
  return b.size.reduce((x, y) => x * y, 1);
}

/** The values of a constant inside a box (constants are sliced for the tile's kernel instance). */
export function sliceArray(a: NDArray, box: Box): NDArray {
  const out = ndarray(a.dtype, box.size);
  const src = stridesOf(a.shape);
  const rank = box.size.length;
  const idx = new Array<number>(rank).fill(0);
  for (let i = 0; i < out.data.length; i++) {
    let off = 0;
    for (let d = 0; d < rank; d++) off += (box.start[d] + idx[d]) * src[d];
    out.data[i] = a.data[off];
    for (let d = rank - 1; d >= 0; d--) {
      if (++idx[d] < box.size[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

/**
 * The box of an operand of shape `shape` that a broadcasting op reads for the output box `out`
 * (numpy rules: right-aligned dims; a dim of 1 is read whole).
 */
export function broadcastBox(shape: readonly number[], out: Box): Box {
  const lead = out.size.length - shape.length;
  return {
    start: shape.map((d, i) => (d === 1 ? 0 : out.start[lead + i])),
    size: shape.map((d, i) => (d === 1 ? 1 : out.size[lead + i])),
  };
}
