/**
 * iSoftmax's z = floor(-xt / log2) as a multiply by a reciprocal (kernels/softmax.ts reciprocalOf): the quotient of
 * every dividend in range against the division itself, exhaustively for 8- and 16-bit inputs' ranges and at every
 * multiple of the divisor and its neighbours (sampled) for ranges up to 2^31 - 1.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reciprocalOf } from '../../generator/kernels/softmax.js';

const quotient = (v: bigint, m: string): bigint => (v * BigInt(m.replace(/u$/, ''))) >> 32n;
const DIVISORS = [3n, 7n, 255n, 345n, 525n, 1000n, 4095n, 65535n, 1048577n];

test('every dividend of an 8- or 16-bit input range', () => {
  for (const R of [255n, 510n, 65535n]) {
    for (const d of DIVISORS) {
      const r = reciprocalOf(d, R);
      assert.ok(r, `d ${d}, R ${R}: a reciprocal`);
      assert.ok(BigInt(r.m.replace(/u$/, '')) < 1n << 32n, 'a 32-bit multiplier');
      for (let v = 0n; v <= R; v++) if (quotient(v, r.m) !== v / d) assert.unreachable(`${v} / ${d} = ${v / d}, got ${quotient(v, r.m)}`);
    }
  }
});

test('multiples of the divisor and their neighbours up to 2^20 and 2^31 - 1, where the bound holds', () => {
  for (const R of [1n << 20n, (1n << 31n) - 1n]) {
    let checked = 0;
    for (const d of DIVISORS) {
      const r = reciprocalOf(d, R);
      if (!r) continue;
      checked++;
      const stride = (R / d / 5000n + 1n) * d;
      for (let base = 0n; base <= R; base += stride) {
        for (const v of [base - 1n, base, base + 1n, base + d - 1n]) if (v >= 0n && v <= R) assert.is(quotient(v, r.m), v / d, `d ${d}: ${v}`);
      }
      assert.is(quotient(R, r.m), R / d, `d ${d}: R`);
    }
    assert.ok(checked >= 1, `R ${R}: ${checked} divisors with a reciprocal`);
  }
});

test('powers of two, 1 and ranges past 31 bits keep the division', () => {
  for (const d of [1n, 2n, 1024n]) assert.is(reciprocalOf(d, 65535n), false);
  assert.is(reciprocalOf(525n, 1n << 31n), false);
});

test.run();
