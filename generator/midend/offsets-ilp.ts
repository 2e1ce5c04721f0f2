/**
 * The offset-assignment integer program (dynamic storage allocation) for HiGHS, in CPLEX LP text:
 *
 *   minimise P
 *   P >= o_i + s_i                               every buffer ends below the peak
 *   o_i + s_i <= o_j + M (1 - z_ij)              z_ij = 1: i lies below j
 *   o_j + s_j <= o_i + M z_ij                    z_ij = 0: j lies below i
 *   (one pair of rows and one binary per pair of buffers whose lifetimes overlap)
 *   lower bound <= P <= greedy peak,  0 <= o_i <= greedy peak - s_i,  o_i integer
 *
 * Sizes and offsets are counted in alignment units, so every offset the solver returns is aligned. M is the greedy's
 * peak: no buffer ends above it, so M relaxes a row exactly when its binary says so, and it is the smallest such M
 * (a smaller big-M gives a tighter relaxation). The greedy's placement is the starting incumbent.
 */
import { alignUp, overlaps, type Interval } from './lifetimes.js';

export interface OffsetModel {
  lp: string;
  start: Record<string, number>;
  /** Bytes per unit of the model's sizes and offsets. */
  unit: number;
}

export function offsetIlp(items: readonly Interval[], greedy: readonly number[], align: number, lowerBound: number, greedyPeak: number): OffsetModel {
  const s = items.map((u) => alignUp(u.bytes, align) / align);
  const o = greedy.map((x) => x / align);
  const M = greedyPeak / align;
  const rows: string[] = [];
  const binaries: string[] = [];
  const start: Record<string, number> = { P: M };
  items.forEach((_, i) => {
    rows.push(` top${i}: P - o${i} >= ${s[i]}`);
    start[`o${i}`] = o[i];
  });
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      if (!overlaps(items[i], items[j])) continue;
      const z = `z${i}_${j}`;
      binaries.push(z);
      rows.push(` a${i}_${j}: o${i} - o${j} + ${M} ${z} <= ${M - s[i]}`);
      rows.push(` b${i}_${j}: o${j} - o${i} - ${M} ${z} <= ${-s[j]}`);
      start[z] = o[i] < o[j] ? 1 : 0;
    }
  }
  const lp = [
    'Minimize',
    ' peak: P',
    'Subject To',
    ...rows,
    'Bounds',
    ` ${lowerBound / align} <= P <= ${M}`,
    ...items.map((_, i) => ` 0 <= o${i} <= ${M - s[i]}`),
    'Generals',
    ...chunk(items.map((_, i) => `o${i}`)),
    ...(binaries.length > 0 ? ['Binaries', ...chunk(binaries)] : []),
    'End',
    '',
  ].join('\n');
  return { lp, start, unit: align };
}

/** Offsets in bytes from a solution's columns (rounded: integer columns come back as floating point). */
export function offsetsFromSolution(columns: Record<string, number>, count: number, unit: number): number[] | undefined {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const v = columns[`o${i}`];
    if (v === undefined || !Number.isFinite(v)) return undefined;
    out.push(Math.round(v) * unit);
  }
  return out;
}

/** LP-format lines stay short: a few names per line. */
function chunk(names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < names.length; i += 16) out.push(` ${names.slice(i, i + 16).join(' ')}`);
  return out;
}
