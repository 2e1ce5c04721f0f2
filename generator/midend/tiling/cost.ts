import { attrInt, attrInts } from '../../ir/attrs.js';
import { tensorOf, type Graph, type Node } from '../../ir/graph.js';
import type { ExtraWork, KernelDef } from '../../kernels/types.js';
import { gemmBusiestColumns, gemmOutputOps } from '../../kernels/gemm.js';
import { valueRange } from '../../kernels/common.js';
import { elementCharges, elementOps } from '../../kernels/elementwise.js';
import { pooledInPairs } from '../../kernels/pool.js';
import { simdOutClass } from '../../kernels/conv.js';
import { iSoftmaxSumEstimate, iSoftmaxWideCharges } from '../../kernels/softmax.js';
import { rmsReciprocal, rmsWideSum } from '../../kernels/norm.js';
import { wordsPerElement } from '../../kernels/copy-words.js';
import type { Platform } from '../../platforms/types.js';

/**
 * Cycles a kernel spends on one tile, from the same per-unit costs the emulator charges (platform.costs):
 * the work split over the cores, the call overhead, and the two barriers around each tile.
 */
export interface TileWork {
  macs: number;
  outputs: number;
  /** The busiest core's fraction of the work (busiestShare): it sets the tile's time. */
  busiest: number;
  /** Work besides (KernelDef.extraWork: a convolution's SIMD units and im2col gather). */
  extra?: ExtraWork;
  /** The busiest core's cycles for the tile's MACs, where the kernel counts them (KernelDef.tileMacCycles). */
  macCycles?: number;
}

/**
 * The busiest core's share of a tile's work, as the kernel splits it (share_begin/share_end: contiguous chunks of
 * ceil(units / cores)): element by element (elementwise), by rows or row slices (GEMM, gemmSplit), by whole rows.
 */
export function busiestShare(kernel: KernelDef, outShape: readonly number[], cores: number): number {
  const elems = outShape.reduce((a, b) => a * b, 1);
  if (elems === 0) return 0;
  if (kernel.name === 'gemm' && outShape.length > 0) {
    const N = outShape[outShape.length - 1];
    return gemmBusiestColumns(elems / N, N, cores) / elems;
  }
  const units = kernel.name === 'elementwise' || outShape.length === 0 ? elems : elems / outShape[outShape.length - 1];
  return Math.ceil(units / cores) / units;
}

export function computeCycles(kernel: KernelDef, node: Node, work: TileWork, p: Platform, graph: Graph, tile?: { node: Node; graph: Graph }): number {
  const c = p.costs;
  if (kernel.tileCycles && tile) return kernel.tileCycles(tile, p);
  let perMac = 0;
  let perOut = 0;
  switch (kernel.name) {
    case 'conv2d':
      perMac = attrInt(node, 'group', 1) > 1 ? c.MAC_DW : c.MAC_CONV;
      break;
    case 'gemm':
      // Its MACs by the loops its C takes come as work.macCycles (gemm-tile-cost.ts): a GEMM with K under 4 or 16-bit
      // operands runs the scalar loop at ~10x the SIMD's cost a MAC (EEGFormer's q.kT, K = 2, was planned at the
      // SIMD's 0.44 a MAC: 47,479 estimated, 95,350 ISS cycles).
      perMac = c.MAC_GEMM;
      perOut = gemmOutputOps(node) * c.ELEM_OP;
      break;
    case 'maxpool':
      perOut = pooledInPairs(node) ? c.POOL_PAIR / 2 : c.POOL_TAP * attrInts(node, 'kernel_shape', [1]).reduce((a, b) => a * b, 1);
      break;
    case 'isoftmax': {
      // As the AS charges an entry (isoftmax.ts.mustache), with the extras of its words (the node's, whatever the tile).
      const wide = iSoftmaxWideCharges(node, graph);
      const division = p.divisionCycles ? p.divisionCycles(iSoftmaxSumEstimate(node, graph)) : c.DIV;
      perOut = c.SOFTMAX_ELEM + division + (wide.chain ? c.SOFTMAX_WIDE : 0) + (wide.sum ? c.SOFTMAX_SUM_WIDE : 0) + (wide.recip ? c.SOFTMAX_RECIP : 0) + (wide.zDiv ? c.SOFTMAX_ZDIV : 0);
      break;
    }
    case 'tablesoftmax':
      perOut = c.TSOFTMAX_ELEM; // as the AS charges an entry (table-softmax.ts.mustache)
      break;
    case 'qlayernorm':
      // An entry and, where the tile's graph says how long a row is, its share of the row (qlayernorm.ts.mustache).
      perOut = c.QNORM_ELEM + (tile ? c.QNORM_ROW / Math.max(1, tensorOf(tile.graph, node.outputs[0]).shape.at(-1) ?? 1) : 0);
      break;
    case 'itamax': case 'itapartialmax':
      perOut = c.SOFTMAX_ELEM + 2 * c.DIV;
      break;
    case 'irmsnorm': {
      // As rmsnorm.ts.mustache charges: an entry, its division where the C divides, and its share of the row's own work.
      const len = tile ? tensorOf(tile.graph, node.outputs[0]).shape.at(-1) ?? 1 : 1;
      perOut = c.NORM_ELEM + (rmsReciprocal(node, graph) ? 0 : c.DIV) + (rmsWideSum(node, graph) ? c.NORM_SUM_WIDE : 0)
        + (tile ? c.NORM_ROW / Math.max(1, len) : 0);
      break;
    }
    case 'ilayernorm':
      perOut = c.NORM_ELEM + c.DIV;
      break;
    case 'copy':
      // A copy the tile's parts move in words (copy-words.ts) charges MOVE_ELEM a word.
      perOut = c.MOVE_ELEM / (tile ? wordsPerElement(tile.node, tile.graph) : 1);
      break;
    case 'gather':
      perOut = c.LOOKUP; // a table's entry (the tiled Gathers are tables: specs.ts tableSpec)
      break;
    case 'elementwise': {
      // The planner has no operand shapes here: every operand counts as streamed (the emulator's charge counts
      // only the ones that vary, kernels/elementwise.ts elementOps); with the tile's graph, the operands' ranges
      // leave out the clamps the C does not run, as the emulator's charge does (elementCharges).
      const ch = !node.expr ? { ops: 0, clampTests: 0, loads: 0 }
        : tile ? elementCharges(node.expr, tile.node.inputs.map((n) => valueRange(tensorOf(tile.graph, n))), node.inputs.map(() => [1]), !p.image?.xpulp, tensorOf(tile.graph, tile.node.outputs[0]).dtype)
        : elementOps(node.expr, node.inputs.map(() => [1]));
      perOut = c.ELEMENT + ch.ops * c.ELEM_OP + ch.clampTests * c.CLIP_TEST + ch.loads * c.ELEM_LOAD;
      break;
    }
    default:
      perOut = c.ELEMENT;
  }
  const x = work.extra;
  // The SIMD conv's output stage (kernels/conv.ts simdOutClass); the scalar paths' and the GEMM's is REQUANT.
  if (node.requant) perOut += x && x.units > 0 ? c[simdOutClass(p)] : c.REQUANT;
  const extra = x ? x.bytes * c.COPY_BYTE + x.words * c.GATHER_WORD + x.rows * c.GATHER_ROW + x.quads * c.GATHER_QUAD + x.units * c.CONV_UNIT + x.blocks * c.CONV_BLOCK + x.accs * c.CONV_ACC + x.padMacs * perMac : 0;
  // A tile's fixed work: its kernel call on every core (CALL) and its driving by core 0 (TILE), beside the barriers.
  const macs = work.macCycles ?? work.macs * perMac * work.busiest;
  return c.CALL + c.TILE + macs + (work.outputs * perOut + extra) * work.busiest + 2 * c.barrier;
}

/**
 * Cycles of one DMA group: every transfer pays the latency, bytes stream at the DMA's rate. With `rowBytes`, the
 * bytes go in rows of that length (a 2-D side), each its own burst: a partly filled port cycle is still a cycle.
 */
export function dmaCycles(p: Platform, bytes: number, transfers: number, rowBytes = 0): number {
  if (!p.tiling || transfers === 0) return 0;
  const rate = p.tiling.dma.bytesPerCycle;
  if (rowBytes <= 0) return transfers * p.tiling.dma.latency + bytes / rate;
  const rows = Math.floor(bytes / rowBytes);
  const rest = bytes - rows * rowBytes;
  return transfers * p.tiling.dma.latency + rows * Math.ceil(rowBytes / rate) + Math.ceil(rest / rate);
}

/**
 * The tile loop's cycles from its tiles' compute (each) and DMA (the first tile's fetch, all fetches, all stores).
 * Single buffering waits for every transfer. Double buffering: the first tile's inputs arrive before it computes,
 * every later tile's while the one before it computes (its write-back beside them), the last tile's output after
 * it. A layer whose weights come whole with the first tile waits for all of them (an average fetch, counted before,
 * hid that: MobileNetV1's last pointwise conv took one 64 KB weight tile where two of 32 KB ran 2,600 ISS cycles
 * faster).
 */
export function loopCycles(total: number, compute: number, dma: { firstIn: number; dmaIn: number; dmaOut: number }, double: boolean): number {
  if (!double) return total * compute + dma.dmaIn + dma.dmaOut;
  const out = dma.dmaOut / total;
  const overlapped = total > 1
    ? (total - 1) * Math.max(compute, (dma.dmaIn - dma.firstIn) / (total - 1), out) + Math.max(compute, out)
    : compute;
  return dma.firstIn + overlapped + out;
}
