import { type LayerContext, type LayerCounts, type LayerEval, type Source, type Totals, totalsOf } from './cost.js';
import type { TangramHardware } from './hardware.js';
import { type LayerShape, opsOf } from './layers.js';
import { bestPartition, type Objective } from './partition.js';
import { hopsBetween, type Region, regionsOf, shareEngines } from './regions.js';

/**
 * Inter-layer pipelining (Tangram Sec. 4): a segment is a run of consecutive layers (in topological order) that run
 * at once on disjoint regions of the grid, the maps between them forwarded over the NoC instead of through DRAM.
 *  - 'naive': a consumer starts on a sample once its producer has finished the whole sample (the granularity of
 *    the tiled baseline): one step per sample, a whole sample's map buffered (double-buffered) per forwarded edge.
 *  - 'allo' (alternate layer loop ordering): producer and consumer alternate their loop orders so the data come out
 *    in the order the next layer takes them; ASSUMPTION: a step is one output row of a spatial layer (the consumer
 *    holds its window's rows plus the next stride's, double-buffered) and one block of `array.rows` output channels
 *    of a fully connected layer.
 *  - 'none': every layer alone on the whole grid (segments of one layer).
 * The fill and drain cost (depth - 1) steps over the segment's steps; a fork whose branches join later (residual,
 * inception) holds the shorter branch's data for the steps the longer one takes.
 */
export type Pipelining = 'none' | 'naive' | 'allo';

export interface Strategy {
  sharing: boolean;
  pipelining: Pipelining;
  objective: Objective;
}

export interface PlacedLayer {
  index: number;
  region: Region;
  eval: LayerEval;
  sources: Source[];
  ofmOnChip: boolean;
  /** Buffer words per engine held for forwarded data (the blocking had the rest). */
  reservedWords: number;
}

export interface SegmentPlan {
  first: number;
  last: number;
  layers: PlacedLayer[];
  totals: Totals;
  /** Pipeline steps over the batch and the fill/drain factor applied to the time. */
  steps: number;
  stretch: number;
}

/**
 * The engine model's accumulators (emulator/assembly/tangram/engines.ts MAX_ACCUMULATORS), shared by the requantized
 * products of a segment program: a segment needing more is not formed.
 */
export const MAX_SEGMENT_ACCUMULATORS = 65536;

/** Consumers of each layer (indices), from the layers' inputs. */
export function consumersOf(layers: LayerShape[]): number[][] {
  const out: number[][] = layers.map(() => []);
  layers.forEach((l, i) => l.inputs.forEach((p) => out[p].push(i)));
  return out;
}

/** Forwarding steps per sample of a producer under a pipelining mode. */
function stepsPerSample(l: LayerShape, mode: Pipelining, hw: TangramHardware): number {
  if (mode !== 'allo') return 1;
  return l.kind === 'fc' ? Math.ceil(l.k / hw.array.rows) : l.h;
}

/** Words of one forwarded step the consumer holds, double-buffered. */
function stepWords(producer: LayerShape, consumer: LayerShape, mode: Pipelining): number {
  const sample = producer.k * producer.h * producer.w;
  if (mode !== 'allo') return 2 * sample;
  if (producer.kind === 'fc' || consumer.kind === 'fc') return 2 * Math.ceil(sample / Math.max(1, producer.h));
  return 2 * producer.k * producer.w * Math.min(producer.h, consumer.r + consumer.stride);
}

/** The segment of layers first..last, or undefined when it cannot run as one (too many layers, buffers too small). */
export function evaluateSegment(
  layers: LayerShape[], consumers: number[][], first: number, last: number,
  hw: TangramHardware, batch: number, strategy: Strategy,
): SegmentPlan | undefined {
  const idx = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  if (idx.length > 1 && strategy.pipelining === 'none') return undefined;
  if (idx.length > 1 && idx.some((i) => layers[i].alone !== undefined)) return undefined;
  if (idx.length > 1 && idx.reduce((n, i) => n + (layers[i].accumulators ?? 0), 0) > MAX_SEGMENT_ACCUMULATORS) return undefined;
  const sizes = shareEngines(idx.map((i) => opsOf(layers[i], batch)), hw.grid.rows * hw.grid.cols);
  if (!sizes) return undefined;
  const regions = regionsOf(hw, sizes);
  const inSeg = (i: number): boolean => i >= first && i <= last;
  // Depth of each layer on the segment's longest path (for the fill and for the skip buffers).
  const depth = new Map<number, number>();
  for (const i of idx) depth.set(i, 1 + Math.max(0, ...layers[i].inputs.filter(inSeg).map((p) => depth.get(p)!)));
  const placed: PlacedLayer[] = [];
  for (const [at, i] of idx.entries()) {
    const l = layers[i];
    const region = regions[at];
    const engines = region.engines.length;
    const operands = l.inputs.length > 0 ? l.inputs : [-1];
    const sources: Source[] = operands.map((p) => (p >= 0 && inSeg(p) ? { from: 'noc', hops: hopsBetween(regions[p - first], region) } : { from: 'dram' }));
    let reserved = 0;
    for (const p of l.inputs.filter(inSeg)) {
      const delay = depth.get(i)! - depth.get(p)!;
      reserved += stepWords(layers[p], l, strategy.pipelining) * delay;
    }
    const reservedWords = Math.ceil(reserved / engines);
    if (reservedWords > Math.floor(hw.bufferBytes / hw.wordBytes) / 2) return undefined;
    const ofmOnChip = consumers[i].length > 0 && consumers[i].every(inSeg);
    const regionRows = new Set(region.engines.map(([r]) => r)).size;
    const ctx: LayerContext = { hw, batch, dramHopSum: region.dramHopSum, sharing: strategy.sharing, sources, ofmOnChip, reservedWords, regionRows };
    const e = bestPartition(l, engines, ctx, strategy.objective);
    if (!e) return undefined;
    placed.push({ index: i, region, eval: e, sources, ofmOnChip, reservedWords });
  }
  const sum: LayerCounts = { ops: 0, computeCycles: 0, regf: 0, itcn: 0, buffer: 0, wordHops: 0, dramWords: 0, criticalNocCycles: 0 };
  for (const p of placed) {
    sum.ops += p.eval.ops;
    sum.computeCycles = Math.max(sum.computeCycles, p.eval.computeCycles);
    sum.regf += p.eval.regf;
    sum.itcn += p.eval.itcn;
    sum.buffer += p.eval.buffer;
    sum.wordHops += p.eval.wordHops;
    sum.dramWords += p.eval.dramWords;
    sum.criticalNocCycles = Math.max(sum.criticalNocCycles, p.eval.criticalNocCycles);
  }
  const steps = batch * Math.min(...idx.map((i) => stepsPerSample(layers[i], strategy.pipelining, hw)));
  const segDepth = Math.max(...depth.values());
  const stretch = (steps + segDepth - 1) / steps;
  return { first, last, layers: placed, totals: totalsOf(sum, hw, stretch), steps, stretch };
}
