// Gemmini's private memories and the per-row timing tables, in linear memory just after the chip's regions. They are
// not in the region table: the host cannot address them (check() rejects them), only RoCC commands reach them.
// Placed at configure time, because the emulator's static window (below the event log) has no room for 320 KiB.

import { placePrivate } from "../regions";
import { ACC_ROWS, DIM, SPAD_ROWS } from "../chips/gemmini";

export const SPAD_ROW_BYTES: i32 = DIM;
export const ACC_ROW_BYTES: i32 = DIM * 4;
/** Timing table slots: one per scratchpad row, then one per accumulator row. */
export const SLOTS: i32 = SPAD_ROWS + ACC_ROWS;
/** Units whose accesses the hazard tables record separately (timing.ts). */
export const UNITS: i32 = 3;

const SPAD_BYTES: usize = <usize>SPAD_ROWS * <usize>SPAD_ROW_BYTES;
const ACC_BYTES: usize = <usize>ACC_ROWS * <usize>ACC_ROW_BYTES;
/** The array's PE registers: WS weights (int8 values) or OS partial sums (int32), DIM x DIM int32. */
const PE_BYTES: usize = <usize>(DIM * DIM * 4);
/** Per unit, per row: the cycle its last read ended and the cycle its last write ended (i64). */
const TIMES_BYTES: usize = <usize>UNITS * 2 * <usize>SLOTS * 8;

export let spadBase: usize = 0;
export let accBase: usize = 0;
export let peBase: usize = 0;
export let timesBase: usize = 0;
let placed = false;

/** Places the private area after the last region and clears it (configure calls this after placeRegions). */
export function placeGemmini(): void {
  spadBase = placePrivate(SPAD_BYTES + ACC_BYTES + PE_BYTES + TIMES_BYTES, "Gemmini's scratchpad and accumulator");
  accBase = spadBase + SPAD_BYTES;
  peBase = accBase + ACC_BYTES;
  timesBase = peBase + PE_BYTES;
  placed = true;
}

export function resetGemminiState(): void {
  placed = false;
}

export function gemminiPlaced(): bool {
  return placed;
}

// @ts-ignore: decorator
@inline export function spadRow(row: i32): usize {
  return spadBase + <usize>row * <usize>SPAD_ROW_BYTES;
}

// @ts-ignore: decorator
@inline export function accRow(row: i32): usize {
  return accBase + <usize>row * <usize>ACC_ROW_BYTES;
}

/** PE register (i, j): row i of the array, column j. */
// @ts-ignore: decorator
@inline export function pe(i: i32, j: i32): usize {
  return peBase + (<usize>(i * DIM + j) << 2);
}

/** Address of the i64 time of (unit, write?, slot). */
// @ts-ignore: decorator
@inline export function timeSlot(unit: i32, write: i32, slot: i32): usize {
  return timesBase + ((<usize>((unit * 2 + write) * SLOTS + slot)) << 3);
}

// --- runtime and test exports ---

/** Linear address of scratchpad row 0 (rows of 16 int8), for tests and debugging. */
export function gemmini_spad_ptr(): usize {
  return spadBase;
}

/** Linear address of accumulator row 0 (rows of 16 int32). */
export function gemmini_acc_ptr(): usize {
  return accBase;
}
