// Gemmini local addresses (gemmini README "Memory Addressing Scheme"; LocalAddr.scala): bit 31 selects the
// accumulator, bit 30 accumulates on a write to it, bit 29 reads it raw (int32, no scale or activation), bits 28..26
// are the I-BERT normalisation command of an accumulator read; the row is below. The garbage address (gemmini.h
// GARBAGE_ADDR, all ones; the hardware recognises bits 31..29 and bits 14..0 all set) reads zeros and writes nothing.

import { ACC_ROWS, SPAD_ROWS } from "../chips/gemmini";
import { failLocal } from "./faults";

export const GARBAGE_ADDR: u32 = 0xffff_ffff;

export function isGarbage(a: u32): bool {
  return (a >> 29) == 7 && (a & 0x7fff) == 0x7fff;
}

export function isAcc(a: u32): bool {
  return (a >> 31) != 0;
}

export function accumulates(a: u32): bool {
  return ((a >> 30) & 1) != 0;
}

export function readsRaw(a: u32): bool {
  return ((a >> 29) & 1) != 0;
}

/** The normalisation command bits of an mvout address (not modelled: mvout faults unless 0). */
export function normCmd(a: u32): i32 {
  return <i32>((a >> 26) & 7);
}

/** The row an address names: bits 28..0 (bits 28..26 are 0 on every modelled command, so no row is lost). */
export function rowOf(a: u32): i32 {
  return <i32>(a & 0x1fff_ffff);
}

/** Timing-table slot of a row (state.ts): scratchpad rows first, then accumulator rows. */
// @ts-ignore: decorator
@inline export function slotOf(acc: bool, row: i32): i32 {
  return acc ? SPAD_ROWS + row : row;
}

/**
 * The rows from the address's row to `lastOffset` rows after it must lie in the memory the address names. A first
 * row outside is "outside the scratchpad/accumulator"; a later one is a row overflow.
 */
export function checkRows(cmd: string, local: u32, lastOffset: i64): void {
  const acc = isAcc(local);
  const cap: i64 = acc ? ACC_ROWS : SPAD_ROWS;
  const first: i64 = rowOf(local);
  if (first >= cap) {
    failLocal(cmd, acc ? "address outside the accumulator" : "address outside the scratchpad", local, first, acc);
  }
  const last = first + lastOffset;
  if (last >= cap) failLocal(cmd, "row overflow", local, last, acc);
}
