// One DMA transfer as the engine sees it, and the walk over its bytes that both times it and, at completion, copies
// it. Kept apart from dma.ts (the device API) so the byte-stream geometry lives in one place.
//
// A transfer is a stream of `bytes` bytes. Each side is either contiguous (length 0) or 2-D: rows of `length`
// bytes whose starts are `stride` bytes apart, the last row possibly shorter (mchan v7 splits the stream the same
// way: Deeploy mchan_v7.h, pulp-sdk plp_dma_*_2d "length: bytes after which the DMA switches to the next line").
// A piece is a run of bytes contiguous on both sides; it ends where a row ends on either side.

/** Record of a pending transfer, in the static pool of dma.ts (the emulator never allocates). */
@unmanaged export class Transfer {
  /** Channel id; -1 marks a free slot. */
  channel: i32;
  agent: i32;
  /** The event record's detail word: command bits and channel (events.ts). */
  detail: i32;
  bytes: i32;
  toL1: i32;
  /** 1 once the data has been copied to the destination. */
  landed: i32;
  layer: i32;
  l1Length: i32;
  l1Stride: i32;
  extLength: i32;
  extStride: i32;
  l1: usize;
  ext: usize;
  /** Issue order: transfers completing at the same cycle land in the order they were issued. */
  seq: i64;
  /** Completion time, Q16 cycles. */
  end: i64;
}

/** Bytes a record occupies in the pool; dma.ts checks offsetof<Transfer>() against it at configure. */
export const RECORD_BYTES: i32 = 80;

/**
 * Bytes from the first to one past the last byte a side touches: rows of `length` (0: contiguous) every `stride`
 * bytes. With a stride shorter than a row the next-to-last row can reach further than the last, shorter one.
 */
export function extentOf(bytes: i32, length: i32, stride: i32): i64 {
  if (length <= 0 || length >= bytes) return bytes;
  const rows = <i64>((bytes + length - 1) / length);
  const last = <i64>bytes - (rows - 1) * <i64>length;
  const reach = (rows - 1) * <i64>stride + last;
  const before = (rows - 2) * <i64>stride + <i64>length;
  return max(reach, before);
}

/**
 * Walks the transfer piece by piece. Returns its data cycles: each piece takes ceil(piece / bytesPerCycle) cycles,
 * since a piece is its own burst and a partly filled port cycle is still a cycle (docs/timing.md, "Cluster DMA").
 * With `copy`, also moves each piece from source to destination as the source is now.
 */
export function walk(t: Transfer, bytesPerCycle: i32, copy: bool): i64 {
  let cycles: i64 = 0;
  let done: i32 = 0;
  while (done < t.bytes) {
    let piece = t.bytes - done;
    let l1 = t.l1 + <usize>done;
    let ext = t.ext + <usize>done;
    if (t.l1Length > 0) {
      const col = done % t.l1Length;
      l1 = t.l1 + <usize>(done / t.l1Length) * <usize>t.l1Stride + <usize>col;
      piece = min(piece, t.l1Length - col);
    }
    if (t.extLength > 0) {
      const col = done % t.extLength;
      ext = t.ext + <usize>(done / t.extLength) * <usize>t.extStride + <usize>col;
      piece = min(piece, t.extLength - col);
    }
    if (copy) {
      if (t.toL1 != 0) memory.copy(l1, ext, <usize>piece);
      else memory.copy(ext, l1, <usize>piece);
    }
    cycles += <i64>((piece + bytesPerCycle - 1) / bytesPerCycle);
    done += piece;
  }
  return cycles;
}
