/**
 * Static offsets for buffers with lifetimes (dynamic storage allocation): no two buffers live at the same step may
 * overlap, and the peak (the highest end) should be as low as possible. The live-set lower bound is what any
 * placement needs; a fast greedy places first; when it misses the bound, other constructive placements
 * (./placement.ts: orders and best fit) are tried, and when they all miss it too, on a small enough problem, an exact
 * integer program (./offsets-ilp.ts, HiGHS) tries to close the gap from the best of them. The best plan is kept.
 */
import { alignUp, liveSetLowerBound, overlaps, type Interval } from './lifetimes.js';
import { offsetIlp, offsetsFromSolution } from './offsets-ilp.js';
import { PLACEMENT_RULES, placeBy } from './placement.js';
import { solveSync } from './solver/highs.js';

export type { Interval } from './lifetimes.js';

export interface SolverOptions {
  /** Default true; false keeps the greedy's plan (for comparisons). */
  enabled?: boolean;
  /** Default true; false goes from the greedy straight to the solver (to test the solver itself). */
  placements?: boolean;
  /** Larger problems keep the greedy's plan: the ILP has a binary per overlapping pair (default 40). */
  maxBuffers?: number;
  /** Branch-and-bound nodes HiGHS may explore (default 500): the deterministic limit. */
  maxNodes?: number;
  /** Seconds HiGHS may spend (default 30): a safety net behind the node limit, which machine speed does not change. */
  timeLimit?: number;
}

export interface OffsetReport {
  buffers: number;
  /** The largest live set: no placement can use less. */
  lowerBound: number;
  /** Peak of the greedy's placement, and of the placement kept. */
  greedy: number;
  final: number;
  /** The constructive placement (placement.ts) that beat the greedy, when one did: its rule and peak. */
  placement?: { rule: string; peak: number };
  solver: {
    /**
     * 'not-needed' (the greedy or a constructive placement at the bound), 'too-large', 'disabled', or HiGHS's model status ('optimal',
     * 'nodeLimit', 'timeLimit', ...), or 'error' when the solver did not run.
     */
    status: string;
    /** Wall time of the solve, process start and wasm load included. */
    ms: number;
    /** What HiGHS proved no placement can beat (bytes), when it proved more than the live set. */
    bound?: number;
    message?: string;
  };
}

/**
 * Largest first (earliest first among equals), each at the lowest aligned offset free for its whole lifetime.
 * Offsets in input order.
 */
export function greedyOffsets(items: readonly Interval[], align: number): number[] {
  const order = items.map((_, i) => i).sort((a, b) => items[b].bytes - items[a].bytes || items[a].first - items[b].first);
  const offsets = new Array<number>(items.length).fill(0);
  const placed: number[] = [];
  for (const i of order) {
    const conflicts = placed.filter((j) => overlaps(items[i], items[j])).sort((a, b) => offsets[a] - offsets[b]);
    let offset = 0;
    for (const j of conflicts) {
      if (offset + items[i].bytes <= offsets[j]) break;
      offset = Math.max(offset, alignUp(offsets[j] + items[j].bytes, align));
    }
    offsets[i] = offset;
    placed.push(i);
  }
  return offsets;
}

export function peakOf(items: readonly Interval[], offsets: readonly number[], align: number): number {
  return Math.max(0, ...items.map((u, i) => offsets[i] + alignUp(u.bytes, align)));
}

/** True when no two buffers live at the same step share a byte. */
export function isValidPlacement(items: readonly Interval[], offsets: readonly number[]): boolean {
  for (let i = 0; i < items.length; i++) {
    if (offsets[i] < 0) return false;
    for (let j = i + 1; j < items.length; j++) {
      if (!overlaps(items[i], items[j])) continue;
      if (offsets[i] < offsets[j] + items[j].bytes && offsets[j] < offsets[i] + items[i].bytes) return false;
    }
  }
  return true;
}

/** Greedy in front, other constructive placements next, HiGHS behind them when all miss the bound on a small problem. */
export function assignOffsets(items: readonly Interval[], align: number, opts: SolverOptions = {}): { offsets: number[]; report: OffsetReport } {
  const lowerBound = liveSetLowerBound(items, align);
  const greedy = greedyOffsets(items, align);
  const greedyPeak = peakOf(items, greedy, align);
  const report: OffsetReport = { buffers: items.length, lowerBound, greedy: greedyPeak, final: greedyPeak, solver: { status: 'not-needed', ms: 0 } };
  const maxBuffers = opts.maxBuffers ?? 40;
  if (greedyPeak <= lowerBound) return { offsets: greedy, report };
  if (opts.enabled === false) {
    report.solver.status = 'disabled';
    return { offsets: greedy, report };
  }
  // The other placements, until one reaches the bound: the lowest peak is kept (the greedy's on ties).
  let start = greedy;
  if (opts.placements !== false) {
    for (const rule of PLACEMENT_RULES) {
      const offsets = placeBy(items, align, rule);
      const peak = peakOf(items, offsets, align);
      if (peak < report.final) {
        start = offsets;
        report.final = peak;
        report.placement = { rule: rule.name, peak };
      }
      if (peak <= lowerBound) return { offsets, report };
    }
  }
  if (items.length > maxBuffers) {
    report.solver.status = 'too-large';
    report.solver.message = `${items.length} buffers, the solver takes at most ${maxBuffers}`;
    return { offsets: start, report };
  }
  const startPeak = report.final;
  const t0 = performance.now();
  const model = offsetIlp(items, start, align, lowerBound, startPeak);
  // The branch-and-bound node limit ends the search the same way on every machine, so a plan is reproducible byte
  // for byte; the time limit is only a safety net (a plan it stops says 'timeLimit').
  const r = solveSync({ lp: model.lp, start: model.start, timeLimit: opts.timeLimit ?? 30, options: { mip_max_nodes: opts.maxNodes ?? 500 } });
  if (r.status === 'solutionLimit') r.status = 'nodeLimit';
  report.solver = { status: r.status, ms: Math.round(performance.now() - t0), ...(r.message ? { message: r.message } : {}) };
  if (r.bound !== undefined) {
    // The dual bound is in alignment units; a peak is a whole number of them.
    const proven = Math.ceil(r.bound - 1e-6) * model.unit;
    if (proven > lowerBound) report.solver.bound = Math.min(proven, startPeak);
  }
  const solved = r.columns ? offsetsFromSolution(r.columns, items.length, model.unit) : undefined;
  if (solved && isValidPlacement(items, solved) && peakOf(items, solved, align) < startPeak) {
    report.final = peakOf(items, solved, align);
    return { offsets: solved, report };
  }
  if (solved && !isValidPlacement(items, solved)) report.solver.message = `the solver's placement overlaps: kept the ${report.placement ? 'placement' : 'greedy'}'s`;
  return { offsets: start, report };
}
