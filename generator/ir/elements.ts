import type { DType } from './dtype.js';

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
