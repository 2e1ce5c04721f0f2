/** Tensors in and out of the emulated memory, as the manifest's device type (little-endian, like the chips). */
import type { DType } from '../../generator/ir/dtype.js';
import { isIntType, rangeOf } from '../../generator/ir/dtype.js';
import { GenError } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { readElements, writeElements } from '../../generator/ir/elements.js';

/** Anything with bytes: the emulator's WebAssembly.Memory, or a plain buffer for the host-built C's files. */
export interface Bytes {
  readonly buffer: ArrayBufferLike;
}

/** The first value that the device type cannot hold exactly, with its index. */
function firstMisfit(dtype: DType, data: Float64Array): { index: number; value: number; range: string } | undefined {
  if (dtype === 'float32' || dtype === 'float64') return undefined;
  const { min, max } = isIntType(dtype) ? rangeOf(dtype) : { min: 0, max: 1 }; // bool
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isInteger(v) || v < min || v > max) return { index: i, value: v, range: `[${min}, ${max}]` };
  }
  return undefined;
}

/** Writes `values` at linear address `at`, as `dtype`; a value the type cannot hold is an error naming the tensor. */
export function writeTensor(memory: Bytes, at: number, dtype: DType, values: Float64Array, name: string): void {
  const bad = firstMisfit(dtype, values);
  if (bad) {
    throw new GenError('run', `input value ${bad.value} at flat index ${bad.index} does not fit ${dtype} ${bad.range}`, {
      tensor: name,
    });
  }
  writeElements(new Uint8Array(memory.buffer), at, dtype, values);
}

export function readTensor(memory: Bytes, at: number, dtype: DType, shape: readonly number[]): NDArray {
  const out = ndarray(dtype, shape);
  readElements(new Uint8Array(memory.buffer), at, dtype, out.data);
  return out;
}
