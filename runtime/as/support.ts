// Arithmetic helpers kernels share (the AS twin of the fg_* functions in runtime/c/include/firmgen_hal.h).

/** A decoder's rows written so far: entries 0..pos of an extent of n, at least one, at most n (FG_ENTRIES_TO, firmgen_hal.h). */
export function fg_entries_to(pos: i32, n: i32): i32 {
  return min(max(pos + 1, 1), n);
}

/** floor(sqrt(v)) for v >= 0, exact for every 64-bit value: bit-by-bit, no floating point. */
export function fg_isqrt64(v: i64): i64 {
  if (v <= 0) return 0;
  let x = <u64>v;
  let r: u64 = 0;
  let bit: u64 = (<u64>1) << 62;
  while (bit > x) bit >>= 2;
  while (bit != 0) {
    if (x >= r + bit) {
      x -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
    bit >>= 2;
  }
  return <i64>r;
}
