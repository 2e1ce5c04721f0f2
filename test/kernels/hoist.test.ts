/**
 * kernels/hoist.ts: what a fused expression computes once a run. A requantization's offset and rounding constant are
 * one hoisted value; a sub-expression of per-run operands alone is hoisted whole; a sum with a proven bound stays as
 * it is; and the regrouped expression gives the original's value for every leaf value tried (exact integers, BigInt).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Expr } from '../../generator/ir/graph.js';
import { hoistInvariant } from '../../generator/kernels/hoist.js';
import { Rng } from '../helpers/random.js';

const inp = (i: number): Expr => ({ k: 'in', i });
const c = (v: number): Expr => ({ k: 'const', v });
const add = (a: Expr, b: Expr): Expr => ({ k: 'add', a, b });
const mul = (a: Expr, b: Expr): Expr => ({ k: 'mul', a, b });
const shr = (a: Expr, s: number): Expr => ({ k: 'shr', a, s });
const clip = (a: Expr, lo: number, hi: number): Expr => ({ k: 'clip', a, lo, hi });

/** The expression's value: add, mul, arithmetic shift right, clip, over leaves then hoisted values. */
function value(e: Expr, v: bigint[]): bigint {
  switch (e.k) {
    case 'in': return v[e.i];
    case 'const': return BigInt(e.v);
    case 'add': return value(e.a, v) + value(e.b, v);
    case 'mul': return value(e.a, v) * value(e.b, v);
    case 'shr': return value(e.a, v) >> BigInt(e.s);
    case 'clip': { const x = value(e.a, v); return x < BigInt(e.lo) ? BigInt(e.lo) : x > BigInt(e.hi) ? BigInt(e.hi) : x; }
    default: throw new Error(`no ${e.k} here`);
  }
}

const leaves = (n: number, range = { min: -32768, max: 32767 }) => Array.from({ length: n }, (_, k) => ({ name: `v${k}`, range }));

// x = in0 (streamed), m = in1, b = in2 (per tensor): clip((x*m + b + 2^20) >> 21)
const requant = clip(shr(add(add(mul(inp(0), inp(1)), inp(2)), c(1 << 20)), 21), -128, 127);

test('a requantization: its offset and rounding constant are one value a run', () => {
  const h = hoistInvariant(requant, (k) => k !== 0, leaves(3));
  assert.is(h.hoisted.length, 1);
  assert.equal(h.hoisted[0], add(inp(2), c(1 << 20)));
  assert.equal(h.expr, clip(shr(add(mul(inp(0), inp(1)), inp(3)), 21), -128, 127));
});

test('nothing to hoist when every operand streams, or a sum carries a proven bound', () => {
  assert.is(hoistInvariant(requant, () => false, leaves(3)).hoisted.length, 0);
  const bounded: Expr = { k: 'add', a: add(inp(0), inp(1)), b: c(7), bound: { min: -10, max: 10 } };
  assert.is(hoistInvariant(bounded, (k) => k === 1, leaves(2)).hoisted.length, 0);
});

test('a product of per-run operands is hoisted whole; a value past int32 is not', () => {
  const e = add(inp(0), mul(inp(1), inp(2)));
  assert.equal(hoistInvariant(e, (k) => k > 0, leaves(3)).hoisted, [mul(inp(1), inp(2))]);
  assert.is(hoistInvariant(e, (k) => k > 0, leaves(3, { min: -(2 ** 20), max: 2 ** 20 })).hoisted.length, 0);
});

test('the regrouped expression keeps the value (a rotary-like join of twelve operands, random leaves)', () => {
  const rot = clip(shr(add(add(mul(add(shr(add(add(mul(mul(inp(5), inp(6)), inp(3)), inp(4)), c(1 << 20)), 21), c(0)), inp(2)),
    mul(clip(shr(add(add(mul(mul(inp(10), inp(11)), inp(8)), inp(9)), c(1 << 17)), 18), -128, 127), inp(7))), inp(1)), 23), -128, 127);
  const streamed = new Set([5, 6, 10, 11]);
  const h = hoistInvariant(rot, (k) => !streamed.has(k), leaves(12, { min: -128, max: 127 }));
  assert.ok(h.hoisted.length >= 2, `${h.hoisted.length} hoisted`);
  const rng = new Rng(11);
  for (let t = 0; t < 2000; t++) {
    const v = Array.from({ length: 12 }, () => BigInt(rng.int(-128, 127)));
    const all = [...v, ...h.hoisted.map((x) => value(x, v))];
    assert.is(value(h.expr, all), value(rot, v));
  }
});

test.run();
