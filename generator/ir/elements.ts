import { bytesOf, type DType } from './dtype.js';

/*
 * Element bytes in the little-endian layout every format here uses (.npy, ONNX raw_data, the chips' memories).
 * The one place that knows how each dtype is stored.
 */

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** int64 values past 2^53 (an INT64_MAX slice end, read back as 2^63) are clamped into int64. */
export function toInt64(v: number): bigint {
  const b = BigInt(Math.trunc(v));
  return b > INT64_MAX ? INT64_MAX : b < INT64_MIN ? INT64_MIN : b;
}

export function readElement(v: DataView, t: DType, o: number): number {
  switch (t) {
    case 'int8': return v.getInt8(o);
    case 'uint8': case 'bool': return v.getUint8(o);
    case 'int16': return v.getInt16(o, true);
    case 'uint16': return v.getUint16(o, true);
    case 'int32': return v.getInt32(o, true);
    case 'uint32': return v.getUint32(o, true);
    case 'int64': return Number(v.getBigInt64(o, true));
    case 'float32': return v.getFloat32(o, true);
    case 'float64': return v.getFloat64(o, true);
  }
}

export function writeElement(v: DataView, t: DType, o: number, x: number): void {
  switch (t) {
    case 'int8': v.setInt8(o, x); break;
    case 'uint8': case 'bool': v.setUint8(o, x); break;
    case 'int16': v.setInt16(o, x, true); break;
    case 'uint16': v.setUint16(o, x, true); break;
    case 'int32': v.setInt32(o, x, true); break;
    case 'uint32': v.setUint32(o, x, true); break;
    case 'int64': v.setBigInt64(o, toInt64(x), true); break;
    case 'float32': v.setFloat32(o, x, true); break;
    case 'float64': v.setFloat64(o, x, true); break;
  }
}

type Typed = ArrayLike<number> & { set(a: ArrayLike<number>): void };
type TypedOf = (b: ArrayBufferLike, at: number, n: number) => Typed;

/** Typed arrays by element type, each of bytesOf(type) bytes an element (int64 has none: BigInt, element by element). */
const TYPED: Partial<Record<DType, TypedOf>> = {
  int8: (b, o, n) => new Int8Array(b, o, n),
  uint8: (b, o, n) => new Uint8Array(b, o, n),
  bool: (b, o, n) => new Uint8Array(b, o, n),
  int16: (b, o, n) => new Int16Array(b, o, n),
  uint16: (b, o, n) => new Uint16Array(b, o, n),
  int32: (b, o, n) => new Int32Array(b, o, n),
  uint32: (b, o, n) => new Uint32Array(b, o, n),
  float32: (b, o, n) => new Float32Array(b, o, n),
  float64: (b, o, n) => new Float64Array(b, o, n),
};
/** Typed arrays are in the host's byte order; every format here is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Reads out.length elements of type `t` stored from byte `at` of `bytes` into `out`, as readElement would each: one
 * typed-array conversion (the bytes copied first where they are not aligned for the type), where the type has a typed
 * array and the host is little-endian. A DataView call per element was most of reading a decoder step's inputs.
 */
export function readElements(bytes: Uint8Array, at: number, t: DType, out: Float64Array): void {
  const typed = LITTLE_ENDIAN ? TYPED[t] : undefined;
  const n = out.length;
  const width = bytesOf(t);
  if (!typed) {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) out[i] = readElement(v, t, at + i * width);
    return;
  }
  const start = bytes.byteOffset + at;
  if (start % width === 0) out.set(typed(bytes.buffer, start, n));
  // (a copy by the constructor: a Node Buffer's slice() is a view into its pool, not a copy)
  else out.set(typed(new Uint8Array(bytes.subarray(at, at + n * width)).buffer, 0, n));
}

/**
 * Writes `values` as type `t` from byte `at` of `bytes`, as writeElement would each: for an integer type one typed-array
 * copy (its conversion is DataView's: ToInt8, ToUint16, ...); floats (a NaN's bits could differ) and int64 (BigInt)
 * element by element.
 */
export function writeElements(bytes: Uint8Array, at: number, t: DType, values: ArrayLike<number>): void {
  const typed = LITTLE_ENDIAN && t !== 'float32' && t !== 'float64' ? TYPED[t] : undefined;
  const n = values.length;
  const width = bytesOf(t);
  if (!typed) {
    const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < n; i++) writeElement(v, t, at + i * width, values[i]);
    return;
  }
  const start = bytes.byteOffset + at;
  if (start % width === 0) {
    typed(bytes.buffer, start, n).set(values);
    return;
  }
  const aligned = new Uint8Array(n * width);
  typed(aligned.buffer, 0, n).set(values);
  bytes.set(aligned, at);
}
