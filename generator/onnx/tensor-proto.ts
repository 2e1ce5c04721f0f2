import { bytesOf, type DType } from '../ir/dtype.js';
import { readElement } from '../ir/elements.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';

/** ONNX TensorProto.DataType codes (onnx.proto). */
export const ONNX_TYPES: Record<number, DType | undefined> = {
  1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32', 7: 'int64', 9: 'bool',
  11: 'float64', 12: 'uint32',
};

export const ONNX_TYPE_CODES: Partial<Record<DType, number>> = Object.fromEntries(
  Object.entries(ONNX_TYPES).map(([k, v]) => [v, Number(k)]),
);

/** protobufjs gives int64 fields as numbers or Long objects. */
export type Int64Like = number | { toNumber(): number } | string;

export function toNumber(v: Int64Like | null | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return v.toNumber();
}

export interface TensorProtoLike {
  name?: string | null;
  dims?: Int64Like[] | null;
  dataType?: number | null;
  rawData?: Uint8Array | null;
  floatData?: number[] | null;
  int32Data?: number[] | null;
  int64Data?: Int64Like[] | null;
  doubleData?: number[] | null;
  uint64Data?: Int64Like[] | null;
  dataLocation?: number | null;
}

/** Decodes a TensorProto into an NDArray; throws Error with the reason (the caller adds file and tensor). */
export function decodeTensor(t: TensorProtoLike): NDArray {
  const code = t.dataType ?? 0;
  const dtype = ONNX_TYPES[code];
  if (!dtype) throw new Error(`unsupported tensor data type ${code}`);
  if (t.dataLocation === 1) throw new Error('external tensor data is not supported');
  const shape = (t.dims ?? []).map(toNumber);
  const a = ndarray(dtype, shape);
  const n = a.data.length;
  const raw = t.rawData;
  if (raw && raw.length > 0) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const width = bytesOf(dtype);
    if (raw.length !== n * width) throw new Error(`raw data holds ${raw.length} bytes, shape needs ${n * width}`);
    const typed = LITTLE_ENDIAN ? typedView(raw, dtype, n) : undefined;
    if (typed) a.data.set(typed);
    else for (let i = 0; i < n; i++) a.data[i] = readElement(view, dtype, i * width);
    return a;
  }
  const source: ArrayLike<Int64Like> | null | undefined =
    dtype === 'float32' ? t.floatData
    : dtype === 'float64' ? t.doubleData
    : dtype === 'int64' ? t.int64Data
    : dtype === 'uint32' ? t.uint64Data
    : t.int32Data;
  const values = source ?? [];
  if (values.length !== n) throw new Error(`tensor holds ${values.length} values, shape needs ${n}`);
  for (let i = 0; i < n; i++) a.data[i] = toNumber(values[i]);
  return a;
}

/** Typed arrays read in the machine's byte order; raw_data is little-endian. */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

const TYPED: Partial<Record<DType, (b: ArrayBuffer, o: number, n: number) => ArrayLike<number>>> = {
  int8: (b, o, k) => new Int8Array(b, o, k), uint8: (b, o, k) => new Uint8Array(b, o, k), bool: (b, o, k) => new Uint8Array(b, o, k),
  int16: (b, o, k) => new Int16Array(b, o, k), uint16: (b, o, k) => new Uint16Array(b, o, k),
  int32: (b, o, k) => new Int32Array(b, o, k), uint32: (b, o, k) => new Uint32Array(b, o, k),
  float32: (b, o, k) => new Float32Array(b, o, k), float64: (b, o, k) => new Float64Array(b, o, k),
};

/**
 * The raw bytes as a typed array of the dtype (copied first when not aligned for it), for one bulk conversion
 * instead of a DataView read per element; undefined for int64 (read through BigInt, element by element).
 */
function typedView(raw: Uint8Array, dtype: DType, n: number): ArrayLike<number> | undefined {
  const f = TYPED[dtype];
  if (!f) return undefined;
  // (A copy by the constructor: protobufjs gives Node Buffers, whose slice() is a view at the same offset.)
  const bytes = raw.byteOffset % bytesOf(dtype) === 0 ? raw : new Uint8Array(raw);
  return f(bytes.buffer as ArrayBuffer, bytes.byteOffset, n);
}
