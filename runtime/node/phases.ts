/**
 * A layer's time on core 0 cut where the team's barriers released it: its driving before the first barrier, the
 * kernel between barriers, the write-back and the join after them. On the ISS from the trace's records (core 0 is
 * hart 1; a release is the end of its barrier wait), on the AS path from its fork phases (core 0 is agent 1; a
 * release is the start of a phase after the first). For whoever compares the two modes phase by phase (cost:explain,
 * the cost fit's fixed costs).
 */
import type { IssLayer, IssRun } from './iss-run.js';
import type { RunResult } from './run.js';

/** The lengths of [start, end) cut at the times in `cuts` that lie inside it. */
export function cutAt(start: number, cuts: number[], end: number): number[] {
  const at = [start, ...cuts.filter((t) => t > start && t < end).sort((a, b) => a - b), end];
  return at.slice(1).map((t, i) => t - at[i]);
}

export function issPhases(r: IssRun, l: IssLayer): number[] {
  const releases = r.timeline.waits.filter((w) => w.hart === 1 && w.why === 'barrier' && w.start >= l.start && w.end <= l.end).map((w) => w.end);
  return cutAt(l.start, releases, l.end);
}

/** Undefined when the run has no such layer. */
export function asPhases(r: RunResult, layer: number): number[] | undefined {
  const l = r.layers.find((x) => x.layer === layer);
  if (!l) return undefined;
  const releases = [...new Set(r.shares.filter((s) => s.layer === layer && s.agent === 1 && s.phase > 0).map((s) => s.start))];
  return cutAt(l.start, releases, l.end);
}

/** Pieces folded into two: before the first release, and the rest (the modes' counts of later cuts differ: the ISS's
 * join is a barrier, the AS's is not). */
export function beforeAndAfterFirst(pieces: number[]): [number, number] {
  return [pieces[0] ?? 0, pieces.slice(1).reduce((a, b) => a + b, 0)];
}
