// Arithmetic helpers kernels share (the AS twin of the fg_* functions in runtime/c/include/firmgen_hal.h).

/** Values fg_clip_count has clamped since the last fg_clips_taken. */
let clipsTaken: i32 = 0;

/**
 * x clamped to [lo, hi], counting the values it changes: the C's clamp without p.clip (firmgen_simd.h fg_clip) takes
 * a branch to an out-of-line block for them, a cost that follows the data (CLIP_TAKEN).
 */
// @ts-ignore: decorator
@inline export function fg_clip_count(x: i32, lo: i32, hi: i32): i32 {
  if (<u32>(x - lo) > <u32>(hi - lo)) {
    clipsTaken++;
    return x < lo ? lo : hi;
  }
  return x;
}

/** The count of clamped values since the last call, reset. */
export function fg_clips_taken(): i32 {
  const n = clipsTaken;
  clipsTaken = 0;
  return n;
}

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
