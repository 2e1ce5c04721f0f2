import { attrInt, attrInts } from '../../ir/attrs.js';
import type { Graph, Node } from '../../ir/graph.js';
import { npuShapeOf } from '../../kernels/neureka.js';
import { npuJobCycles } from '../../npu/cost.js';
import type { KernelDef } from '../../kernels/types.js';
import type { Platform } from '../../platforms/types.js';

/**
 * Cycles a kernel spends on one tile, from the same per-unit costs the emulator charges (platform.costs):
 * the work split over the cores, the call overhead, and the two barriers around each tile.
 */
export interface TileWork {
  macs: number;
  outputs: number;
  /** Work units the kernel splits over the cores (output rows; single elements for elementwise kernels). */
  units: number;
}

/** How a kernel splits a tile over the cores: by whole rows of the output, or element by element. */
export function parallelUnits(kernel: KernelDef, outShape: readonly number[]): number {
  const elems = outShape.reduce((a, b) => a * b, 1);
  if (kernel.name === 'elementwise' || outShape.length === 0) return elems;
  return elems / outShape[outShape.length - 1];
}

/** Core 0's register writes and trigger per N-EUREKA job: 24 stores, ACQUIRE and TRIGGER, 1 cycle each. */
const NPU_ISSUE = 26;

export function computeCycles(kernel: KernelDef, node: Node, work: TileWork, p: Platform, tile?: { node: Node; graph: Graph }): number {
  const c = p.costs;
  if (kernel.engine === 'npu' && tile) return NPU_ISSUE + npuJobCycles(npuShapeOf(tile.node, tile.graph));
  let perMac = 0;
  let perOut = 0;
  switch (kernel.name) {
    case 'conv2d':
      perMac = attrInt(node, 'group', 1) > 1 ? c.MAC_DW : c.MAC_CONV;
      break;
    case 'gemm':
      perMac = c.MAC_GEMM;
      break;
    case 'maxpool':
      perOut = c.ELEMENT * attrInts(node, 'kernel_shape', [1]).reduce((a, b) => a * b, 1);
      break;
    case 'isoftmax': case 'itamax': case 'itapartialmax':
      perOut = c.SOFTMAX_ELEM + 2 * c.DIV;
      break;
    case 'irmsnorm': case 'ilayernorm':
      perOut = c.NORM_ELEM + c.DIV;
      break;
    default:
      perOut = c.ELEMENT;
  }
  if (node.requant) perOut += c.REQUANT;
  // Cores take ceil(units / cores) units each (share_begin/share_end): the busiest core sets the tile's time.
  const busiest = Math.ceil(work.units / p.cores) / Math.max(1, work.units);
  return c.CALL + (work.macs * perMac + work.outputs * perOut) * busiest + 2 * c.barrier;
}

/** Cycles of one DMA group: every transfer pays the latency, bytes stream at the DMA's rate. */
export function dmaCycles(p: Platform, bytes: number, transfers: number): number {
  if (!p.tiling || transfers === 0) return 0;
  return transfers * p.tiling.dma.latency + bytes / p.tiling.dma.bytesPerCycle;
}
