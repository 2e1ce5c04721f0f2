// The cluster DMA, shaped like the mchan v7 driver the board uses (Deeploy mchan_v7.h; the C twin is hal_dma_* in
// runtime/c/include/firmgen_hal.h). Contract and timing: docs/firmware-abi.md ("Cluster DMA"), docs/timing.md.
//
//   const ch = dma_channel_alloc();            // the core's active channel: following copies count on it
//   dma_copy_1d(ch, l1Buf, l2Src, n, true);    // returns at once; the data is NOT there yet
//   ... other work ...
//   dma_wait(ch);                              // sleeps until every copy on ch is done: now the data has landed
//   dma_channel_free(ch);
//
// Addresses are linear (memory.ts: region_base / chip_to_linear). `l1` must lie in L1, `ext` in L2 (L3: l3.ts). At most
// 131071 bytes per copy. A copy may only name the channel its core allocated last (on the chip the command counts on
// that channel whatever the driver is told). Every copy must be waited for before its data is used, before its
// source is overwritten, before its channel is freed and before the firmware ends: the emulator faults or shows
// stale data otherwise.

import * as chip from "./chip";

/** A free channel (0..15), made the calling core's active channel. */
export function dma_channel_alloc(): i32 {
  return chip.dma_alloc();
}

/** Returns the channel; every copy on it must have been waited for. */
export function dma_channel_free(ch: i32): void {
  chip.dma_free(ch);
}

/** Copies `bytes` contiguous bytes: external (L2) to L1 when `toL1`, else L1 to external. */
export function dma_copy_1d(ch: i32, l1: usize, ext: usize, bytes: i32, toL1: bool): void {
  chip.dma_copy(ch, l1, ext, bytes, toL1 ? 1 : 0, 0, 0, 0, 0);
}

/**
 * 2-D on the external side (mchan command bit 19): the external bytes are rows of `length` bytes whose starts are
 * `stride` bytes apart; L1 is contiguous. `bytes` is the total (rows x length; a shorter last row is allowed).
 */
export function dma_copy_2d(ch: i32, l1: usize, ext: usize, bytes: i32, stride: i32, length: i32, toL1: bool): void {
  chip.dma_copy(ch, l1, ext, bytes, toL1 ? 1 : 0, length, stride, 0, 0);
}

/** 2-D on the L1 side (bit 23): rows of `length` bytes every `stride` bytes in L1; the external side contiguous. */
export function dma_copy_2d_l1(ch: i32, l1: usize, ext: usize, bytes: i32, stride: i32, length: i32, toL1: bool): void {
  chip.dma_copy(ch, l1, ext, bytes, toL1 ? 1 : 0, 0, 0, length, stride);
}

/** 2-D on both sides (bits 19 and 23), each with its own row length and stride. */
export function dma_copy_2d_both(
  ch: i32, l1: usize, ext: usize, bytes: i32,
  extStride: i32, extLength: i32, l1Stride: i32, l1Length: i32, toL1: bool,
): void {
  chip.dma_copy(ch, l1, ext, bytes, toL1 ? 1 : 0, extLength, extStride, l1Length, l1Stride);
}

/** Waits for every copy issued on the channel. */
export function dma_wait(ch: i32): void {
  chip.dma_wait(ch);
}
