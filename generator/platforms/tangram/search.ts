import type { TangramHardware } from './hardware.js';
import type { LayerShape } from './layers.js';
import { score } from './partition.js';
import { consumersOf, evaluateSegment, type SegmentPlan, type Strategy } from './segment.js';

/**
 * The network's dataflow: the layers (in topological order) cut into pipeline segments, each layer partitioned over
 * its region. The search (docs/tangram.md "Search"):
 *  1. per segment candidate (first..last, at most `maxSegment` layers, the bound nn_dataflow calls the pipelining
 *     degree), the engines are shared out by operations and each layer's partitioning is the best of its exhaustive
 *     enumeration on its region (partition.ts);
 *  2. over the network, a dynamic programme on the cut points: for each prefix it keeps the plans not dominated in
 *     (time, energy), the `keep` best by the objective. Time and energy add over segments (they run one after the
 *     other), so for the time or the energy objective the best plan is exact over this space; for the energy-delay
 *     product (not additive) the kept front makes it a bounded heuristic.
 * Deterministic: every enumeration has a fixed order and ties go to the earlier candidate.
 */
export interface SearchOptions {
  batch: number;
  strategy: Strategy;
  /** Most layers in one segment (default 8). */
  maxSegment?: number;
  /** Plans kept per prefix (default 8). */
  keep?: number;
}

export interface NetworkPlan {
  segments: SegmentPlan[];
  cycles: number;
  energy: number;
  ops: number;
}

interface Partial {
  cycles: number;
  energy: number;
  segments: SegmentPlan[];
}

export function searchDataflow(layers: LayerShape[], hw: TangramHardware, o: SearchOptions): NetworkPlan {
  const maxSegment = o.strategy.pipelining === 'none' ? 1 : (o.maxSegment ?? 8);
  const keep = o.keep ?? 8;
  const consumers = consumersOf(layers);
  const fronts: Partial[][] = [[{ cycles: 0, energy: 0, segments: [] }]];
  for (let end = 0; end < layers.length; end++) {
    const candidates: Partial[] = [];
    for (let first = end; first >= Math.max(0, end - maxSegment + 1); first--) {
      const seg = evaluateSegment(layers, consumers, first, end, hw, o.batch, o.strategy);
      if (!seg) continue;
      for (const prev of fronts[first]) {
        candidates.push({ cycles: prev.cycles + seg.totals.cycles, energy: prev.energy + seg.totals.energy.total, segments: [...prev.segments, seg] });
      }
    }
    if (candidates.length === 0) throw new Error(`tangram search: layer ${end} fits no segment (its buffers cannot hold even a blocked tile)`);
    fronts.push(prune(candidates, o.strategy.objective, keep));
  }
  const best = fronts[layers.length][0];
  return { segments: best.segments, cycles: best.cycles, energy: best.energy, ops: best.segments.reduce((s, g) => s + g.layers.reduce((t, l) => t + l.eval.ops, 0), 0) };
}

/** The non-dominated plans, best first by the objective (ties: fewer cycles, then the earlier found). */
function prune(c: Partial[], objective: Strategy['objective'], keep: number): Partial[] {
  const ranked = c.map((p, i) => ({ p, i, s: score(objective, p.cycles, p.energy) }))
    .sort((a, b) => a.s - b.s || a.p.cycles - b.p.cycles || a.i - b.i);
  const out: Partial[] = [];
  for (const { p } of ranked) {
    if (out.some((q) => q.cycles <= p.cycles && q.energy <= p.energy)) continue;
    out.push(p);
    if (out.length >= keep) break;
  }
  return out;
}
