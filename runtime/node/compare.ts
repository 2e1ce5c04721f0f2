import type { NDArray } from '../../generator/ir/ndarray.js';
import { formatShape, sizeOf } from '../../generator/ir/ndarray.js';

export interface Comparison {
  errors: number;
  total: number;
  /** One line per output that differs: name, count, first index. */
  details: string[];
}

/**
 * Exact comparison of integer outputs (SEMANTICS.md: compared with ==). Expected arrays may hold more dims of
 * size 1 or another dtype (the .npz files store int64/float); values and element counts must agree.
 */
export function compareOutputs(names: string[], actual: NDArray[], expected: NDArray[]): Comparison {
  let errors = 0;
  let total = 0;
  const details: string[] = [];
  actual.forEach((a, i) => {
    const e = expected[i];
    total += a.data.length;
    if (!e || sizeOf(e.shape) !== a.data.length) {
      errors += a.data.length;
      details.push(`${names[i]}: expected ${e ? formatShape(e.shape) : 'no array'}, got ${formatShape(a.shape)}`);
      return;
    }
    let bad = 0;
    let first = -1;
    for (let k = 0; k < a.data.length; k++) {
      if (a.data[k] !== e.data[k]) {
        bad++;
        if (first < 0) first = k;
      }
    }
    if (bad > 0) details.push(`${names[i]}: ${bad} of ${a.data.length} differ (first at flat index ${first}: got ${a.data[first]}, expected ${e.data[first]})`);
    errors += bad;
  });
  return { errors, total, details };
}
