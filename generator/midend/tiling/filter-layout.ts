import { attrInt } from '../../ir/attrs.js';
import { bytesOf } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import type { Box } from './box.js';
import { MAX_TRANSFER, type Transfer } from './transfers.js';

/** L1 has 16 word-interleaved banks: bank = (addr >> 2) & 15 (HARDWARE.md "L1 (TCDM)"); 64 bytes per round. */
const BANKS = 16;
const ROUND = BANKS * 4;

/**
 * True when, with filter rows `stride` bytes apart, the 4 filter words one iteration of pulp-nn's 4x2 loop reads
 * (channels j = 0..3, at byte a + j * stride, the word at (addr >> 2)) are in 4 different banks wherever a lies.
 * Channels j and j + d (d = 1, 2, 3) share a bank iff floor((r + d * stride) / 4) = 0 mod 16 for r = a mod 4,
 * i.e. iff d * stride mod 64 lies in [0, 3] - r; over every r in 0..3: iff it lies in [61, 63] or [0, 3].
 */
export function filterWordsApart(stride: number): boolean {
  for (let d = 1; d <= 3; d++) {
    const m = (d * stride) % ROUND;
    if (m < 4 || m > ROUND - 4) return false;
  }
  return true;
}

/**
 * The L1 row stride, in bytes, of one output channel's filter of `filterBytes` bytes in a tiled dense conv: the
 * dense stride when its 4 filter words already fall in 4 banks (filterWordsApart), else the smallest word-aligned
 * stride above it that puts them there. For a word-aligned stride of s words the condition is s mod 8 != 0: with
 * s = 0 mod 16 (filters a multiple of 64 bytes) all 4 words of every core are in one bank (32 requests per 14-cycle
 * iteration on 8 cores), with s = 8 mod 16 in two (up to 16): more than a bank serves, the cores stall. With 4
 * distinct banks a bank gets at most one filter word per core per iteration (8), which it can serve. One word more
 * than a multiple of 8 is odd, so coprime with 16: 576 -> 580, 288 -> 292, 128 -> 132, 32 -> 36; 36, 48, 27 stay.
 */
export function paddedFilterStride(filterBytes: number): number {
  if (filterWordsApart(filterBytes)) return filterBytes;
  let stride = Math.ceil(filterBytes / 4) * 4;
  while (!filterWordsApart(stride)) stride += 4;
  return stride;
}

/** A dense conv's weights in L1 with each output channel's filter `stride` bytes after the previous one. */
export interface FilterLayout {
  /** Bytes of one output channel's filter (CIG x KH x KW elements). */
  filterBytes: number;
  /** L1 bytes from one channel's filter to the next (>= filterBytes). */
  stride: number;
  /** The stride in weight elements, what the kernel indexes with. */
  strideElements: number;
}

/**
 * The padded L1 layout of the weights of a layer run by the cores' conv kernel with pulp-nn's dense loop, or
 * undefined when the dense layout is kept: other ops and kernels, depthwise convs (one filter word per iteration,
 * no 4-channel pattern), filters whose dense stride is already conflict-free, rows too long for one DMA row.
 */
export function filterLayoutOf(node: Node, graph: Graph, kernel: KernelDef): FilterLayout | undefined {
  if (node.op !== 'Conv' || kernel.name !== 'conv2d' || kernel.engine !== 'cores') return undefined;
  const w = tensorOf(graph, node.inputs[1]);
  const cig = w.shape[1];
  if (cig === 1 && attrInt(node, 'group', 1) > 1) return undefined;
  const e = bytesOf(w.dtype);
  const filterBytes = w.shape.slice(1).reduce((a, b) => a * b, 1) * e;
  const stride = paddedFilterStride(filterBytes);
  if (stride === filterBytes || filterBytes > MAX_TRANSFER || stride % e !== 0) return undefined;
  return { filterBytes, stride, strideElements: stride / e };
}

/** L1 bytes of a weight box of `channels` output channels in the padded layout. */
export function paddedBytes(layout: FilterLayout, channels: number): number {
  return channels * layout.stride;
}

/**
 * The commands that copy a weight box (whole filters of channels [start, start + n)) from the contiguous tensor in
 * L2 into the padded L1 layout: 2-D on the L1 side (mchan bit 23), rows of one filter every `stride` bytes, as many
 * whole rows per command as the 17-bit length field allows.
 */
export function paddedTransfers(layout: FilterLayout, box: Box): Transfer[] {
  const { filterBytes, stride } = layout;
  const channels = box.size[0];
  const perCmd = Math.max(1, Math.floor(MAX_TRANSFER / filterBytes));
  const out: Transfer[] = [];
  for (let c = 0; c < channels; c += perCmd) {
    const n = Math.min(perCmd, channels - c);
    out.push({
      ext: (box.start[0] + c) * filterBytes, l1: c * stride, bytes: n * filterBytes,
      stride: 0, length: filterBytes, l1Stride: n > 1 ? stride : 0,
    });
  }
  return out;
}
