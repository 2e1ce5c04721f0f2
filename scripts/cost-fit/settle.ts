/**
 * The fit's rounds (fit.ts fitCosts) halve each fixed cost's move from the fourth round on, by whole steps of the
 * class; that can still close a loop of a few rounds (Siracusa, 2026-12-05: CODE_TILES 44 -> 44.078 -> 44.031 -> 44
 * with every other fixed cost held, for twenty rounds). A round's costs met before settle on the mean of the rounds
 * since, rounded to each class's step: the fixed point the rounds circle lies within the loop.
 */
import type { CostClass } from '../../generator/platforms/types.js';

export type RoundCosts = Map<CostClass, number>;

/** `next` as it stands, or the mean of the loop it closes among `history` (the rounds before it, oldest first). */
export function closeLoop(history: readonly RoundCosts[], next: RoundCosts, stepOf: (c: CostClass) => number): { costs: RoundCosts; looped: boolean } {
  const seen = history.findIndex((h) => sameCosts(h, next));
  if (seen < 0) return { costs: next, looped: false };
  const loop = history.slice(seen);
  const costs = new Map([...next.keys()].map((c) => {
    const mean = loop.reduce((s, r) => s + r.get(c)!, 0) / loop.length;
    return [c, Math.round(mean * stepOf(c)) / stepOf(c)] as const;
  }));
  return { costs, looped: true };
}

function sameCosts(a: RoundCosts, b: RoundCosts): boolean {
  return a.size === b.size && [...a].every(([c, v]) => b.get(c) === v);
}
