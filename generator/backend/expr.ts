import type { IntRange } from '../ir/dtype.js';
import type { Expr } from '../ir/graph.js';
import { shiftWithin } from '../kernels/words.js';

/*
 * Emits an integer expression tree as C and AssemblyScript. Interval arithmetic decides, per sub-expression,
 * whether 32-bit arithmetic is exact; only where a value can leave int32 is it computed in 64 bits
 * (SEMANTICS.md: products that can exceed 32 bits are computed in 64), which keeps the common case fast on a
 * 32-bit core and in wasm.
 */

export interface Leaf {
  /** Local variable holding the leaf value (an int32 in both languages). */
  name: string;
  range: IntRange;
}

export interface Emitted {
  c: string;
  as: string;
  range: IntRange;
  /** True when the emitted value is 64-bit (int64_t / i64). */
  wide: boolean;
}

const I32: IntRange = { min: -2147483648, max: 2147483647 };
const fits32 = (r: IntRange): boolean => r.min >= I32.min && r.max <= I32.max;

function hull(...vals: number[]): IntRange {
  return { min: Math.min(...vals), max: Math.max(...vals) };
}

/*
 * Counts the steps that compute in 64 bits: every 64-bit value starts at a widening cast or a wide literal, so a
 * change of this count over one emission says whether any step of it is 64-bit (a result narrowed back to int32 by
 * its range still paid for the 64-bit step).
 */
let widenings = 0;

function toWide(e: Emitted): { c: string; as: string } {
  if (!e.wide) widenings++;
  return e.wide ? { c: e.c, as: e.as } : { c: `(int64_t)${e.c}`, as: `<i64>${e.as}` };
}

function narrowIfFits(c: string, as: string, range: IntRange, wide: boolean): Emitted {
  if (wide && fits32(range)) return { c: `(int32_t)(${c})`, as: `<i32>(${as})`, range, wide: false };
  return { c, as, range, wide };
}

function binary(op: string, a: Emitted, b: Emitted, range: IntRange): Emitted {
  const wide = a.wide || b.wide || !fits32(range);
  if (!wide) return { c: `(${a.c} ${op} ${b.c})`, as: `(${a.as} ${op} ${b.as})`, range, wide: false };
  const wa = toWide(a);
  const wb = toWide(b);
  return narrowIfFits(`(${wa.c} ${op} ${wb.c})`, `(${wa.as} ${op} ${wb.as})`, range, true);
}

function minmax(fn: 'min' | 'max', a: Emitted, b: Emitted, range: IntRange): Emitted {
  const wide = a.wide || b.wide;
  const wa = wide ? toWide(a) : a;
  const wb = wide ? toWide(b) : b;
  const cfn = fn === 'min' ? 'FG_MIN' : 'FG_MAX';
  return narrowIfFits(`${cfn}(${wa.c}, ${wb.c})`, `${fn}(${wa.as}, ${wb.as})`, range, wide);
}

function literal(v: number): Emitted {
  const wide = !fits32({ min: v, max: v });
  if (wide) widenings++;
  return {
    c: wide ? `((int64_t)${v}LL)` : v < 0 ? `(${v})` : `${v}`,
    as: wide ? `(<i64>${v})` : v < 0 ? `(${v})` : `${v}`,
    range: { min: v, max: v },
    wide,
  };
}

/**
 * `countClips` (one emitExpr call's option): the AS counts the values a 32-bit clamp changes (runtime/as/support.ts
 * fg_clip_count), for a platform whose C clamp branches when it clips (firmgen_simd.h's plain fg_clip: a taken branch
 * to an out-of-line block), so that the cycles follow the data as the C's do (CLIP_TAKEN).
 */
let countClips = false;

/**
 * Clamps of one emission: left out (the value's range lies inside the bounds: no instruction), and the instructions
 * of the tests of those emitted as FG_CLIP on a core without p.clip (firmgen_simd.h's plain fg_clip: the offset by a
 * non-zero lower bound, the unsigned compare-and-branch; seen in the rv32 ELF's disassembly).
 */
let clampsElided = 0;
let clampsEmitted = 0;
let clampTestInstructions = 0;
/** The clamp node last emitted as FG_CLIP: the root's own when the expression's value is a clamp's. */
let lastFgClip: Expr | undefined;

/**
 * The expression in both languages; `used64` when any step of it computes in 64 bits (the cost model's wide class);
 * `clampsElided` counts its clamps the ranges leave out, `clampsEmitted` the 32-bit ones emitted as FG_CLIP and
 * `clampTestInstructions` the instructions of their tests on a core without p.clip (kernels/elementwise.ts charges
 * what runs: an elided clamp costs nothing, an emitted one its test, CLIP_TEST); `storedClamp` when the value itself is
 * an FG_CLIP (the one the store narrows).
 */
export function emitExpr(e: Expr, leaves: Leaf[], opts: { countClips?: boolean } = {}): Emitted & { used64: boolean; clampsElided: number; clampsEmitted: number; clampTestInstructions: number; storedClamp: boolean } {
  const before = widenings;
  countClips = opts.countClips ?? false;
  clampsElided = 0;
  clampsEmitted = 0;
  clampTestInstructions = 0;
  lastFgClip = undefined;
  try {
    const r = emitNode(e, leaves);
    return { ...r, used64: widenings !== before, clampsElided, clampsEmitted, clampTestInstructions, storedClamp: lastFgClip === e };
  } finally {
    countClips = false;
  }
}

/**
 * The C operands of a product split at bit 16 (splitRequantExpr's shape: (v >> 16)*m + (((v - (v >> 16)*65536)*m + c)
 * >> 16), every step proven int32), or undefined where the tree has another shape (a pass rewrote it): the C then
 * takes the expression as it is. fg_mulsplit (firmgen_simd.h) computes the same value; on the XpulpV2 build with
 * p.extractu for the low half word and p.mac for the high half's product. The operands are emitted a second time with
 * the emission's counters kept, so that they count once.
 */
function splitOperands(e: Expr & { k: 'add' }, leaves: Leaf[]): { v: string; m: string; c: string } | undefined {
  const parts = splitParts(e);
  if (!parts) return undefined;
  const { v, m, c } = parts;
  const saved = { widenings, clampsElided, clampsEmitted, clampTestInstructions, lastFgClip };
  try {
    const [ve, me, ce] = [v, m, c].map((x) => emitNode(x, leaves));
    if (ve.wide || me.wide || ce.wide) return undefined;
    return { v: ve.c, m: me.c, c: ce.c };
  } finally {
    ({ widenings, clampsElided, clampsEmitted, clampTestInstructions, lastFgClip } = saved);
  }
}

/** The operands v, m, c of a product split at bit 16 (splitRequantExpr's shape), or undefined for another shape. */
export function splitParts(e: Expr): { v: Expr; m: Expr; c: Expr } | undefined {
  if (e.k !== 'add') return undefined;
  const hiMul = e.a;
  const low = e.b;
  if (hiMul.k !== 'mul' || hiMul.a.k !== 'shr' || hiMul.a.s !== 16) return undefined;
  if (low.k !== 'shr' || low.s !== 16 || low.a.k !== 'add' || low.a.a.k !== 'mul' || low.a.a.a.k !== 'sub') return undefined;
  const v = hiMul.a.a;
  const m = hiMul.b;
  const c = low.a.b;
  const al = low.a.a.a;
  const same = (x: Expr, y: Expr): boolean => JSON.stringify(x) === JSON.stringify(y);
  if (!same(low.a.a.b, m) || !same(al.a, v) || al.b.k !== 'mul' || !same(al.b.a, hiMul.a) || !same(al.b.b, { k: 'const', v: 65536 })) return undefined;
  return { v, m, c };
}

function emitNode(e: Expr, leaves: Leaf[]): Emitted {
  switch (e.k) {
    case 'in': {
      const l = leaves[e.i];
      return { c: l.name, as: l.name, range: l.range, wide: false };
    }
    case 'const':
      return literal(e.v);
    case 'add': case 'sub': case 'mul': {
      const a = emitNode(e.a, leaves);
      const b = emitNode(e.b, leaves);
      const { min: a0, max: a1 } = a.range;
      const { min: b0, max: b1 } = b.range;
      const h = e.k === 'add' ? hull(a0 + b0, a1 + b1)
        : e.k === 'sub' ? hull(a0 - b1, a1 - b0)
        : hull(a0 * b0, a0 * b1, a1 * b0, a1 * b1);
      const r = e.bound ? { min: Math.max(h.min, e.bound.min), max: Math.min(h.max, e.bound.max) } : h;
      const sum = binary(e.k === 'add' ? '+' : e.k === 'sub' ? '-' : '*', a, b, r);
      const split = e.k === 'add' && e.split && !sum.wide && !a.wide && !b.wide ? splitOperands(e as Expr & { k: 'add' }, leaves) : undefined;
      return split ? { ...sum, c: `fg_mulsplit(${split.v}, ${split.m}, ${split.c})` } : sum;
    }
    case 'tdiv': {
      const a = emitNode(e.a, leaves);
      const b = emitNode(e.b, leaves);
      const m = Math.max(Math.abs(a.range.min), Math.abs(a.range.max));
      return binary('/', a, b, { min: -m, max: m });
    }
    case 'min': case 'max': {
      const a = emitNode(e.a, leaves);
      const b = emitNode(e.b, leaves);
      const r = e.k === 'min'
        ? { min: Math.min(a.range.min, b.range.min), max: Math.min(a.range.max, b.range.max) }
        : { min: Math.max(a.range.min, b.range.min), max: Math.max(a.range.max, b.range.max) };
      return minmax(e.k, a, b, r);
    }
    case 'shr': {
      const a = emitNode(e.a, leaves);
      const r = { min: Math.floor(a.range.min / 2 ** e.s), max: Math.floor(a.range.max / 2 ** e.s) };
      if (e.s === 0) return a;
      const s = shiftWithin(e.s, a.wide);
      return narrowIfFits(`(${a.c} >> ${s})`, `(${a.as} >> ${s})`, r, a.wide);
    }
    case 'clip': {
      const a = emitNode(e.a, leaves);
      const r = { min: Math.min(Math.max(a.range.min, e.lo), e.hi), max: Math.max(Math.min(a.range.max, e.hi), e.lo) };
      if (a.range.min >= e.lo && a.range.max <= e.hi) {
        clampsElided++;
        return a;
      }
      const lo = literal(e.lo);
      const hi = literal(e.hi);
      const inner = minmax('max', a, lo, { min: Math.max(a.range.min, e.lo), max: Math.max(a.range.max, e.lo) });
      const both = minmax('min', inner, hi, r);
      // In C a 32-bit clamp is FG_CLIP (firmgen_simd.h: one p.clip on XpulpV2 for the int8/int16 ranges).
      if (a.wide || lo.wide || hi.wide) return both;
      clampsEmitted++;
      clampTestInstructions += e.lo !== 0 ? 2 : 1;
      lastFgClip = e;
      const as = countClips ? `fg_clip_count(${a.as}, ${lo.as}, ${hi.as})` : both.as;
      return { ...both, c: `FG_CLIP(${a.c}, ${lo.c}, ${hi.c})`, as };
    }
    case 'abs': {
      const a = emitNode(e.a, leaves);
      const m = Math.max(Math.abs(a.range.min), Math.abs(a.range.max));
      const lo = a.range.min >= 0 ? a.range.min : a.range.max <= 0 ? -a.range.max : 0;
      const r = { min: lo, max: m };
      const wide = a.wide || !fits32(r);
      const w = wide ? toWide(a) : a;
      return narrowIfFits(`FG_ABS(${w.c})`, `abs(${w.as})`, r, wide);
    }
    case 'sign': {
      const a = emitNode(e.a, leaves);
      const z = a.wide ? '<i64>0' : '0';
      return { c: `((${a.c} > 0) - (${a.c} < 0))`, as: `(<i32>(${a.as} > ${z}) - <i32>(${a.as} < ${z}))`, range: { min: -1, max: 1 }, wide: false };
    }
    case 'signp': {
      const a = emitNode(e.a, leaves);
      const z = a.wide ? '<i64>0' : '0';
      return { c: `(${a.c} >= 0 ? 1 : -1)`, as: `(${a.as} >= ${z} ? 1 : -1)`, range: { min: -1, max: 1 }, wide: false };
    }
    case 'wrap8': {
      const a = emitNode(e.a, leaves);
      return { c: `(int32_t)(int8_t)${a.c}`, as: `<i32><i8>${a.as}`, range: { min: -128, max: 127 }, wide: false };
    }
  }
}

/** The requantization of SEMANTICS.md as an expression: clip((v*mul + add + 2^(s-1)) >> s). */
export function requantExpr(v: Expr, mul: Expr, add: Expr, shift: number, lo: number, hi: number): Expr {
  let t: Expr = { k: 'add', a: { k: 'mul', a: v, b: mul }, b: add };
  if (shift > 0) t = { k: 'shr', a: { k: 'add', a: t, b: { k: 'const', v: 2 ** (shift - 1) } }, s: shift };
  return { k: 'clip', a: t, lo, hi };
}

/**
 * The same requantization with the product split at bit 16, for a shift of 16 or more: with acc = ah * 2^16 + al
 * (ah = acc >> 16, al = acc - ah * 2^16 in [0, 65535]),
 *   (acc*mul + add + 2^(s-1)) >> s  =  (ah*mul + ((al*mul + add + 2^(s-1)) >> 16)) >> (s - 16),
 * exact because floor((X * 2^16 + Y) / 2^s) = floor((X + floor(Y / 2^16)) / 2^(s-16)) for integers X, Y. Where the
 * whole product needs 64 bits but the halves' products do not (multipliers below 2^15 against accumulators of 2^20
 * and more: real models' per-channel scales at a shift of 22), every step stays in int32: two single-cycle
 * multiplies and shifts in place of a 64-bit multiply-add (mulh is 5 cycles on CV32E40P, the carry adds three more).
 */
export function splitRequantExpr(v: Expr, mul: Expr, add: Expr, shift: number, lo: number, hi: number): Expr | undefined {
  if (shift < 16) return undefined;
  const ah: Expr = { k: 'shr', a: v, s: 16 };
  const al: Expr = { k: 'sub', a: v, b: { k: 'mul', a: ah, b: { k: 'const', v: 65536 } }, bound: { min: 0, max: 65535 } };
  const low: Expr = { k: 'shr', a: { k: 'add', a: { k: 'mul', a: al, b: mul }, b: { k: 'add', a: add, b: { k: 'const', v: 2 ** (shift - 1) } } }, s: 16 };
  const t: Expr = { k: 'add', a: { k: 'mul', a: ah, b: mul }, b: low, split: true };
  return { k: 'clip', a: shift > 16 ? { k: 'shr', a: t, s: shift - 16 } : t, lo, hi };
}

/**
 * The requantization of `v` in the form the C computes fastest over leaves of these ranges: requantExpr, or its
 * product split at bit 16 (splitRequantExpr) where the whole needs 64 bits and no step of the halves does; with the
 * chosen form's emission (emitExpr with `opts`), each form emitted once.
 */
export function fastestRequantExpr(
  v: Expr, mul: Expr, add: Expr, shift: number, lo: number, hi: number, leaves: Leaf[], opts: { countClips?: boolean } = {},
): { expr: Expr; split: boolean; emitted: ReturnType<typeof emitExpr> } {
  const whole = requantExpr(v, mul, add, shift, lo, hi);
  const wholeEmitted = emitExpr(whole, leaves, opts);
  const halves = wholeEmitted.used64 ? splitRequantExpr(v, mul, add, shift, lo, hi) : undefined;
  const halvesEmitted = halves ? emitExpr(halves, leaves, opts) : undefined;
  return halves && halvesEmitted && !halvesEmitted.used64
    ? { expr: halves, split: true, emitted: halvesEmitted }
    : { expr: whole, split: false, emitted: wholeEmitted };
}
