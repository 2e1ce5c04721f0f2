import type { DType } from './dtype.js';

/**
 * A dense row-major array. Values are held as float64 so every integer the integer dialect produces (|v| < 2^53)
 * and every float32 of a QDQ model is exact; the dtype says what the values mean.
 */
export interface NDArray {
  dtype: DType;
  shape: number[];
  data: Float64Array;
}

export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i];
  }
  return s;
}

export function ndarray(dtype: DType, shape: readonly number[], data?: ArrayLike<number>): NDArray {
  const n = sizeOf(shape);
  const buf = new Float64Array(n);
  if (data) {
    if (data.length !== n) throw new Error(`ndarray: ${data.length} values for shape [${shape.join(', ')}]`);
    buf.set(data);
  }
  return { dtype, shape: [...shape], data: buf };
}

export function scalarOf(a: NDArray): number {
  if (a.data.length < 1) throw new Error('empty tensor where a scalar was expected');
  return a.data[0];
}

export function shapeEquals(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}
