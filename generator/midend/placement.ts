/**
 * Constructive placements of buffers with lifetimes, tried when the plain greedy (offsets.ts greedyOffsets: largest
 * first, lowest free offset) misses the live-set bound, before the integer program: each is a few microseconds per
 * buffer where a solve in HiGHS costs a process and a wasm load. Every one is deterministic (orders are total: ties
 * go to the input order), so a plan is reproducible byte for byte.
 */
import { alignUp, overlaps, type Interval } from './lifetimes.js';

/** How a placement orders the buffers and picks a buffer's place among the gaps its live neighbours leave. */
export interface PlacementRule {
  name: string;
  /** Negative when buffer a is placed before b; `load` is the heaviest live set over a buffer's lifetime. */
  order: (a: Interval, b: Interval, load: (u: Interval) => number) => number;
  /** 'first': the lowest gap that holds it; 'best': the tightest such gap (the lowest among equals). */
  fit: 'first' | 'best';
}

const length = (u: Interval): number => u.last - u.first + 1;

/*
 * The rules tried, in order (the first that reaches the bound wins; otherwise the lowest peak, earliest rule on
 * ties). Largest first with best fit keeps small buffers out of gaps a later large one could have used; by area
 * (bytes x steps) and by longest life place what constrains most first; by first use is the allocator's view.
 */
export const PLACEMENT_RULES: PlacementRule[] = [
  // What lives through the heaviest steps first: at the peak the live buffers must stack without a gap.
  { name: 'busiest steps, best fit', order: (a, b, load) => load(b) - load(a) || b.bytes - a.bytes || a.first - b.first, fit: 'best' },
  { name: 'busiest steps, first fit', order: (a, b, load) => load(b) - load(a) || b.bytes - a.bytes || a.first - b.first, fit: 'first' },
  { name: 'largest, best fit', order: (a, b) => b.bytes - a.bytes || a.first - b.first, fit: 'best' },
  { name: 'largest area, best fit', order: (a, b) => b.bytes * length(b) - a.bytes * length(a) || b.bytes - a.bytes, fit: 'best' },
  { name: 'longest life, best fit', order: (a, b) => length(b) - length(a) || b.bytes - a.bytes, fit: 'best' },
  { name: 'first use, best fit', order: (a, b) => a.first - b.first || b.bytes - a.bytes, fit: 'best' },
  { name: 'largest area, first fit', order: (a, b) => b.bytes * length(b) - a.bytes * length(a) || b.bytes - a.bytes, fit: 'first' },
  { name: 'longest life, first fit', order: (a, b) => length(b) - length(a) || b.bytes - a.bytes, fit: 'first' },
];

/** Offsets (in input order) of the buffers placed one by one in the rule's order. */
export function placeBy(items: readonly Interval[], align: number, rule: PlacementRule): number[] {
  const live = liveBytes(items, align);
  const load = (u: Interval): number => Math.max(...live.slice(u.first, u.last + 1));
  const order = items.map((_, i) => i).sort((a, b) => rule.order(items[a], items[b], load) || a - b);
  const offsets = new Array<number>(items.length).fill(0);
  const placed: number[] = [];
  for (const i of order) {
    const size = alignUp(items[i].bytes, align);
    const neighbours = placed.filter((j) => overlaps(items[i], items[j])).sort((a, b) => offsets[a] - offsets[b] || a - b);
    // Gaps between the live neighbours, bottom up; the space above the highest one is the last (endless) gap.
    let at = 0;
    let chosen = -1;
    let chosenGap = Infinity;
    for (const j of neighbours) {
      const gap = offsets[j] - at;
      if (gap >= size && (rule.fit === 'first' ? chosen < 0 : gap < chosenGap)) {
        chosen = at;
        chosenGap = gap;
        if (rule.fit === 'first') break;
      }
      at = Math.max(at, alignUp(offsets[j] + items[j].bytes, align));
    }
    offsets[i] = chosen >= 0 ? chosen : at;
    placed.push(i);
  }
  return offsets;
}

/** Bytes live at each step (aligned sizes). */
function liveBytes(items: readonly Interval[], align: number): number[] {
  const steps = Math.max(0, ...items.map((u) => u.last)) + 1;
  const live = new Array<number>(steps).fill(0);
  for (const u of items) for (let s = u.first; s <= u.last; s++) live[s] += alignUp(u.bytes, align);
  return live;
}
