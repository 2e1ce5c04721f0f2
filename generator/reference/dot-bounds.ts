import type { IntRange } from '../ir/dtype.js';

/*
 * Bounds of dot products with a constant operand (a conv's filters, a product's constant matrix): for vector v of
 * the constant and any operand x in [r.min, r.max], sum_k min(c_k * r.min, c_k * r.max) and likewise max. Summed
 * term by term this cost a pass over the weights at every range query (inference, then the int32 check of
 * validate/types.ts, per generation: ~25 ms of a 0.5 s CPU profile of CNN_Linear2, and most of its garbage). The
 * sum splits by the sign of c_k: lo = r.min * P + r.max * N and hi = r.max * P + r.min * N with P and N the sums of
 * the vector's positive and negative entries, which depend on the weights alone and are kept per weight array.
 * The split is used only where both ways are exact (integers, every partial sum below 2^53), so it gives the very
 * numbers the term-by-term sum gives; elsewhere the callers sum the terms as before.
 */

/** Where a constant's K-long vectors lie: rows (vector v from v*K, step 1), or the columns of (batch, K, N) blocks. */
export type VectorLayout = { rows: true } | { rows: false; N: number };

interface SignedSums {
  /** Per vector: the sum of its positive entries, and of its negative entries. */
  pos: Float64Array;
  neg: Float64Array;
  /** The largest sum of |entries| over the vectors; Infinity when an entry is not a safe integer. */
  largestAbs: number;
}

/** By weight array (constants are not changed in place once loaded), then by vector layout. */
const sumsByData = new WeakMap<object, Map<string, SignedSums>>();

/** Where vector v of a constant laid out as `layout` starts (its entries then step by 1 for rows, by N for columns). */
export function vectorStart(v: number, K: number, layout: VectorLayout): number {
  return layout.rows ? v * K : Math.floor(v / layout.N) * K * layout.N + (v % layout.N);
}

function signedSums(data: ArrayLike<number>, count: number, K: number, layout: VectorLayout): SignedSums {
  let byLayout = sumsByData.get(data);
  if (!byLayout) {
    byLayout = new Map();
    sumsByData.set(data, byLayout);
  }
  const key = `${count}x${K}${layout.rows ? 'r' : `c${layout.N}`}`;
  let s = byLayout.get(key);
  if (!s) {
    s = { pos: new Float64Array(count), neg: new Float64Array(count), largestAbs: 0 };
    const step = layout.rows ? 1 : layout.N;
    for (let v = 0; v < count; v++) {
      let p = 0;
      let n = 0;
      for (let k = 0, at = vectorStart(v, K, layout); k < K; k++, at += step) {
        const c = data[at];
        if (!Number.isSafeInteger(c)) s.largestAbs = Infinity;
        if (c > 0) p += c;
        else n += c;
      }
      s.pos[v] = p;
      s.neg[v] = n;
      s.largestAbs = Math.max(s.largestAbs, p - n);
    }
    byLayout.set(key, s);
  }
  return s;
}

/**
 * Calls each(v, lo, hi) for every vector v of the constant `data` with the bounds of its dot product with an
 * operand in r, exactly as summing min/max(c_k * r.min, c_k * r.max) term by term gives them, and returns true; or
 * returns false, calling nothing, where that sum could round (the caller then sums term by term itself).
 */
export function exactDotBounds(
  data: ArrayLike<number>, count: number, K: number, layout: VectorLayout, r: IntRange,
  each: (v: number, lo: number, hi: number) => void,
): boolean {
  if (!Number.isSafeInteger(r.min) || !Number.isSafeInteger(r.max)) return false;
  const s = signedSums(data, count, K, layout);
  // Every product and partial sum either way is then an integer below 2^53 in magnitude: both sums are exact.
  if (!(s.largestAbs * Math.max(Math.abs(r.min), Math.abs(r.max)) <= Number.MAX_SAFE_INTEGER)) return false;
  for (let v = 0; v < count; v++) {
    // + 0: the term-by-term sum starts at +0 and is never -0; 0 times a negative sum here would be.
    each(v, r.min * s.pos[v] + r.max * s.neg[v] + 0, r.max * s.pos[v] + r.min * s.neg[v] + 0);
  }
  return true;
}

/** The range over all vectors' dot products (exactDotBounds' lows and highs), or undefined where it does not apply. */
export function exactDotRange(data: ArrayLike<number>, count: number, K: number, layout: VectorLayout, r: IntRange): IntRange | undefined {
  let min = Infinity;
  let max = -Infinity;
  const fold = (_v: number, lo: number, hi: number): void => {
    min = Math.min(min, lo);
    max = Math.max(max, hi);
  };
  return exactDotBounds(data, count, K, layout, r, fold) ? { min, max } : undefined;
}
