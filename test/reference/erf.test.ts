import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { erf } from '../../generator/reference/ops/float-math.js';

/* erf (GELU's float form) against published values (Abramowitz and Stegun table 7.1; erf(3.5), erf(5) from their 1 - erfc). */
const KNOWN: [number, number][] = [
  [0, 0], [0.1, 0.1124629160182849], [0.5, 0.5204998778130465], [1, 0.8427007929497149], [1.5, 0.9661051464753108],
  [2, 0.9953222650189527], [2.9, 0.9999589021219005], [3, 0.9999779095030014], [3.5, 0.9999992569016276],
  [5, 0.9999999999984626], [7, 1],
];

test('erf: within 1e-13 of the published values, odd, bounded', () => {
  for (const [x, want] of KNOWN) {
    assert.ok(Math.abs(erf(x) - want) < 1e-13, `erf(${x}) = ${erf(x)}, want ${want}`);
    assert.ok(Math.abs(erf(-x) + want) < 1e-13, `erf(${-x})`);
  }
  assert.ok(Number.isNaN(erf(NaN)));
});

test.run();
