/** Tensors in and out of the emulated memory, as the manifest's device type (little-endian, like the chips). */
import type { DType } from '../../generator/ir/dtype.js';
import { bytesOf, isIntType, rangeOf } from '../../generator/ir/dtype.js';
import { GenError } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';

type Setter = (view: DataView, at: number, v: number) => void;
type Getter = (view: DataView, at: number) => number;

const SET: Record<DType, Setter> = {
  int8: (d, at, v) => d.setInt8(at, v),
  uint8: (d, at, v) => d.setUint8(at, v),
  bool: (d, at, v) => d.setUint8(at, v),
  int16: (d, at, v) => d.setInt16(at, v, true),
  uint16: (d, at, v) => d.setUint16(at, v, true),
  int32: (d, at, v) => d.setInt32(at, v, true),
  uint32: (d, at, v) => d.setUint32(at, v, true),
  int64: (d, at, v) => d.setBigInt64(at, BigInt(v), true),
  float32: (d, at, v) => d.setFloat32(at, v, true),
  float64: (d, at, v) => d.setFloat64(at, v, true),
};

const GET: Record<DType, Getter> = {
  int8: (d, at) => d.getInt8(at),
  uint8: (d, at) => d.getUint8(at),
  bool: (d, at) => d.getUint8(at),
  int16: (d, at) => d.getInt16(at, true),
  uint16: (d, at) => d.getUint16(at, true),
  int32: (d, at) => d.getInt32(at, true),
  uint32: (d, at) => d.getUint32(at, true),
  int64: (d, at) => Number(d.getBigInt64(at, true)),
  float32: (d, at) => d.getFloat32(at, true),
  float64: (d, at) => d.getFloat64(at, true),
};

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
export function writeTensor(memory: WebAssembly.Memory, at: number, dtype: DType, values: Float64Array, name: string): void {
  const bad = firstMisfit(dtype, values);
  if (bad) {
    throw new GenError('run', `input value ${bad.value} at flat index ${bad.index} does not fit ${dtype} ${bad.range}`, {
      tensor: name,
    });
  }
  const view = new DataView(memory.buffer);
  const set = SET[dtype];
  const step = bytesOf(dtype);
  for (let i = 0; i < values.length; i++) set(view, at + i * step, values[i]);
}

export function readTensor(memory: WebAssembly.Memory, at: number, dtype: DType, shape: readonly number[]): NDArray {
  const out = ndarray(dtype, shape);
  const view = new DataView(memory.buffer);
  const get = GET[dtype];
  const step = bytesOf(dtype);
  for (let i = 0; i < out.data.length; i++) out.data[i] = get(view, at + i * step);
  return out;
}
