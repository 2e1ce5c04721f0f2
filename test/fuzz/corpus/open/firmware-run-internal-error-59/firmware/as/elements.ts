// Reading the DRAM image and tensors of any element type, shared by the scheduler, the worker and every layer
// (type codes of generator/platforms/spinnaker2: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32).

/** The 32-bit word at byte offset `off` of a configuration block. */
@inline export function word(p: usize, off: u32): u32 {
  return load<u32>(p + <usize>off);
}

/** Bytes of one element of type code `t`. */
@inline export function typeBytes(t: u32): u32 {
  return t < 2 ? 1 : t < 4 ? 2 : 4;
}

/** Element `j` of an array of type code `t` at `p`, widened exactly to 64 bits. */
export function loadElement(t: u32, p: usize, j: i32 = 0): i64 {
  if (t == 0) return <i64>load<u8>(p + <usize>j);
  if (t == 1) return <i64>load<i8>(p + <usize>j);
  if (t == 2) return <i64>load<u16>(p + (<usize>j << 1));
  if (t == 3) return <i64>load<i16>(p + (<usize>j << 1));
  if (t == 4) return <i64>load<u32>(p + (<usize>j << 2));
  return <i64>load<i32>(p + (<usize>j << 2));
}

/** Stores the low bits of `v` as element `j` of type code `t` (the caller made sure the value fits). */
export function storeElement(t: u32, p: usize, v: i64, j: i32 = 0): void {
  if (t < 2) store<u8>(p + <usize>j, <u8>v);
  else if (t < 4) store<u16>(p + (<usize>j << 1), <u16>v);
  else store<u32>(p + (<usize>j << 2), <u32>v);
}
