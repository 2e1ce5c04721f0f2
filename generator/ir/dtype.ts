/** Element types. Integer types are what tensors have on the device; float32 appears only in standard QDQ models. */
export type IntType = 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64';
export type DType = IntType | 'float32' | 'float64' | 'bool';

export interface IntRange {
  min: number;
  max: number;
}

const RANGES: Record<IntType, IntRange> = {
  int8: { min: -128, max: 127 },
  uint8: { min: 0, max: 255 },
  int16: { min: -32768, max: 32767 },
  uint16: { min: 0, max: 65535 },
  int32: { min: -2147483648, max: 2147483647 },
  uint32: { min: 0, max: 4294967295 },
  int64: { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
};

export function isIntType(t: DType): t is IntType {
  return t in RANGES;
}

export function rangeOf(t: IntType): IntRange {
  return RANGES[t];
}

export function bytesOf(t: DType): number {
  switch (t) {
    case 'int8': case 'uint8': case 'bool': return 1;
    case 'int16': case 'uint16': return 2;
    case 'int32': case 'uint32': case 'float32': return 4;
    case 'int64': case 'float64': return 8;
  }
}

export function isSigned(t: IntType): boolean {
  return RANGES[t].min < 0;
}

/**
 * The device type of a tensor: the narrowest of int8, uint8, int16, int32 that holds [min, max]
 * (deeploy-tests README). Signed wins over unsigned at equal width only when a value is negative.
 */
export function narrowestType(r: IntRange): IntType {
  for (const t of ['int8', 'uint8', 'int16', 'int32'] as const) {
    if (r.min >= RANGES[t].min && r.max <= RANGES[t].max) return t;
  }
  return 'int64';
}

/** Range of values in a buffer. */
export function rangeOfValues(values: ArrayLike<number>): IntRange {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (values.length === 0) return { min: 0, max: 0 };
  return { min, max };
}

export function unionRange(a: IntRange, b: IntRange): IntRange {
  return { min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) };
}

/** C spelling of a device type. */
export function cType(t: DType): string {
  switch (t) {
    case 'float32': return 'float';
    case 'float64': return 'double';
    case 'bool': return 'uint8_t';
    default: return `${t}_t`;
  }
}

/** AssemblyScript spelling of a device type (for load<T>/store<T>). */
export function asType(t: DType): string {
  switch (t) {
    case 'int8': return 'i8';
    case 'uint8': case 'bool': return 'u8';
    case 'int16': return 'i16';
    case 'uint16': return 'u16';
    case 'int32': return 'i32';
    case 'uint32': return 'u32';
    case 'int64': return 'i64';
    case 'float32': return 'f32';
    case 'float64': return 'f64';
  }
}
