import { emitExpr, type Leaf } from '../backend/expr.js';
import type { IntRange } from '../ir/dtype.js';
import type { Expr } from '../ir/graph.js';

/**
 * The parts of a fused elementwise expression that do not change along its inner loop, computed once per run of it:
 * every sub-expression whose operands are all the same for the run's elements (per-tensor multipliers, offsets,
 * rounding constants), and in a sum the terms that are, gathered into one value. A requantization's
 * `x*m + b + 2^(s-1)` then adds one value a element, not two: gcc 12 does not reassociate the signed sum itself (the
 * tiny-llama's rotary join added three such pairs per element, its twelve operands already short of registers).
 * Integer sums are exact in any order; the emitter proves each hoisted value's range (only an int32 one is hoisted)
 * and the remaining expression's words from the ranges, as before.
 */
export interface Hoisted {
  /** The expression over the leaves and, after them, the hoisted values (leaf indices leaves.length on). */
  expr: Expr;
  /** The hoisted sub-expressions over the leaves, in the order of their leaf indices. */
  hoisted: Expr[];
  /** Each hoisted value's range (as the emitter proves it). */
  ranges: IntRange[];
}

export function hoistInvariant(e: Expr, invariant: (leaf: number) => boolean, leaves: Leaf[]): Hoisted {
  const hoisted: Expr[] = [];
  const ranges: IntRange[] = [];
  const fixed = (x: Expr): boolean => {
    switch (x.k) {
      case 'in': return invariant(x.i);
      case 'const': return true;
      case 'shr': case 'clip': case 'abs': case 'sign': case 'signp': case 'wrap8': return fixed(x.a);
      default: return fixed(x.a) && fixed(x.b);
    }
  };
  /** A leaf for `x` computed once a run, when its value is an int32 (a leaf's word). */
  const hoist = (x: Expr): Expr | undefined => {
    const r = emitExpr(x, leaves).range;
    if (r.min < -2147483648 || r.max > 2147483647) return undefined;
    hoisted.push(x);
    ranges.push(r);
    return { k: 'in', i: leaves.length + hoisted.length - 1 };
  };
  // A sum with a proven bound (a split product's low half: backend/expr.ts splitRequantExpr) stays whole: its bound
  // holds for it, not for a regrouping.
  const terms = (x: Expr): Expr[] => (x.k === 'add' && !x.bound ? [...terms(x.a), ...terms(x.b)] : [x]);
  const sum = (xs: Expr[]): Expr => xs.reduce((a, b) => ({ k: 'add', a, b }));
  const walk = (x: Expr): Expr => {
    if (x.k === 'in' || x.k === 'const') return x;
    if (fixed(x)) return hoist(x) ?? x;
    if (x.k === 'add' && !x.bound) {
      const all = terms(x);
      const still = all.filter((t) => fixed(t));
      if (still.length >= 2) {
        const h = hoist(sum(still));
        if (h) {
          return sum([...all.filter((t) => !fixed(t)).map(walk), h]);
        }
      }
    }
    switch (x.k) {
      case 'shr': case 'clip': case 'abs': case 'sign': case 'signp': case 'wrap8': return { ...x, a: walk(x.a) };
      default: return { ...x, a: walk(x.a), b: walk(x.b) } as Expr;
    }
  };
  const expr = walk(e);
  return { expr, hoisted, ranges };
}
