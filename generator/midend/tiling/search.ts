import { GenError } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { bytesOf } from '../../ir/dtype.js';
import type { Graph, Node } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import type { Platform } from '../../platforms/types.js';
import { alignUp } from '../lifetimes.js';
import { boxElements, boxEquals, type Box } from './box.js';
import { busiestShare, computeCycles, dmaCycles, loopCycles } from './cost.js';
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

/** What one axis, split alone into tiles of one size, does to the operands' boxes over its tiles. */
interface AxisScan {
  /**
   * One tile index per distinct set of operand box sizes and tile attributes (a window's clipped pads) along the axis,
   * the first tile (index 0) first: one per kernel instance the axis makes (layer-plan.ts keys them so).
   */
  reps: number[];
  /** By operand: the runs of equal boxes along the axis, i.e. how often the loop along it fetches the operand. */
  runs: Map<string, number>;
}

/**
 * Scans the tiles along one axis; along a window axis (TilingSpec.windowAxes) every one. A window op's tiles are
 * clipped by the input's edges for as many tiles as the
 * padding reaches (top pad 2 with 1-row tiles: tiles 0 and 1 are short, tile 2 is the first whole one), so first,
 * second and last alone can miss the largest box; and tiles whose windows lie in the padding all read the same
 * (empty) box, so whether tile 1 differs from tile 0 does not tell whether the box ever changes. Boxes depend on
 * each axis alone (every spec maps an output axis to its own operand dims), so the product of the reps over the
 * axes holds every tile size the loop meets.
 */
function scanAxis(inp: SearchInput, axis: number, size: number): AxisScan {
  const { node, graph } = inp;
  const shape = tensorOf(graph, node.outputs[0]).shape;
  const count = Math.ceil(shape[axis] / size);
  // Box sizes of every operand at a tile index, and the tile's attributes: tiles with the same sizes are the same
  // for what the search measures from them (L1 bytes, transfers and compute depend on a box's sizes only), so one of
  // each is enough; tiles of other attributes (pads) are other kernel instances, each a further shape's code.
  const keys = new Map<number, string>();
  const keyOf = (v: number, geo?: TileGeometry): string => {
    let key = keys.get(v);
    if (key === undefined) {
      const g = geo ?? inp.spec.geometry(node, graph, tileBox(shape, [axis], [size], [v]));
      key = [...g.boxes.values()].map((b) => b.size.join(',')).join(';') + JSON.stringify(g.attrs);
      keys.set(v, key);
    }
    return key;
  };
  const runs = new Map<string, number>();
  // Off a window axis a box is the tile's own range: tiles 0 and 1 tell whether it follows the axis (the search
  // costs thousands of choices, and a scan of every tile of every one doubled its time on some models).
  const scanned = inp.spec.windowAxes?.includes(axis) ? count : Math.min(2, count);
  let previous: Map<string, Box> | undefined;
  for (let v = 0; v < scanned; v++) {
    const geo = inp.spec.geometry(node, graph, tileBox(shape, [axis], [size], [v]));
    keyOf(v, geo);
    for (const [tensor, box] of geo.boxes) {
      const before = previous?.get(tensor);
      if (!before || !boxEquals(before, box)) runs.set(tensor, (runs.get(tensor) ?? 0) + 1);
    }
    previous = geo.boxes;
  }
  if (scanned < count) for (const [tensor, n] of runs) runs.set(tensor, n > 1 ? count : 1);
  // The first tile (the one costed), then the first tile of every other distinct set of sizes (the last tile's
  // remainder, the tiles the padding clips).
  const seen = new Set<string>();
  const reps: number[] = [];
  for (const v of [0, Math.min(1, count - 1), count - 1, ...keys.keys()].sort((a, b) => a - b)) {
    const key = keyOf(v);
    if (!seen.has(key)) reps.push(v);
    seen.add(key);
  }
  return { reps, runs };
}

/** Per search: the scans of an axis split into tiles of a size, by `axis:size`. */
type ScanCache = Map<string, AxisScan>;

/** The work of the first tile (the one costed): its share of the MACs, its outputs, the busiest core's part. */
function firstTileWork(inp: SearchInput, shape: readonly number[], axes: readonly number[], sizes: readonly number[]) {
  const first = tileBox(shape, axes, sizes, axes.map(() => 0));
  const outElems = boxElements(first);
  const fullElems = shape.reduce((a, b) => a * b, 1);
  const extra = inp.kernel.extraWork?.(inp.node, inp.graph, first.size, inp.platform);
  return {
    macs: (inp.macs * outElems) / fullElems, outputs: outElems, busiest: extra?.busiest ?? busiestShare(inp.kernel, first.size, inp.platform.cores),
    extra,
    macCycles: inp.kernel.tileMacCycles?.(inp.node, inp.graph, first.size, inp.platform),
  };
}

/**
 * What a choice costs at least, from its tile count and first tile alone (no geometry): the fork and join plus
 * every tile's compute, which both formulas of evaluateTiles add to non-negative DMA terms. A kernel with its own
 * tile model (tileCycles) needs the tile's geometry: its compute counts as 0 here.
 */
function cyclesLowerBound(inp: SearchInput, shape: readonly number[], axes: readonly number[], sizes: readonly number[]): number {
  const c = inp.platform.costs;
  const total = axes.reduce((t, a, i) => t * Math.ceil(shape[a] / sizes[i]), 1);
  const compute = inp.kernel.tileCycles ? 0 : computeCycles(inp.kernel, inp.node, firstTileWork(inp, shape, axes, sizes), inp.platform, inp.graph);
  return c.fork + c.join + c.LAYER + total * compute;
}

/** Costs one choice of tile sizes along `axes` (the search's step; exported for tests that try every choice). */
export function evaluateTiles(inp: SearchInput, axes: number[], sizes: number[], scans: ScanCache = new Map()): Candidate {
  const { node, graph, platform } = inp;
  const shape = tensorOf(graph, node.outputs[0]).shape;
  const counts = axes.map((a, i) => Math.ceil(shape[a] / sizes[i]));
  const total = counts.reduce((a, b) => a * b, 1);
  const axisScans = axes.map((a, i) => {
    const key = `${a}:${sizes[i]}`;
    if (!scans.has(key)) scans.set(key, scanAxis(inp, a, sizes[i]));
    return scans.get(key)!;
  });
  // Representative tiles: every distinct box size along every axis, combined over the axes.
  const reps: number[][] = [[]];
  for (const scan of axisScans) {
    const next: number[][] = [];
    for (const r of reps) for (const v of scan.reps) next.push([...r, v]);
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
    // Fetched once per run of equal boxes: the product of its runs along the axes (above 1 iff it ever changes,
    // and then it needs a second buffer: the next tile's box is fetched while this one's is read).
    const fetches = axisScans.reduce((f, scan) => f * (scan.runs.get(tensor) ?? 1), 1);
    const slots: 1 | 2 = inp.double && fetches > 1 ? 2 : 1;
    return { tensor, write, bytes: alignUp(bytes, 4), slots, fetches };
  });
  const l1Bytes = operands.reduce((s, o) => s + o.bytes * o.slots, 0);
  const compute = computeCycles(inp.kernel, node, firstTileWork(inp, shape, axes, sizes), platform, graph, inp.kernel.tileCycles ? tileOf(node, graph, zero) : undefined);
  let dmaIn = 0;
  let dmaOut = 0;
  // Transfers the driving core programs, each from its record (TRANSFER, runtime/as/tiles.ts), while the others wait;
  // counted as the DMA's are, from the first tile's boxes (an edge tile's clipped box may move in fewer).
  let transfers = 0;
  // What the first tile fetches before any compute can start (the prologue: nothing to overlap it with).
  let firstIn = 0;
  for (const o of operands) {
    const t = tensorOf(graph, o.tensor);
    const box = zero.boxes.get(o.tensor)!;
    const p = padded(o.tensor, box);
    const n = p ? paddedTransfers(p, box).length : boxTransfers(t.shape, box, t.dtype).length;
    // Padded rows move one DMA row each (2-D on the L1 side); the padding itself is not moved.
    const once = dmaCycles(platform, boxElements(box) * bytesOf(t.dtype), n, p ? p.filterBytes : 0);
    transfers += n * o.fetches;
    if (o.write) dmaOut += once * o.fetches;
    else {
      dmaIn += once * o.fetches;
      firstIn += once;
    }
  }
  const c = platform.costs;
  // Every tile shape past the first is a kernel function of its own, which each core of a team fetches cold
  // (CODE_SHAPE, runtime/as/cluster.ts): a tiling whose sizes divide the dims has one.
  const shapes = platform.cores > 1 ? (geos.length - 1) * c.CODE_SHAPE : 0;
  // Not CODE_NEXT (the tile loop's code from a second tile on): charged here, even with the first tile's fetch
  // counted whole (loopCycles), it moves the decoder step's down_proj GEMMs to plans the AS prices 67 cycles lower and
  // the ISS runs ~400 higher (the step +0.6 %; MobileNetV1, ResNet-8 and the prompt pass 0.1-0.4 % faster):
  // docs/timing.md, "The fit".
  const cycles = shapes + transfers * c.TRANSFER + c.fork + c.join + c.LAYER + loopCycles(total, compute, { firstIn, dmaIn, dmaOut }, inp.double);
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
  // Every choice in enumeration order (its index breaks ties, as the first of equals won when they were costed in
  // that order), then costed cheapest lower bound first: once a choice's bound exceeds the best cost found, no
  // later choice can win, and the rest are not costed (most of them: the bound is the compute, which dominates).
  const choices: { sizes: number[]; index: number; bound: number }[] = [];
  const combo = (i: number, sizes: number[]): void => {
    if (i === axes.length) {
      choices.push({ sizes, index: choices.length, bound: cyclesLowerBound(inp, shape, axes, sizes) });
      return;
    }
    for (const s of lists[i]) combo(i + 1, [...sizes, s]);
  };
  combo(0, []);
  choices.sort((a, b) => a.bound - b.bound || a.index - b.index);
  const tiles = (x: Candidate): number => x.counts.reduce((a, b) => a * b, 1);
  let best: (Candidate & { index: number }) | undefined;
  let smallest: (Candidate & { index: number }) | undefined;
  const scans: ScanCache = new Map();
  for (const { sizes, index, bound } of choices) {
    if (best && bound > best.cycles + 1e-9) break;
    const c = { ...evaluateTiles(inp, axes, sizes, scans), index };
    if (!smallest || c.l1Bytes < smallest.l1Bytes || (c.l1Bytes === smallest.l1Bytes && index < smallest.index)) smallest = c;
    if (c.l1Bytes > inp.l1Budget) continue;
    const tie = best !== undefined && Math.abs(c.cycles - best.cycles) <= 1e-9;
    if (!best || c.cycles < best.cycles - 1e-9 || (tie && (tiles(c) < tiles(best) || (tiles(c) === tiles(best) && index < best.index)))) best = c;
  }
  if (!best) {
    const worst = [...smallest!.operands].sort((a, b) => b.bytes * b.slots - a.bytes * a.slots)[0];
    throw new GenError(
      'capacity',
      `the smallest tile needs ${smallest!.l1Bytes} bytes of L1 (largest: '${worst.tensor}' ${worst.bytes * worst.slots} bytes${worst.slots === 2 ? ' double-buffered' : ''}), ${inp.l1Budget} bytes are available`,
      { node: node.name, op: node.op, tensor: worst.tensor },
    );
  }
  const { index: _, ...chosen } = best;
  return chosen;
}

