import type { IntType } from '../../generator/ir/dtype.js';
import { rangeOf } from '../../generator/ir/dtype.js';
import { ndarray, sizeOf, type NDArray } from '../../generator/ir/ndarray.js';
import type { Rng } from './random.js';

/**
 * Random values that make the sample-driven type inference give the input exactly `dtype`: drawn from the
 * type's range (or [-limit, limit] within it), with the first two values pinned to the extremes.
 */
export function randomValues(rng: Rng, dtype: IntType, shape: number[], limit?: number): NDArray {
  const r = rangeOf(dtype);
  const lo = limit === undefined ? r.min : Math.max(r.min, -limit);
  const hi = limit === undefined ? r.max : Math.min(r.max, limit);
  const n = sizeOf(shape);
  const v = rng.ints(n, lo, hi);
  if (n > 0) v[0] = lo;
  if (n > 1) v[1] = hi;
  return ndarray(dtype, shape, v);
}
