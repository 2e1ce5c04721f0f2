import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constDivision } from '../../generator/kernels/divide.js';

/*
 * FG_DIVC (runtime/c/include/firmgen_hal.h): x / d as (x * m) >> s in 32-bit unsigned arithmetic, exact for every
 * 0 <= x < bound. Checked here against the integer division itself on every x below the bound, the product
 * truncated to 32 bits as the C computes it.
 */
const divc = (x: number, m: number, s: number): number => Number((BigInt(x) * BigInt(m)) & 0xffffffffn) >>> s;

function exactBelow(d: number, bound: number): void {
  const c = constDivision(d, bound);
  assert.ok(c, `a multiplier for ${d} below ${bound}`);
  for (let x = 0; x < bound; x++) {
    if (divc(x, c!.m, c!.s) !== Math.floor(x / d)) assert.unreachable(`${x} / ${d}: ${divc(x, c!.m, c!.s)}, want ${Math.floor(x / d)}`);
  }
}

for (const [d, bound] of [[3, 1 << 16], [5, 40000], [6, 9000], [25, 30000], [49, 1 << 15], [96, 1 << 16], [1, 1000], [16, 1 << 16]]) {
  test(`x / ${d} for every x below ${bound}`, () => exactBelow(d, bound));
}

test('every divisor up to 256 for a tile of up to 4096 units (m = 2^20 / d fits)', () => {
  for (let d = 1; d <= 256; d++) exactBelow(d, 4096);
});

test('where one exists it is exact, for every divisor up to 100 below 2^16', () => {
  let found = 0;
  for (let d = 1; d <= 100; d++) {
    if (!constDivision(d, 1 << 16)) continue;
    found++;
    exactBelow(d, 1 << 16);
  }
  assert.ok(found > 50, `${found} divisors`);
});

test('powers of two are shifts', () => {
  assert.equal(constDivision(16, 1 << 20), { m: 1, s: 4 });
});

test('no multiplier when the product would pass 32 bits', () => {
  // d = 7 below 2^16: m = ceil(2^s / 7) leaves e = 6 at s = 18 and 3 at s = 17, too much for 2^16 values, and
  // s = 19 makes the product pass 32 bits; the C divides.
  assert.is(constDivision(7, 1 << 16), null);
  assert.is(constDivision(7, 2 ** 31), null);
  assert.is(constDivision(0, 10), null);
});

test.run();
