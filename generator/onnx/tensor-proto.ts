import { bytesOf, type DType } from '../ir/dtype.js';
import { readElements } from '../ir/elements.js';
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
    const width = bytesOf(dtype);
    if (raw.length !== n * width) throw new Error(`raw data holds ${raw.length} bytes, shape needs ${n * width}`);
    readElements(raw, 0, dtype, a.data);
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

