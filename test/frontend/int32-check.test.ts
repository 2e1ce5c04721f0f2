import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { INT32_MAX, INT32_MIN, isInt32 } from '../../generator/validate/site.js';

/* isInt32 (one ToInt32 comparison, run on every constant element) against the definition: an integer in int32's range. */
test('isInt32 holds exactly for the integers of int32 range', () => {
  const definition = (v: number): boolean => Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
  const edges = [0, -0, 1, -1, 0.5, -0.5, INT32_MAX, INT32_MAX + 1, INT32_MIN, INT32_MIN - 1, 2 ** 32, -(2 ** 32), 2 ** 32 + 5,
    2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity, 1e-300, 2147483646.5, -2147483647.5];
  for (const v of edges) assert.is(isInt32(v), definition(v), String(v));
  assert.equal(edges.filter(isInt32), [0, -0, 1, -1, INT32_MAX, INT32_MIN]);
});

test.run();
