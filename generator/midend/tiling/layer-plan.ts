import { GenError } from '../../errors.js';
import { bytesOf, rangeOfValues, type IntRange } from '../../ir/dtype.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import { boxElements, boxEquals, type Box } from './box.js';
import { boxRows, paddedTransfers, weightLayoutOf } from './filter-layout.js';
import { type Candidate, type OperandPlan, operandsOf, tileBox } from './search.js';
import type { TilingSpec } from './specs.js';
import { boxTransfers, type Transfer } from './transfers.js';

/** A kernel instance: the layer's op on tile-sized tensors, one per distinct tile geometry. */
export interface Instance {
  key: string;
  node: Node;
  graph: Graph;
}

export interface TileStep {
  instance: number;
  /** The tile's box of the layer's output. */
  out: Box;
  /** L1 offset of every operand's buffer for this tile (operand order). */
  ptrs: number[];
  /** DMA commands that bring this tile's changed inputs in (L1 offsets absolute, L2 offsets inside the tensor). */
  fetch: (Transfer & { operand: number })[];
  /** DMA commands that write the output tile back. */
  store: (Transfer & { operand: number })[];
}

export interface TiledLayer {
  node: Node;
  kernel: KernelDef;
  choice: Candidate;
  axes: number[];
  operands: (OperandPlan & { slotOffsets: number[] })[];
  instances: Instance[];
  tiles: TileStep[];
  double: boolean;
}

/** Value ranges of constants by their data: every tile instance of a layer asks for the same weights' range. */
const constRanges = new WeakMap<object, IntRange>();

function constRange(data: ArrayLike<number>): IntRange {
  let r = constRanges.get(data);
  if (!r) {
    r = rangeOfValues(data);
    constRanges.set(data, r);
  }
  return r;
}

/** Tensors of a tile: the layer's tensors with the box's shape; constants keep their value range, not their data. */
function tileTensor(t: Tensor, box: Box): Tensor {
  const range = t.data ? constRange(t.data.data) : t.range;
  return { name: t.name, dtype: t.dtype, shape: [...box.size], ...(range ? { range } : {}) };
}

/**
 * Expands a tile-size choice into the loop the firmware runs: each tile's output box in loop order, the kernel
 * instance it uses, where each operand sits in L1 (alternating slots when double-buffered), and the DMA commands
 * for what changed since the previous tile (an unchanged weight tile is not fetched again).
 */
export function planLayerTiles(
  node: Node, graph: Graph, kernel: KernelDef, spec: TilingSpec, axes: number[], choice: Candidate, l1Base: number, double: boolean,
  padFilters = true,
): TiledLayer {
  const shape = tensorOf(graph, node.outputs[0]).shape;
  const ops = operandsOf(node);
  let cursor = l1Base;
  const operands = choice.operands.map((o) => {
    const slotOffsets = Array.from({ length: o.slots }, () => {
      const at = cursor;
      cursor += o.bytes;
      return at;
    });
    return { ...o, slotOffsets };
  });
  // Padded weight rows in L1 (filter-layout.ts: conv filters, GEMM's B): the weight tile is fetched row by row and
  // the kernel instances index it with the padded stride. Chosen per box (GEMM's depends on the row length); the
  // instance key holds the box sizes, so one instance has one stride.
  const weightIndex = padFilters ? ops.findIndex((o) => o.tensor === node.inputs[1]) : -1;
  const layoutOf = (k: number, box: Box) => (k === weightIndex ? weightLayoutOf(node, graph, kernel, box) : undefined);
  const instances: Instance[] = [];
  const byKey = new Map<string, number>();
  const tiles: TileStep[] = [];
  const current: (Box | undefined)[] = ops.map(() => undefined);
  const slot = ops.map(() => -1);
  const index = axes.map(() => 0);
  const total = choice.counts.reduce((a, b) => a * b, 1);
  for (let t = 0; t < total; t++) {
    const out = tileBox(shape, axes, choice.sizes, index);
    const geo = spec.geometry(node, graph, out);
    const boxes = ops.map((o) => geo.boxes.get(o.tensor)!);
    const key = JSON.stringify([boxes.map((b) => b.size), geo.attrs]);
    let inst = byKey.get(key);
    if (inst === undefined) {
      inst = instances.length;
      byKey.set(key, inst);
      const tensors = new Map<string, Tensor>();
      ops.forEach((o, k) => tensors.set(o.tensor, tileTensor(tensorOf(graph, o.tensor), boxes[k])));
      const instNode: Node = { ...node, attrs: { ...node.attrs, ...geo.attrs } };
      const layout = weightIndex >= 0 ? layoutOf(weightIndex, boxes[weightIndex]) : undefined;
      if (layout) instNode.filterStride = layout.strideElements;
      instances.push({ key, node: instNode, graph: { ...graph, tensors } });
    }
    // Every tile's box must fit the buffer the search sized (from representative tiles): a larger one would run
    // over into the next buffer, silently.
    ops.forEach((o, k) => {
      const layout = layoutOf(k, boxes[k]);
      const bytes = layout ? boxRows(layout, boxes[k]) * layout.stride : boxElements(boxes[k]) * bytesOf(tensorOf(graph, o.tensor).dtype);
      if (bytes > operands[k].bytes) {
        throw new GenError('internal', `tile ${t} needs ${bytes} bytes of L1, its buffer has ${operands[k].bytes}`, { node: node.name, op: node.op, tensor: o.tensor });
      }
    });
    const fetch: TileStep['fetch'] = [];
    const store: TileStep['store'] = [];
    ops.forEach((o, k) => {
      const changed = !current[k] || !boxEquals(current[k]!, boxes[k]);
      if (changed) {
        // Double buffering moves the next box while this one is in use: one buffer would be overwritten under it.
        if (double && t > 0 && operands[k].slots < 2) {
          throw new GenError('internal', `tile ${t} changes a box planned for one buffer`, { node: node.name, op: node.op, tensor: o.tensor });
        }
        slot[k] = (slot[k] + 1) % operands[k].slots;
        current[k] = boxes[k];
      }
      const t0 = tensorOf(graph, o.tensor);
      const base = operands[k].slotOffsets[slot[k]];
      if (o.write) {
        for (const tr of boxTransfers(t0.shape, boxes[k], t0.dtype)) store.push({ ...tr, l1: base + tr.l1, operand: k });
      } else if (changed) {
        const layout = layoutOf(k, boxes[k]);
        const trs = layout ? paddedTransfers(layout, boxes[k]) : boxTransfers(t0.shape, boxes[k], t0.dtype);
        for (const tr of trs) fetch.push({ ...tr, l1: base + tr.l1, operand: k });
      }
    });
    // Smallest first: mchan queues 2 commands per core and the issuing core stalls on the third until the oldest
    // completes, so a large weight tile issued before the small ones would hold core 0 (and the tile loop) for
    // its whole transfer instead of letting it stream behind the next tile's compute.
    fetch.sort((a, b) => a.bytes - b.bytes);
    tiles.push({ instance: inst, out, ptrs: operands.map((o, k) => o.slotOffsets[slot[k]]), fetch, store });
    for (let i = axes.length - 1; i >= 0; i--) {
      if (++index[i] < choice.counts[i]) break;
      index[i] = 0;
    }
  }
  return { node, kernel, choice, axes, operands, instances, tiles, double };
}
