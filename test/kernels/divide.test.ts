import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cDigits, cDivide, constDivision } from '../../generator/kernels/divide.js';

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

/*
 * cDigits: the C declarations a kernel's first unit splits its index by (gemm, conv's odometer, maxpool, elementwise).
 * Evaluated here as the C would (FG_DIVC truncated to 32 bits, shifts of a non-negative index, `/` truncating), for
 * every index up to the bound, against the digits by integer division.
 */
function evalDecls(decls: string, x: number): Map<string, number> {
  const vars = new Map<string, number>([['x', x]]);
  const value = (e: string): number => {
    const t = e.trim();
    let m = /^FG_DIVC\((\w+), (\d+)u, (\d+)\)$/.exec(t);
    if (m) return divc(vars.get(m[1])!, Number(m[2]), Number(m[3]));
    m = /^\(int32_t\)\(\(uint32_t\)\((\w+)\) >> (\d+)\)$/.exec(t);
    if (m) return vars.get(m[1])! >>> Number(m[2]);
    m = /^\((\w+)\) \/ (\d+)$/.exec(t);
    if (m) return Math.trunc(vars.get(m[1])! / Number(m[2]));
    m = /^(\w+) - (\w+) \* (\d+)$/.exec(t);
    if (m) return vars.get(m[1])! - vars.get(m[2])! * Number(m[3]);
    m = /^(\w+)$/.exec(t);
    if (m && vars.has(m[1])) return vars.get(m[1])!;
    throw new Error(`unexpected C: ${t}`);
  };
  for (const decl of decls.split(';').map((d) => d.trim()).filter(Boolean)) {
    const m = /^(?:const )?int32_t (\w+) = (.*)$/.exec(decl);
    if (!m) throw new Error(`unexpected declaration: ${decl}`);
    vars.set(m[1], value(m[2]));
  }
  return vars;
}

for (const radices of [[6, 12, 1], [3, 7, 5], [4, 10, 2], [1, 49, 3], [96, 5, 1], [7, 7, 7]]) {
  test(`cDigits of radices ${radices.join(', ')}: every unit's digits up to the bound (start = units included)`, () => {
    const units = radices.reduce((a, b) => a * b, 1) * 3;
    const decls = cDigits('x', units + 1, [...radices.map((radix, i) => ({ name: `d${i}`, radix })), { name: 'top' }], 'q');
    for (let x = 0; x <= units; x++) {
      const v = evalDecls(decls, x);
      let rest = x;
      radices.forEach((r, i) => {
        if (v.get(`d${i}`) !== rest % r) assert.unreachable(`${x}: digit ${i} ${v.get(`d${i}`)}, want ${rest % r} (${decls})`);
        rest = Math.floor(rest / r);
      });
      if (v.get('top') !== rest) assert.unreachable(`${x}: top ${v.get('top')}, want ${rest}`);
    }
  });
}

test('cDivide: a shift by a power of two, a multiply where exact, a division where none is', () => {
  assert.is(cDivide('u', 1, 100), 'u');
  assert.is(cDivide('u', 8, 100), '(int32_t)((uint32_t)(u) >> 3)');
  assert.match(cDivide('u', 6, 1000), /^FG_DIVC\(u, \d+u, \d+\)$/);
  assert.is(cDivide('u', 7, 1 << 16), '(u) / 7');
});

test.run();
