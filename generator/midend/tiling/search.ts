import { GenError } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { bytesOf } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import type { Platform } from '../../platforms/types.js';
import { alignUp } from '../lifetimes.js';
import { boxElements, boxEquals, type Box } from './box.js';
import { busiestShare, computeCycles, dmaCycles } from './cost.js';
import type { TileGeometry, TilingSpec } from './specs.js';
import { boxRows, type FilterLayout, paddedTransfers, weightLayoutOf } from './filter-layout.js';
import { boxTransfers } from './transfers.js';

/** An operand's share of L1: one buffer, or two when double buffering prefetches a box that changes. */
export interface OperandPlan {
  tensor: string;
  write: boolean;
  /** Largest tile of it, bytes (4-aligned). */
  bytes: number;
  slots: 1 | 2;
  /** Times its box changes over the tile loop: how often it is fetched (or written back). */
  fetches: number;
}

export interface Candidate {
  sizes: number[];
  counts: number[];
  operands: OperandPlan[];
  l1Bytes: number;
  cycles: number;
  compute: number;
  dmaIn: number;
  dmaOut: number;
}

/*
 * Candidate combinations costed per layer at most. 1200 halves planning time against 4000 (Attention 558 -> 329 ms,
 * EEGFormer 699 -> 238 ms on a loaded 2-core machine) for estimates within 1 % (EEGFormer +0.9 %, others equal).
 */
const MAX_EVALUATIONS = 1200;

/** Tile sizes worth trying along a dim of D: every size that gives a distinct tile count. */
function sizesFor(D: number, multipleOf: number): number[] {
  const out = new Set<number>();
  for (let k = 1; k <= D; k++) {
    const s = Math.ceil(D / k);
    if (s % multipleOf === 0 || s === D) out.add(s);
  }
  return [...out].sort((a, b) => b - a);
}

function thin(list: number[], keep: number): number[] {
  if (list.length <= keep) return list;
  const step = list.length / keep;
  const out = new Set<number>([list[0], list[list.length - 1]]);
  for (let i = 0; i < keep; i++) out.add(list[Math.floor(i * step)]);
  return [...out].sort((a, b) => b - a);
}

/** The output box of tile `index` (per axis) for the given sizes. */
export function tileBox(shape: readonly number[], axes: readonly number[], sizes: readonly number[], index: readonly number[]): Box {
  const start = shape.map(() => 0);
  const size = [...shape];
  axes.forEach((a, i) => {
    start[a] = index[i] * sizes[i];
    size[a] = Math.min(sizes[i], shape[a] - start[a]);
  });
  return { start, size };
}

export interface SearchInput {
  node: Node;
  graph: Graph;
  kernel: KernelDef;
  spec: TilingSpec;
  platform: Platform;
  l1Budget: number;
  double: boolean;
  /** MACs of the whole node (from the kernel's view). */
  macs: number;
  /** Padded filter rows for dense convs (filter-layout.ts); default true. */
  padFilters?: boolean;
}

/** Operands in the order the loop fetches them: inputs and requant parameters first, the output last. */
export function operandsOf(node: Node): { tensor: string; write: boolean }[] {
  // N-EUREKA reads weights kept in the neural memory through its own port: they never move.
  const ins = node.inputs.filter((i, k) => i && !(k === 1 && node.npu?.wmem)).map((tensor) => ({ tensor, write: false }));
  const rq = node.requant ? [node.requant.mul, node.requant.add].map((tensor) => ({ tensor, write: false })) : [];
  return [...ins, ...rq, { tensor: node.outputs[0], write: true }];
}

/** The layer's node on the tensors of one tile (shapes from the geometry), for per-tile cost models. */
export function tileOf(node: Node, graph: Graph, geo: TileGeometry): { node: Node; graph: Graph } {
  const tensors = new Map(graph.tensors);
  for (const [name, box] of geo.boxes) tensors.set(name, { ...tensorOf(graph, name), shape: [...box.size] });
  return { node: { ...node, attrs: { ...node.attrs, ...geo.attrs } }, graph: { ...graph, tensors } };
}

function evaluate(inp: SearchInput, axes: number[], sizes: number[]): Candidate {
  const { node, graph, platform } = inp;
  const shape = tensorOf(graph, node.outputs[0]).shape;
  const counts = axes.map((a, i) => Math.ceil(shape[a] / sizes[i]));
  const total = counts.reduce((a, b) => a * b, 1);
  // Representative tiles: first, second and last along every axis (the largest halo sits inside).
  const reps: number[][] = [[]];
  for (const c of counts) {
    const choices = [...new Set([0, Math.min(1, c - 1), c - 1])];
    const next: number[][] = [];
    for (const r of reps) for (const v of choices) next.push([...r, v]);
    reps.splice(0, reps.length, ...next);
  }
  const geos: TileGeometry[] = reps.map((r) => inp.spec.geometry(node, graph, tileBox(shape, axes, sizes, r)));
  const zero = geos[0];
  // A dense conv's weights or a GEMM's B may sit in L1 with padded rows (filter-layout.ts): their L1 bytes include
  // it. GEMM's layout depends on the box (its row length, whether the row is whole), so it is chosen per box.
  const padded = (tensor: string, box: Box): FilterLayout | undefined =>
    inp.padFilters !== false && tensor === node.inputs[1] ? weightLayoutOf(node, graph, inp.kernel, box) : undefined;
  const operands: OperandPlan[] = operandsOf(node).map(({ tensor, write }) => {
    const t = tensorOf(graph, tensor);
    const l1Of = (box: Box): number => {
      const p = padded(tensor, box);
      return p ? boxRows(p, box) * p.stride : boxElements(box) * bytesOf(t.dtype);
    };
    const bytes = Math.max(...geos.map((g) => l1Of(g.boxes.get(tensor)!)));
    // Fetched once per distinct box: the product of tile counts of the axes it follows.
    let fetches = 1;
    axes.forEach((_, i) => {
      if (counts[i] < 2) return;
      const probe = reps.findIndex((r) => r[i] === 1 && r.every((v, j) => j === i || v === 0));
      if (probe >= 0 && !boxEquals(geos[probe].boxes.get(tensor)!, zero.boxes.get(tensor)!)) fetches *= counts[i];
    });
    const slots: 1 | 2 = inp.double && fetches > 1 ? 2 : 1;
    return { tensor, write, bytes: alignUp(bytes, 4), slots, fetches };
  });
  const l1Bytes = operands.reduce((s, o) => s + o.bytes * o.slots, 0);
  const first = tileBox(shape, axes, sizes, axes.map(() => 0));
  const outElems = boxElements(first);
  const fullElems = shape.reduce((a, b) => a * b, 1);
  const work = { macs: (inp.macs * outElems) / fullElems, outputs: outElems, busiest: busiestShare(inp.kernel, first.size, platform.cores) };
  const compute = computeCycles(inp.kernel, node, work, platform, inp.kernel.tileCycles ? tileOf(node, graph, zero) : undefined);
  let dmaIn = 0;
  let dmaOut = 0;
  for (const o of operands) {
    const t = tensorOf(graph, o.tensor);
    const box = zero.boxes.get(o.tensor)!;
    const p = padded(o.tensor, box);
    const n = p ? paddedTransfers(p, box).length : boxTransfers(t.shape, box, t.dtype).length;
    // Padded rows move one DMA row each (2-D on the L1 side); the padding itself is not moved.
    const cycles = dmaCycles(platform, boxElements(box) * bytesOf(t.dtype), n, p ? p.filterBytes : 0) * o.fetches;
    if (o.write) dmaOut += cycles;
    else dmaIn += cycles;
  }
  const c = platform.costs;
  const cycles = inp.double
    ? c.fork + c.join + total * Math.max(compute, dmaIn / total, dmaOut / total) + dmaIn / total + dmaOut / total
    : c.fork + c.join + total * compute + dmaIn + dmaOut;
  return { sizes, counts, operands, l1Bytes, cycles, compute: compute * total, dmaIn, dmaOut };
}

/**
 * Chooses tile sizes: every combination of candidate sizes along the splittable axes (thinned to a bounded number
 * of evaluations) is costed with the platform's model; the fastest that fits L1 wins, fewer tiles on ties.
 */
export function searchTiles(inp: SearchInput): Candidate {
  const { node, graph } = inp;
  const shape = tensorOf(graph, node.outputs[0]).shape;
  const axes = inp.spec.axes(node, graph).filter((a) => shape[a] > 1);
  let multipleOfChannels = 1;
  if (node.op === 'Conv') {
    const group = attrInt(node, 'group', 1);
    const co = tensorOf(graph, node.inputs[1]).shape[0];
    if (group > 1 && group < co) multipleOfChannels = co / group;
  }
  // N-EUREKA tiles: whole 6x6-pixel subtiles and whole channel subtiles (depthwise weights come in rows of 28).
  const npu = node.npu;
  const multipleOf = (a: number): number => {
    if (node.op === 'Conv' && a === 1) return multipleOfChannels;
    if (!npu) return 1;
    if (a === 3) return npu.mode === '3x3dw' ? 28 : 32;
    return 6;
  };
  let lists = axes.map((a) => sizesFor(shape[a], multipleOf(a)));
  const keep = Math.max(2, Math.floor(MAX_EVALUATIONS ** (1 / Math.max(1, axes.length))));
  lists = lists.map((l) => thin(l, keep));
  let best: Candidate | undefined;
  let smallest: Candidate | undefined;
  const combo = (i: number, sizes: number[]): void => {
    if (i === axes.length) {
      const c = evaluate(inp, axes, sizes);
      if (!smallest || c.l1Bytes < smallest.l1Bytes) smallest = c;
      if (c.l1Bytes > inp.l1Budget) return;
      const tiles = (x: Candidate): number => x.counts.reduce((a, b) => a * b, 1);
      if (!best || c.cycles < best.cycles - 1e-9 || (Math.abs(c.cycles - best.cycles) <= 1e-9 && tiles(c) < tiles(best))) best = c;
      return;
    }
    for (const s of lists[i]) combo(i + 1, [...sizes, s]);
  };
  combo(0, []);
  if (!best) {
    const worst = [...smallest!.operands].sort((a, b) => b.bytes * b.slots - a.bytes * a.slots)[0];
    throw new GenError(
      'capacity',
      `the smallest tile needs ${smallest!.l1Bytes} bytes of L1 (largest: '${worst.tensor}' ${worst.bytes * worst.slots} bytes${worst.slots === 2 ? ' double-buffered' : ''}), ${inp.l1Budget} bytes are available`,
      { node: node.name, op: node.op, tensor: worst.tensor },
    );
  }
  return { ...best, sizes: best.sizes };
}

