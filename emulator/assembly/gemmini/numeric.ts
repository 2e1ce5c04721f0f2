// Gemmini's number formats (SEMANTICS.md 3 "Gemmini"; gemmini_params.h ACC_SCALE / MVIN_SCALE / ROUNDING_RIGHT_SHIFT
// of the default int8 configuration). wasm's f32 operations are IEEE binary32 with round-to-nearest-even, as the
// hardware's float units and the C macros: int32 -> f32 rounds, the product rounds, f32.nearest rounds half to even.

// @ts-ignore: decorator
@inline function satInt8(y: f32): i32 {
  return y > 127 ? 127 : y < -128 ? -128 : <i32>y;
}

/** mvout from the accumulator: sat_int8(round_half_even(f32(x) * scale)). The scale is finite (config checks). */
export function accScale(x: i32, scale: f32): i32 {
  return satInt8(nearest<f32>(<f32>x * scale));
}

/** mvin of int8 data: the same rounding and saturation (MVIN_SCALE); the accumulator's int32 mvin is not scaled. */
export function mvinScale(x: i32, scale: f32): i32 {
  return satInt8(nearest<f32>(<f32>x * scale));
}

/**
 * The output-stationary shift when the array writes the scratchpad: a right shift rounding half to even, then
 * saturation to int8. `shift` is 0..31 (config_ex checks).
 */
export function sysShift(x: i32, shift: i32): i32 {
  let y = x;
  if (shift > 0) {
    const q = x >> shift;
    const half = (x >> (shift - 1)) & 1;
    const rest = (x & ((1 << (shift - 1)) - 1)) != 0 ? 1 : 0;
    y = q + (half & (rest | (q & 1)));
  }
  return y > 127 ? 127 : y < -128 ? -128 : y;
}

/** ReLU on an int8 result (activation 1); 0 is none. */
// @ts-ignore: decorator
@inline export function activate(x: i32, act: i32): i32 {
  return act == 1 && x < 0 ? 0 : x;
}
