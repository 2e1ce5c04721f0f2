import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IntRange } from '../../generator/ir/dtype.js';
import type { Node } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { exactDotBounds, type VectorLayout } from '../../generator/reference/dot-bounds.js';
import type { TensorInfo } from '../../generator/reference/op-spec.js';
import { opSpec } from '../../generator/reference/registry.js';
import { Rng } from '../helpers/random.js';

/**
 * The sums by sign (reference/dot-bounds.ts) give exactly what summing min/max(c * r.min, c * r.max) term by term
 * gives (Object.is: -0 too), for rows and for columns of batched (K, N) blocks, and refuse where that sum could
 * round. The term-by-term sum here is the oracle, written out again.
 */
function termByTerm(data: number[], K: number, layout: VectorLayout, r: IntRange): [number, number][] {
  const out: [number, number][] = [];
  for (let v = 0; v < data.length / K; v++) {
    const start = layout.rows ? v * K : Math.floor(v / layout.N) * K * layout.N + (v % layout.N);
    const step = layout.rows ? 1 : layout.N;
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < K; k++) {
      const c = data[start + k * step];
      lo += Math.min(c * r.min, c * r.max);
      hi += Math.max(c * r.min, c * r.max);
    }
    out.push([lo, hi]);
  }
  return out;
}

function bySign(data: number[], K: number, layout: VectorLayout, r: IntRange): [number, number][] | undefined {
  const out: [number, number][] = [];
  const ok = exactDotBounds(data, data.length / K, K, layout, r, (v, lo, hi) => {
    assert.is(v, out.length);
    out.push([lo, hi]);
  });
  return ok ? out : undefined;
}

function assertSame(got: [number, number][] | undefined, want: [number, number][], what: string): void {
  assert.ok(got, `${what}: refused`);
  assert.is(got.length, want.length, what);
  got.forEach(([lo, hi], v) => {
    assert.ok(Object.is(lo, want[v][0]) && Object.is(hi, want[v][1]), `${what} vector ${v}: [${lo}, ${hi}] vs [${want[v]}]`);
  });
}

test('random integer weights and ranges, rows and batched columns: the term-by-term bounds', () => {
  const rng = new Rng(15);
  for (let i = 0; i < 300; i++) {
    const K = rng.int(1, 40);
    const N = rng.int(1, 6);
    const batch = rng.int(1, 3);
    const wide = rng.int(0, 2); // int8, int16, int32-sized weights
    const span = [127, 32767, 2 ** 31 - 1][wide];
    const data = Array.from({ length: batch * K * N }, () => (rng.int(0, 4) === 0 ? 0 : rng.int(-span - 1, span)));
    const a = rng.int(-(2 ** 15), 2 ** 15);
    const b = rng.int(-(2 ** 15), 2 ** 15);
    const r = { min: Math.min(a, b), max: Math.max(a, b) };
    for (const layout of [{ rows: true as const }, { rows: false as const, N }]) {
      const what = `case ${i} ${layout.rows ? 'rows' : 'columns'}`;
      const want = termByTerm(data, K, layout, r);
      const got = bySign(data, K, layout, r);
      if (wide === 2 && K * 2 ** 31 * Math.max(Math.abs(r.min), Math.abs(r.max)) > Number.MAX_SAFE_INTEGER) continue; // may refuse
      assertSame(got, want, what);
    }
  }
});

test('edge cases: zero ranges and weights (+0, never -0), one-sided ranges, all-negative weights', () => {
  const cases: [number[], number, IntRange][] = [
    [[0, 0, 0, 0], 2, { min: -5, max: -1 }],
    [[-3, -2, -1, -4], 2, { min: -5, max: -1 }],
    [[-3, 2, 0, -4], 4, { min: 0, max: 0 }],
    [[7, -7, 7, -7], 2, { min: 3, max: 9 }],
    [[1, 2, 3], 3, { min: -128, max: 127 }],
  ];
  cases.forEach(([data, K, r], i) => {
    for (const layout of [{ rows: true as const }, { rows: false as const, N: 1 }]) {
      assertSame(bySign(data, K, layout, r), termByTerm(data, K, layout, r), `edge ${i}`);
    }
  });
});

test('refused where the term-by-term sum could round: beyond 2^53, fractions, non-integer ranges', () => {
  assert.is(bySign([2 ** 31, 2 ** 31, 2 ** 31, 2 ** 31], 4, { rows: true }, { min: -(2 ** 31), max: 2 ** 31 }), undefined);
  assert.is(bySign([1.5, 2], 2, { rows: true }, { min: -3, max: 3 }), undefined);
  assert.is(bySign([1, 2], 2, { rows: true }, { min: -Infinity, max: 3 }), undefined);
  assert.is(bySign([1, 2], 2, { rows: true }, { min: -0.5, max: 3 }), undefined);
});

test('sums kept per weight array: the same array with another layout or shape gives its own bounds', () => {
  const data = [1, -2, 3, -4, 5, -6];
  const r = { min: -3, max: 7 };
  assertSame(bySign(data, 3, { rows: true }, r), termByTerm(data, 3, { rows: true }, r), 'rows of 3');
  assertSame(bySign(data, 2, { rows: true }, r), termByTerm(data, 2, { rows: true }, r), 'rows of 2');
  assertSame(bySign(data, 3, { rows: false, N: 2 }, r), termByTerm(data, 3, { rows: false, N: 2 }, r), 'columns of 3');
  assertSame(bySign(data, 2, { rows: false, N: 3 }, r), termByTerm(data, 2, { rows: false, N: 3 }, r), 'columns of 2');
});

/** The op's range over its operands (a constant: data and its own range; else the range given). */
function opRange(op: string, attrs: Record<string, number>, inputs: TensorInfo[]): IntRange {
  const node: Node = {
    name: 't', op, domain: '', inputs: inputs.map((_, i) => `in${i}`), outputs: ['out'],
    attrs: Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, { kind: 'int', value: v }])),
  };
  return opSpec(op)!.range!(node, inputs)[0];
}

const constant = (shape: number[], data: number[]): TensorInfo => {
  const lo = Math.min(...data);
  const hi = Math.max(...data);
  return { shape, dtype: 'int32', range: { min: lo, max: hi }, data: ndarray('int64', shape, data) };
};
const variable = (shape: number[], r: IntRange): TensorInfo => ({ shape, dtype: 'int32', range: r });
const envelope = (b: [number, number][]): IntRange => ({ min: Math.min(...b.map((x) => x[0])), max: Math.max(...b.map((x) => x[1])) });

test('Gemm with its constant stored transposed (transB, transA), MatMul and Conv: the term-by-term envelope', () => {
  const rng = new Rng(7);
  for (let i = 0; i < 40; i++) {
    const [M, K, N] = [rng.int(1, 5), rng.int(1, 9), rng.int(1, 6)];
    const big = i % 10 === 9; // beyond 2^53: the exact sums refuse and the ops sum term by term
    const span = big ? 2 ** 40 : 127;
    const r = big ? { min: -(2 ** 20), max: 2 ** 20 } : { min: rng.int(-128, 0), max: rng.int(0, 127) };
    const w = Array.from({ length: K * N }, () => rng.int(-span, span));
    // B stored (N, K), transB: vectors are B's rows.
    const wantB = envelope(termByTerm(w, K, { rows: true }, r));
    assert.equal(opRange('Gemm', { transB: 1 }, [variable([M, K], r), constant([N, K], w)]), wantB, `Gemm transB ${i}`);
    // the same B stored (K, N) without transB: its columns, and MatMul alike.
    const wT = Array.from({ length: K * N }, (_, j) => w[(j % N) * K + Math.floor(j / N)]);
    assert.equal(opRange('Gemm', {}, [variable([M, K], r), constant([K, N], wT)]), wantB, `Gemm ${i}`);
    assert.equal(opRange('MatMul', {}, [variable([M, K], r), constant([K, N], wT)]), wantB, `MatMul ${i}`);
    // A stored (K, M), transA, B not constant: vectors are A's columns.
    const a = Array.from({ length: K * M }, () => rng.int(-span, span));
    const wantA = envelope(termByTerm(a, K, { rows: false, N: M }, r));
    assert.equal(opRange('Gemm', { transA: 1 }, [constant([K, M], a), variable([K, N], r)]), wantA, `Gemm transA ${i}`);
    // Conv 1x1 over N input channels, K output channels... as filters of N taps: rows of (K, N).
    const x = variable([1, N, 3, 3], r);
    assert.equal(opRange('Conv', {}, [x, constant([K, N, 1, 1], w.slice(0, K * N))]), envelope(termByTerm(w, N, { rows: true }, r)), `Conv ${i}`);
  }
});

test.run();
