import { GenError } from '../errors.js';
import { emitExpr, type Leaf } from '../backend/expr.js';
import type { DType } from '../ir/dtype.js';
import { isIntType, rangeOf } from '../ir/dtype.js';
import type { Expr } from '../ir/graph.js';
import { toRank, type LoopNest } from './loops.js';
import { typeNames } from './common.js';
import { cDigits } from './divide.js';

/**
 * One loop nest of the 'elementwise' template: y[dst] = expr(leaves[src_k]) over up to four loops, every operand
 * with its own element strides and offset. Elementwise ops are one part; data movement (Concat, Slice, Transpose,
 * Gather) is one part per contiguous destination region with the identity expression.
 */
export interface PartOperand {
  field: string;
  dtype: DType;
  strides: number[];
  offset: number;
}

export interface PartSpec {
  dims: number[];
  leaves: (PartOperand & { range: Leaf['range'] })[];
  out: PartOperand;
  /** Over the leaves and, after them, the hoisted values. */
  expr: Expr;
  /** Sub-expressions of the leaves the inner loop does not move along, computed once a run (kernels/hoist.ts). */
  hoisted?: Expr[];
}

/** An inner loop at most this long is a short run (a transpose's last axis of 2 or 4). */
const SHORT_RUN = 4;

/**
 * The nest with its longest loop inside when the inner one is a short run: the C walks each run of the inner loop
 * with its own set-up (offsets from the outer indices, the odometer), about 12 cycles an element over runs of 2 or 4
 * where long runs take 4.5 (EEGFormer's head transposes on the ISS, docs/kernels-c.md); a strided inner loop costs
 * an element no more. Any order computes the same elements: each is written once, from its own operands.
 */
function longestInside(n: LoopNest): LoopNest {
  if (n.dims[3] > SHORT_RUN) return n;
  let j = 3;
  for (let i = 0; i < 3; i++) if (n.dims[i] > n.dims[j]) j = i;
  if (j === 3 || n.dims[j] < 2 * n.dims[3]) return n;
  const swap = <T>(a: readonly T[]): T[] => a.map((v, i) => (i === j ? a[3] : i === 3 ? a[j] : v));
  return { dims: swap(n.dims), strides: n.strides.map(swap) };
}

/** The part's four loops as the templates run them: strides of the leaves, then of the output (innermost last). */
export function partNest(p: PartSpec, site: { node: string; op: string }): { dims: number[]; strides: number[][] } {
  return longestInside(toRank({ dims: p.dims, strides: [...p.leaves.map((l) => l.strides), p.out.strides] }, 4, site));
}

/** The width codes of the post-increment loads and stores (firmgen_simd.h FG_NEXT, FG_PUT) by element type. */
const LOAD_F3: Partial<Record<DType, number>> = { int8: 0, int16: 1, int32: 2, uint32: 2, uint8: 4, bool: 4, uint16: 5 };
const STORE_F3: Partial<Record<DType, number>> = { int8: 0, int16: 1, int32: 2, uint32: 2, uint8: 0, bool: 0, uint16: 1 };

/**
 * An operand's walk through the inner loop as a post-increment access (firmgen_simd.h FG_NEXT / FG_PUT): its width code
 * and step in elements, or false where the type has none or the step in bytes leaves the 12-bit immediate (the C then
 * indexes it as before).
 */
function walkOf(dtype: DType, step: number, codes: Partial<Record<DType, number>>): { f3: number; step: number } | false {
  const f3 = codes[dtype];
  const bytes = step << typeNames(dtype).shift;
  return f3 === undefined || bytes < -2048 || bytes > 2047 ? false : { f3, step };
}

/** Streams one inner loop may declare to the emulator (emulator/assembly/banks.ts MAX_STREAMS). */
const MAX_STREAMS = 6;

/**
 * `walk`: the streamed operands and the output walk by post-increment where they can (walkOf); the copies keep their
 * indexed loop (kernels/movement.ts: their charges are fitted around it).
 * `period`: cycles of one element on the platform's cores (its ELEMENT cost, rounded up). The part declares its
 * loop's accesses to the emulator for L1 bank conflicts and L2 latency (docs/timing.md): one per streamed leaf (the
 * inner loop moves along it) and one store per element, in that order; a loop makes at most one access per cycle, so
 * beyond period - 1 leaves the rest go undeclared (the cost table's element time is already short for such
 * expressions).
 */
export function renderPart(p: PartSpec, site: { node: string; op: string }, { period = 4, countClips = false, walk = true }: { period?: number; countClips?: boolean; walk?: boolean } = {}): Record<string, unknown> {
  const nest = partNest(p, site);
  const leafValues = p.leaves.map((l, k) => ({ name: `v${k}`, range: l.range }));
  const hoisted = (p.hoisted ?? []).map((h, j) => {
    const e = emitExpr(h, leafValues);
    if (e.wide) throw new GenError('internal', 'a hoisted value wider than int32', site);
    return { j, c: e.c, as: e.as, range: e.range };
  });
  const emitted = emitExpr(p.expr, [...leafValues, ...hoisted.map((h) => ({ name: `h${h.j}`, range: h.range }))], { countClips });
  if (!isIntType(p.out.dtype)) throw new GenError('unsupported', `output type ${p.out.dtype} is not an integer type`, site);
  const r = rangeOf(p.out.dtype);
  if (p.out.dtype !== 'int32' && (emitted.range.min < r.min || emitted.range.max > r.max)) {
    throw new GenError('internal', `result range [${emitted.range.min}, ${emitted.range.max}] exceeds the output type ${p.out.dtype}`, site);
  }
  const offsets = [...p.leaves.map((l) => l.offset), p.out.offset];
  // Each operand's step along the inner loop (the leaves', then the output's): 0 where the loop does not move along it.
  const inner = nest.strides.map((s) => s[3]);
  const leafWalks = p.leaves.map((l, k) => walk && walkOf(l.dtype, inner[k], LOAD_F3));
  const outWalk = walk && walkOf(p.out.dtype, inner[p.leaves.length], STORE_F3);
  return {
    total: nest.dims.reduce((a, b) => a * b, 1),
    // start <= total: a core past the last element starts at total.
    firstDigits: cDigits('e', nest.dims.reduce((a, b) => a * b, 1) + 1,
      [{ name: 'c0', radix: nest.dims[3] }, { name: 'i2', radix: nest.dims[2] }, { name: 'i1', radix: nest.dims[1] }, { name: 'i0' }], 'fg_q'),
    d1: nest.dims[1], d2: nest.dims[2], d3: nest.dims[3],
    // `stepped`: the inner loop moves the operand's index (a walked operand moves its pointer instead; an invariant one
    // does not move).
    operands: nest.strides.map((s, k) => ({ k, s0: s[0], s1: s[1], s2: s[2], s3: s[3], off: offsets[k], stepped: s[3] !== 0 && !(k < p.leaves.length ? leafWalks[k] : outWalk) })),
    // A leaf the inner loop does not move along (a per-channel scale, a broadcast constant) is loaded once per run:
    // the C hoists it, as the cost model assumes (kernels/elementwise.ts elementOps counts no ELEM_LOAD for it).
    // A streamed leaf and the output walk the inner loop by post-increment where they can (walkOf).
    leaves: p.leaves.map((l, k) => ({ k, field: l.field, invariant: inner[k] === 0, walk: leafWalks[k], ...typeNames(l.dtype) })),
    outWalk,
    hoisted,
    outField: p.out.field,
    outK: p.leaves.length,
    period,
    // The streamed leaves only: an invariant one (a requantization's scalars, a per-channel value along an outer loop)
    // is loaded once per run, and declared as a stream of step 0 it had every core read one word every element.
    streams: [
      ...p.leaves.map((l, k) => ({ k, field: l.field, shift: typeNames(l.dtype).shift })).filter((x) => inner[x.k] !== 0)
        .slice(0, Math.max(0, Math.min(period, MAX_STREAMS) - 1)),
      { k: p.leaves.length, field: p.out.field, shift: typeNames(p.out.dtype).shift },
    ].map((x, index) => ({ ...x, index, s3: inner[x.k] })),
    outAs: typeNames(p.out.dtype).as,
    outC: typeNames(p.out.dtype).c,
    outShift: typeNames(p.out.dtype).shift,
    exprAs: emitted.wide ? `<i32>(${emitted.as})` : emitted.as,
    exprC: emitted.c,
  };
}

export const IDENTITY: Expr = { k: 'in', i: 0 };
