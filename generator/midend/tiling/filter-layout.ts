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
 * than a multiple of 8 is odd, so coprime with 16: 576 -> 580, 288 -> 292, 128 -> 132, 32 -> 36; 36, 48 stay.
 * A filter that is not a whole number of words is padded to one (27 -> 28, a 3-channel 3x3 conv): every row then
 * starts on a word, so the kernel's filter loads are aligned (a misaligned word load takes two bus accesses on the
 * core), and its last 1..3 taps ride the hardware loop as one more word (conv.c; measured on the ISS, a 3->16
 * 32x32 conv on 8 cores: 82,824 -> 73,038 cycles).
 */
export function paddedFilterStride(filterBytes: number): number {
  if (filterBytes % 4 === 0 && filterWordsApart(filterBytes)) return filterBytes;
  let stride = Math.ceil(filterBytes / 4) * 4;
  while (!filterWordsApart(stride)) stride += 4;
  return stride;
}

/**
 * A weight operand in L1 as rows, each `stride` bytes after the previous one: a dense conv's filters (one row per
 * output channel) or a tiled GEMM's B (one row per k, or per n with transB; gemmRowLayoutOf).
 */
export interface FilterLayout {
  /** Bytes of one row: an output channel's filter (CIG x KH x KW elements), or a row of B. */
  filterBytes: number;
  /** L1 bytes from one row to the next (>= filterBytes). */
  stride: number;
  /** The stride in weight elements, what the kernel indexes with. */
  strideElements: number;
  /**
   * The tensor's dims before the row (GEMM B: its batch dims and its row count), when a box's rows are indexed by
   * more than its first dim. Absent: the box's first dim counts the rows and the rest is one row (conv filters).
   */
  outer?: readonly number[];
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

/** Rows of a box in the layout: its first dim, or with `outer`, the product of its dims before the row. */
export function boxRows(layout: FilterLayout, box: Box): number {
  const lead = layout.outer ? layout.outer.length : 1;
  return box.size.slice(0, lead).reduce((a, b) => a * b, 1);
}

/**
 * The padded L1 layout of a tiled GEMM's B, or undefined for the dense one. Each core reads two B words per
 * iteration (streams.ts GEMM_LOOP). Without transB, B is k-major (B[k, n]) and both streams step down B's rows,
 * `stride` bytes per iteration: a stride of s words with s = 0 mod 16 (rows a multiple of 64 bytes) keeps each
 * stream in one bank for good, and as the cores read the same B (they split rows of A) it is every core's bank,
 * however they are skewed; it serves one request a cycle and they stall. With transB the streams step 4 bytes along
 * B's rows (k-contiguous), and when the cores split a row of A into column slices (gemmSplit, fewer rows than
 * cores) each starts on its own B row: rows a multiple of 64 bytes apart start every core in the same bank, and
 * stepping in step they stay there (Regular_RQPerColumn, B [10, 1024]: 21831 -> 63379 cycles with the bank model).
 * The filters' rule covers both (paddedFilterStride: s mod 8 != 0, one word more than a multiple of 8 words, odd,
 * so coprime with 16): a k-major stream then walks all 16 banks, so once the first stalls have skewed the cores
 * they sit in different banks; transB rows j apart start j x s mod 16 banks apart, distinct for the 8 cores.
 * When the cores read the same B columns in step (transB, rows >= cores) the padding changes nothing (GEMM/Regular,
 * K = 32 -> 36: the same stall cycles) and costs only the row-by-row DMA bursts.
 * Only when the box's rows are whole rows of the tensor (B's last dim not split): the L2 side is then contiguous
 * and the L1 side takes the 2-D command, as the filters do.
 */
export function gemmRowLayoutOf(node: Node, graph: Graph, kernel: KernelDef, box: Box): FilterLayout | undefined {
  if ((node.op !== 'Gemm' && node.op !== 'MatMul') || kernel.name !== 'gemm' || kernel.engine !== 'cores') return undefined;
  // B also read as A or C (MatMul(x, x)): one L1 copy, which A's indexing needs dense.
  if (node.inputs.some((t, i) => i !== 1 && t === node.inputs[1])) return undefined;
  const b = tensorOf(graph, node.inputs[1]);
  const r = b.shape.length;
  if (r < 2 || box.size.length !== r || box.size[r - 1] !== b.shape[r - 1]) return undefined;
  const e = bytesOf(b.dtype);
  const filterBytes = b.shape[r - 1] * e;
  // Rows that are not whole words already drift across banks from one k to the next; rows under a word would be
  // padded for nothing (several k share a word).
  if (filterBytes % 4 !== 0) return undefined;
  const stride = paddedFilterStride(filterBytes);
  if (stride === filterBytes || filterBytes > MAX_TRANSFER || stride % e !== 0) return undefined;
  return { filterBytes, stride, strideElements: stride / e, outer: b.shape.slice(0, r - 1) };
}

/** The padded layout of a tile's weight operand (inputs[1]) for any kernel that has one: conv filters, GEMM's B. */
export function weightLayoutOf(node: Node, graph: Graph, kernel: KernelDef, box: Box): FilterLayout | undefined {
  return filterLayoutOf(node, graph, kernel) ?? gemmRowLayoutOf(node, graph, kernel, box);
}

/**
 * The commands that copy a weight box (whole filters of channels [start, start + n)) from the contiguous tensor in
 * L2 into the padded L1 layout: 2-D on the L1 side (mchan bit 23), rows of one filter every `stride` bytes, as many
 * whole rows per command as the 17-bit length field allows.
 */
export function paddedTransfers(layout: FilterLayout, box: Box): Transfer[] {
  const { filterBytes, stride } = layout;
  const out: Transfer[] = [];
  // A run of `count` rows contiguous in L2 from row `first`, landing at L1 row `at`.
  const run = (first: number, count: number, at: number): void => {
    const perCmd = Math.max(1, Math.floor(MAX_TRANSFER / filterBytes));
    for (let c = 0; c < count; c += perCmd) {
      const n = Math.min(perCmd, count - c);
      out.push({
        ext: (first + c) * filterBytes, l1: (at + c) * stride, bytes: n * filterBytes,
        stride: 0, length: filterBytes, l1Stride: n > 1 ? stride : 0,
      });
    }
  };
  const outer = layout.outer;
  if (!outer) {
    run(box.start[0], box.size[0], 0);
    return out;
  }
  // GEMM B: the box's last outer dim (B's rows) runs contiguous in L2; its batch dims step through the tensor.
  const lead = outer.length;
  const count = box.size[lead - 1];
  const idx = new Array<number>(lead - 1).fill(0);
  for (let at = 0; ; at += count) {
    let first = 0;
    for (let d = 0; d < lead; d++) first = first * outer[d] + box.start[d] + (d < lead - 1 ? idx[d] : 0);
    run(first, count, at);
    let d = lead - 2;
    for (; d >= 0; d--) {
      if (++idx[d] < box.size[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
  return out;
}
