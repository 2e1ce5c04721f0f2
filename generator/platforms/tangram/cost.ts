import type { TangramHardware } from './hardware.js';
import { hasFilters, type LayerShape, operandsOf, opsOf } from './layers.js';

/**
 * The cost of one layer on a region of engines under one partitioning, in the style of nn_dataflow (Gao et al.,
 * TETRIS ASPLOS'17 and Tangram ASPLOS'19): counts of operations and of accesses per memory level, NoC word-hops and
 * DRAM words; time is max(compute, NoC, DRAM); energy is the counts times the hardware's per-event energies.
 * The model's own simplifications, each an ASSUMPTION, are stated where they are made. docs/tangram.md walks a case.
 */

/** How the layer is split over the region's engines (nn_dataflow's partition scheme, hybrids included). */
export interface Partition {
  /** Batch split (data parallelism). */
  pb: number;
  /** Output-channel split. */
  po: number;
  /** Output fmap split: rows, columns. */
  ph: number;
  pw: number;
  /** Input-channel split: partial sums reduced over the NoC. */
  pi: number;
}

export function enginesOf(p: Partition): number {
  return p.pb * p.po * p.ph * p.pw * p.pi;
}

/** Where one input operand comes from: DRAM, or forwarded from a producer region `hops` away (a pipeline). */
export type Source = { from: 'dram' } | { from: 'noc'; hops: number };

export interface LayerContext {
  hw: TangramHardware;
  batch: number;
  /** Sum over the region's engines of each one's hop distance to its nearest DRAM edge (regions.ts). */
  dramHopSum: number;
  /** Buffer sharing (Tangram's BSD): engines needing the same data hold a slice each and rotate it. */
  sharing: boolean;
  /** One per operand (operandsOf). */
  sources: Source[];
  /** The output is forwarded to a consumer in the same segment instead of written to DRAM. */
  ofmOnChip: boolean;
  /** Buffer words per engine held back for forwarded pipeline data (segment.ts). */
  reservedWords: number;
  /**
   * Rows the region spans (its DRAM traffic enters and leaves through those rows' edge ports only); absent: the whole
   * grid's rows.
   */
  regionRows?: number;
}

/** The loop order the engine's buffer blocking took (nn_dataflow's loop blocking reduced to its two orders). */
export type Order = 'fits' | 'filters-resident' | 'ifmaps-resident';

export interface LayerCounts {
  ops: number;
  /** Cycles of the busiest engine's PE array. */
  computeCycles: number;
  regf: number;
  itcn: number;
  buffer: number;
  wordHops: number;
  dramWords: number;
  /**
   * NoC cycles the layer's transfers take at the least, whatever the rest of the mesh does: one engine's rotation
   * words over its one link to the next member plus the partial-sum tree's log2(pi) levels of a whole block each, or
   * the region's DRAM words through its rows' edge ports. The even-spread bound (totalsOf) misses these serial
   * paths; the emulator's event model showed them.
   */
  criticalNocCycles: number;
}

export interface LayerEval extends LayerCounts {
  partition: Partition;
  order: Order;
}

/** Words of each engine's tiles under a partitioning (ceil splits: the busiest engine's share). */
export interface Tiles {
  b: number;
  k: number;
  c: number;
  h: number;
  w: number;
  /** Input map words of all operands, with the window halo. */
  ifm: number;
  fil: number;
  ofm: number;
}

export function tilesOf(l: LayerShape, batch: number, p: Partition): Tiles {
  const b = Math.ceil(batch / p.pb);
  const k = Math.ceil(l.k / p.po);
  const c = hasFilters(l) ? Math.ceil(l.c / p.pi) : k;
  const h = Math.ceil(l.h / p.ph);
  const w = Math.ceil(l.w / p.pw);
  const ih = (h - 1) * l.stride + l.r;
  const iw = (w - 1) * l.stride + l.s;
  return {
    b, k, c, h, w,
    ifm: b * c * ih * iw * operandsOf(l),
    fil: hasFilters(l) ? k * c * l.r * l.s : 0,
    ofm: b * k * h * w,
  };
}

/**
 * PE-array cycles of one engine's tile. ASSUMPTION (output-stationary mapping): conv/fc put output channels on the
 * array's rows and output pixels (batch x fmap) on its columns, each PE accumulating its output over c x r x s
 * cycles; pooling and element-wise layers give each PE one output and spend a cycle per tap or operand.
 */
export function computeCycles(l: LayerShape, t: Tiles, hw: TangramHardware): number {
  const { rows, cols } = hw.array;
  if (hasFilters(l)) return Math.ceil(t.k / rows) * Math.ceil((t.b * t.h * t.w) / cols) * t.c * l.r * l.s;
  const perOutput = l.kind === 'pool' ? l.r * l.s : operandsOf(l);
  return Math.ceil((t.b * t.k * t.h * t.w) / (rows * cols)) * perOutput;
}

/**
 * Register-file accesses per operation. ASSUMPTION: a MAC reads its two operands from the PE's register file and
 * updates the partial sum there (3); a pooling tap or element-wise operand reads one value and updates one (2).
 */
function regfPerOp(l: LayerShape): number {
  return hasFilters(l) ? 3 : 2;
}

/** Groups of engines that need the same data, which buffer sharing lets them hold once between them. */
export function shareGroups(l: LayerShape, p: Partition, sharing: boolean): { ifm: number; fil: number } {
  if (!sharing) return { ifm: 1, fil: 1 };
  // Input maps: engines that differ only in their output channels (conv/fc; per-channel layers split c with k).
  // Filters: engines that differ only in batch or fmap.
  return { ifm: hasFilters(l) ? p.po : 1, fil: p.pb * p.ph * p.pw };
}

export interface Blocking {
  order: Order;
  /** Times the input map / the filters pass through the engine's buffer. */
  ifmPasses: number;
  filPasses: number;
}

/**
 * Loop blocking (ASSUMPTION, nn_dataflow's blocking reduced to two orders): an engine works through its tile in
 * blocks and streams each finished output block out (outputs accumulate over all input channels before they leave,
 * so they are written once). When the input and filter slices do not both fit, one of them stays resident in chunks
 * of half the buffer and the other is streamed again for every chunk. A forwarded input arrives once (it is in no
 * memory to fetch again), so it must be the resident one.
 */
export function blockingOf(t: Tiles, ifmSlice: number, filSlice: number, capacity: number, forwarded: boolean): Blocking {
  if (ifmSlice + filSlice <= capacity) return { order: 'fits', ifmPasses: 1, filPasses: 1 };
  const half = capacity / 2;
  // At least one chunk each: a layer without filters streams its input once, not zero times.
  const filChunks = Math.max(1, Math.ceil(filSlice / half));
  const ifmChunks = Math.max(1, Math.ceil(ifmSlice / half));
  if (!forwarded && t.fil + filChunks * t.ifm < t.ifm + ifmChunks * t.fil) return { order: 'filters-resident', ifmPasses: filChunks, filPasses: 1 };
  return { order: 'ifmaps-resident', ifmPasses: 1, filPasses: ifmChunks };
}

/**
 * The layer under one partitioning, or undefined when it cannot run so (a region smaller than the partitioning, an
 * input-channel split of a per-channel layer, no buffer left beside the forwarded data).
 */
export function evaluateLayer(l: LayerShape, p: Partition, engines: number, ctx: LayerContext): LayerEval | undefined {
  const n = enginesOf(p);
  if (n > engines) return undefined;
  if (!hasFilters(l) && p.pi !== 1) return undefined;
  const { hw, batch } = ctx;
  const t = tilesOf(l, batch, p);
  const g = shareGroups(l, p, ctx.sharing);
  const capacity = Math.floor(hw.bufferBytes / hw.wordBytes) - ctx.reservedWords;
  if (capacity <= 0) return undefined;
  // Per-engine footprint of each data type: shared data take their slice only (the rest sits in the group's other
  // buffers and arrives by rotation).
  const ifmSlice = t.ifm / g.ifm;
  const filSlice = t.fil / g.fil;
  const forwarded = ctx.sources.some((x) => x.from === 'noc');
  const { order, ifmPasses, filPasses } = blockingOf(t, ifmSlice, filSlice, capacity, forwarded);
  // Words each engine takes into its buffer, split by where they come from.
  const ifmWords = t.ifm * ifmPasses;
  const filWords = t.fil * filPasses;
  // A shared datum comes from outside the group once (each engine fetches its slice) and reaches the group's other
  // g - 1 engines by rotation, one hop per step (ASSUMPTION: a group's engines are neighbours in the region).
  const ifmOutside = ifmWords / g.ifm;
  const filOutside = filWords / g.fil;
  const rotationHops = n * (ifmWords - ifmOutside + (filWords - filOutside));

  let dramWords = 0;
  let wordHops = rotationHops;
  const perEngineDramHops = ctx.dramHopSum / engines; // average distance of the region's engines to an edge
  const perOperand = ifmOutside / ctx.sources.length;
  for (const s of ctx.sources) {
    if (s.from === 'dram') {
      dramWords += n * perOperand;
      wordHops += n * perOperand * perEngineDramHops;
    } else {
      wordHops += n * perOperand * s.hops;
    }
  }
  dramWords += n * filOutside;
  wordHops += n * filOutside * perEngineDramHops;
  // Input-channel split: each output group of pi engines reduces pi partial maps into one, (pi - 1) maps moved one
  // hop each (ASSUMPTION: neighbours) and added in the receiving engine's buffer.
  const outputGroups = n / p.pi;
  const reduceWords = outputGroups * (p.pi - 1) * t.ofm;
  wordHops += reduceWords;
  const ofmOut = outputGroups * t.ofm;
  if (!ctx.ofmOnChip) {
    dramWords += ofmOut;
    wordHops += ofmOut * perEngineDramHops;
  }
  // Buffer accesses: every word written in (fills, rotation arrivals, partial maps), every word read out to the
  // array (ASSUMPTION output-stationary reuse: an input word is read once per block of `rows` output channels, a
  // filter word once per block of `cols` output pixels), and the output written once and read once to leave.
  const toArrayReads = ifmWords * (hasFilters(l) ? Math.ceil(t.k / hw.array.rows) : 1)
    + filWords * Math.ceil((t.b * t.h * t.w) / hw.array.cols);
  const buffer = n * (ifmWords + filWords + toArrayReads + 2 * t.ofm) + 2 * reduceWords;
  const ops = opsOf(l, batch);
  const rotationPerEngine = ifmWords - ifmOutside + (filWords - filOutside);
  // The region's DRAM words pass its rows' edge ports, one link per row on each side (regions.ts dramHops): a small
  // region of a pipeline segment cannot use the whole chip's ports (the event model showed it).
  const ports = 2 * (ctx.regionRows ?? hw.grid.rows);
  const criticalNocCycles = Math.max(
    (rotationPerEngine + Math.ceil(Math.log2(p.pi)) * t.ofm) / hw.noc.linkWordsPerCycle,
    dramWords / (ports * hw.noc.linkWordsPerCycle),
  );
  return {
    partition: p,
    order,
    ops,
    computeCycles: computeCycles(l, t, hw),
    regf: ops * regfPerOp(l),
    // ASSUMPTION: every word read from the buffer to the array crosses the array bus once.
    itcn: n * toArrayReads,
    buffer,
    wordHops,
    dramWords,
    criticalNocCycles,
  };
}

export interface Totals {
  cycles: number;
  computeCycles: number;
  nocCycles: number;
  dramCycles: number;
  /** pJ by component. */
  energy: { mac: number; regf: number; itcn: number; buffer: number; noc: number; dram: number; idle: number; total: number };
}

/** Directed links of the mesh (each neighbour pair has one each way). */
export function meshLinks(hw: TangramHardware): number {
  const { rows, cols } = hw.grid;
  return 2 * (rows * (cols - 1) + cols * (rows - 1));
}

/**
 * Cycles and energy of counts that run at once (one layer, or the layers of a pipeline segment): time is the max of
 * the busiest array, the NoC and the DRAM channels, times `stretch` (a pipeline's fill and drain, segment.ts). NoC:
 * ASSUMPTION traffic spread evenly over the mesh's links, and DRAM traffic through the edge ports (one link per row on each of the two memory edges); DRAM: the channels'
 * bytes per cycle.
 */
export function totalsOf(c: LayerCounts, hw: TangramHardware, stretch = 1): Totals {
  const links = meshLinks(hw);
  const edgePorts = 2 * hw.grid.rows;
  // One engine (the monolithic comparison point) has no mesh: its buffer sits on the DRAM controllers' bus.
  const nocCycles = links === 0 ? 0 : Math.max(
    c.wordHops / (links * hw.noc.linkWordsPerCycle),
    c.dramWords / (edgePorts * hw.noc.linkWordsPerCycle),
    c.criticalNocCycles,
  );
  const dramCycles = (c.dramWords * hw.wordBytes) / (hw.dram.channels * hw.dram.bytesPerCycle);
  const cycles = Math.max(c.computeCycles, nocCycles, dramCycles) * stretch;
  const e = hw.energy;
  const energy = {
    mac: c.ops * e.mac,
    regf: c.regf * e.regf,
    itcn: c.itcn * e.itcn,
    buffer: c.buffer * e.buffer,
    noc: c.wordHops * e.hop,
    dram: c.dramWords * e.dramWord,
    idle: cycles * e.idlePerCycle,
    total: 0,
  };
  energy.total = energy.mac + energy.regf + energy.itcn + energy.buffer + energy.noc + energy.dram + energy.idle;
  return { cycles, computeCycles: c.computeCycles, nocCycles, dramCycles, energy };
}
