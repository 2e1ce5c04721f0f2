import { evaluateLayer, type LayerContext, type LayerEval, type Partition, totalsOf } from './cost.js';
import { hasFilters, type LayerShape } from './layers.js';

/** What the search minimises: nn_dataflow's goals E(nergy), D(elay) and ED (their product). */
export type Objective = 'time' | 'energy' | 'edp';

export function score(objective: Objective, cycles: number, energy: number): number {
  return objective === 'time' ? cycles : objective === 'energy' ? energy : cycles * energy;
}

/** Divisors of n, ascending. */
export function divisors(n: number): number[] {
  const out: number[] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d);
  return out;
}

/**
 * Every partitioning of exactly `n` engines: ordered factorisations n = pb x po x ph x pw x pi with each factor at
 * most its dimension (a factor beyond it would leave engines without work). Hybrids are all the tuples with more than
 * one factor above 1. For n = 256 there are at most 495 tuples (the ordered 5-factor splits of 2^8).
 */
export function partitionsOf(l: LayerShape, batch: number, n: number): Partition[] {
  const out: Partition[] = [];
  const ds = divisors(n);
  const maxPi = hasFilters(l) ? l.c : 1;
  for (const pb of ds) {
    if (pb > batch) break;
    const n1 = n / pb;
    for (const po of divisors(n1)) {
      if (po > l.k) break;
      const n2 = n1 / po;
      for (const ph of divisors(n2)) {
        if (ph > l.h) break;
        const n3 = n2 / ph;
        for (const pw of divisors(n3)) {
          if (pw > l.w) break;
          const pi = n3 / pw;
          if (pi > maxPi) continue;
          out.push({ pb, po, ph, pw, pi });
        }
      }
    }
  }
  return out;
}

/**
 * The best partitioning of a layer on a region of `engines` engines for the objective (ties: fewer cycles, then
 * less energy, then the first enumerated: deterministic). The search uses the most engines it can: when no tuple
 * of exactly `engines` fits the layer's dimensions (a region of 7 engines for a 4-channel layer), it tries one
 * engine fewer, down to 1 (always possible: every factor 1).
 */
export function bestPartition(l: LayerShape, engines: number, ctx: LayerContext, objective: Objective): LayerEval | undefined {
  for (let n = engines; n >= 1; n--) {
    let best: { e: LayerEval; s: number; cycles: number; energy: number } | undefined;
    for (const p of partitionsOf(l, ctx.batch, n)) {
      const e = evaluateLayer(l, p, engines, ctx);
      if (!e) continue;
      const t = totalsOf(e, ctx.hw);
      const s = score(objective, t.cycles, t.energy.total);
      if (!best || s < best.s || (s === best.s && (t.cycles < best.cycles || (t.cycles === best.cycles && t.energy.total < best.energy)))) {
        best = { e, s, cycles: t.cycles, energy: t.energy.total };
      }
    }
    if (best) return best.e;
  }
  return undefined;
}
