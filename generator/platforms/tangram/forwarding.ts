import { hasFilters, type LayerShape } from './layers.js';
import type { EngineBlock, Functional, LayerPlan } from './programs.js';

/**
 * The exact data a producer's engines forward to a consumer's engines in a pipeline segment (segment-programs.ts,
 * docs/tangram.md "Pipelined segments"). A segment runs in S steps; step s of an engine is the band of its block's
 * rows [floor(s*R/S), floor((s+1)*R/S)) where R = the block's samples x rows, in order (sample by sample, row by row:
 * the batch folded into the rows, as the cost model's 'allo' steps are rows), so every engine works in every step.
 * After its step s (and the step's partial-sum tree), the leader of each producer reduction group holds its block's
 * output in that band; a consumer engine needs, for its band, the input window of its output rows. Every element the consumer needs is held by exactly
 * one (producer leader, step): that leader sends the consumer, once, everything of its step's band the consumer's
 * whole block needs, tagged with the consumer's first step that needs any of it. A consumer's step t then waits for the
 * messages tagged t: it holds every input element its step reads (each one's message is tagged at or before the first
 * step reading it) and nothing is sent twice.
 */

/** Samples [n0, n1) x rows of a map. */
export interface Piece { n0: number; n1: number; h0: number; h1: number }

/**
 * A set of rows (or columns) of an input map: the windows of `count` consecutive outputs starting at `origin`,
 * `stride` apart and `window` long, clipped to [0, size). With a stride above the window (a strided 1x1 conv) the
 * windows leave gaps, which the count keeps out.
 */
export interface Windows { origin: number; count: number; stride: number; window: number; size: number }

/** Where a consumer's engine reads in its producer's output: per-sample windows of rows, channels, column windows. */
export interface Need { pieces: Array<{ n0: number; n1: number; rows: Windows }>; k: [number, number]; cols: Windows }

/** What a producer's leader holds after a step: pieces of its band, its channels and columns. */
export interface Held { pieces: Piece[]; k: [number, number]; w: [number, number] }

/** Step s's band of R rows over S steps. */
export function band(R: number, S: number, s: number): [number, number] {
  return [Math.floor((s * R) / S), Math.floor(((s + 1) * R) / S)];
}

/** Rows of a block, its samples x its rows. */
export function blockRows(b: Pick<EngineBlock, 'n' | 'h'>): number {
  return (b.n[1] - b.n[0]) * (b.h[1] - b.h[0]);
}

/** A block's rows [r0, r1) (counted in the block, sample by sample) as pieces of the map. */
export function blockPieces(b: Pick<EngineBlock, 'n' | 'h'>, r0: number, r1: number): Piece[] {
  const hb = b.h[1] - b.h[0];
  if (hb <= 0) return [];
  return bandPieces([0, b.n[1] - b.n[0]], [0, hb], hb, r0, r1).map((q) => ({ n0: q.n0 + b.n[0], n1: q.n1 + b.n[0], h0: q.h0 + b.h[0], h1: q.h1 + b.h[0] }));
}

/** Step s of a block over S steps, as pieces of the map. */
export function stepPieces(b: Pick<EngineBlock, 'n' | 'h'>, steps: number, s: number): Piece[] {
  return blockPieces(b, ...band(blockRows(b), steps, s));
}

/**
 * The folded rows [f0, f1) (row f = n * rows + h) inside a block of samples n and rows h: at most three pieces (the
 * first sample's part, the whole samples between, the last sample's part).
 */
export function bandPieces(n: [number, number], h: [number, number], rows: number, f0: number, f1: number): Piece[] {
  const out: Piece[] = [];
  const first = Math.max(n[0], Math.floor(f0 / rows));
  const last = Math.min(n[1], Math.ceil(f1 / rows)) - 1;
  const add = (n0: number, n1: number): void => {
    const h0 = Math.max(h[0], f0 - n0 * rows);
    const h1 = Math.min(h[1], f1 - (n1 - 1) * rows);
    if (n1 > n0 && h1 > h0) out.push({ n0, n1, h0, h1 });
  };
  if (first > last) return out;
  add(first, first + 1);
  if (last > first + 1) add(first + 1, last);
  if (last > first) add(last, last + 1);
  return out;
}

const overlap = (a0: number, a1: number, b0: number, b1: number): number => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/** Elements of the windows inside [a, b). */
export function windowsIn(v: Windows, a: number, b: number): number {
  if (v.count <= 0) return 0;
  const lo = Math.max(a, 0), hi = Math.min(b, v.size);
  if (hi <= lo) return 0;
  if (v.stride <= v.window) return overlap(v.origin, v.origin + (v.count - 1) * v.stride + v.window, lo, hi);
  // Gaps between windows: count window by window over those that can meet [lo, hi).
  const q0 = Math.max(0, Math.ceil((lo - v.origin - v.window + 1) / v.stride));
  const q1 = Math.min(v.count - 1, Math.floor((hi - 1 - v.origin) / v.stride));
  let n = 0;
  for (let q = q0; q <= q1; q++) n += overlap(v.origin + q * v.stride, v.origin + q * v.stride + v.window, lo, hi);
  return n;
}

/** Elements a leader's held data and a consumer's need share. */
export function shared(h: Held, need: Need): number {
  const k = overlap(h.k[0], h.k[1], need.k[0], need.k[1]);
  if (k === 0) return 0;
  const w = windowsIn(need.cols, h.w[0], h.w[1]);
  if (w === 0) return 0;
  let rows = 0;
  for (const p of h.pieces) for (const q of need.pieces) {
    const n = overlap(p.n0, p.n1, q.n0, q.n1);
    if (n > 0) rows += n * windowsIn(q.rows, p.h0, p.h1);
  }
  return rows * k * w;
}

/** How the consumer's operand maps onto the producer's output (the producer's map of k x h x w per sample). */
export interface Reading {
  /** 'window': the consumer reads the map as it is, through its windows; 'samples': a flattened map, whole samples. */
  mode: 'window' | 'samples';
  strideH: number; strideW: number; r: number; s: number; padT: number; padL: number;
}

/**
 * How `c` reads `p`'s output. The same channels and map (a convolution, pooling, element-wise layer or a product of
 * the same rows): through its windows (a functional layer's own strides, windows and padding; the timing-only
 * programs' are the shape's, with the symmetric padding that gives the consumer's output size). Anything else (a product after a flattened map):
 * per sample, the producer's channels whose flattened elements the consumer's input channels cover.
 */
export function readingOf(p: LayerShape, c: LayerShape, fn?: Functional): Reading {
  const channels = hasFilters(c) ? c.c : c.k;
  if (channels === p.k && (c.kind !== 'fc' || (c.h === p.h && c.w === p.w))) {
    if (fn) return { mode: 'window', strideH: fn.strideH, strideW: fn.strideW, r: fn.r, s: fn.s, padT: fn.padT, padL: fn.padL };
    const padH = Math.max(0, Math.floor(((c.h - 1) * c.stride + c.r - p.h) / 2));
    const padW = Math.max(0, Math.floor(((c.w - 1) * c.stride + c.s - p.w) / 2));
    return { mode: 'window', strideH: c.stride, strideW: c.stride, r: c.r, s: c.s, padT: padH, padL: padW };
  }
  return { mode: 'samples', strideH: 1, strideW: 1, r: 1, s: 1, padT: 0, padL: 0 };
}

/** What consumer engine block `b` needs of the producer's output for its output rows `pieces`. */
export function needOf(p: LayerShape, c: LayerShape, rd: Reading, b: EngineBlock, pieces: Piece[]): Need {
  if (rd.mode === 'samples') {
    // The consumer's input channels [c0, c1) of the flattened sample (k, h, w) cover the producer's channels
    // [floor(c0 / (h w)), ceil(c1 / (h w))): whole channels (at the two ends, a few elements more than it reads).
    const per = p.h * p.w;
    const cr = hasFilters(c) ? b.c : b.k;
    const k: [number, number] = [Math.floor(cr[0] / per), Math.min(p.k, Math.ceil(cr[1] / per))];
    const whole = (size: number): Windows => ({ origin: 0, count: 1, stride: 1, window: size, size });
    return { pieces: pieces.map((q) => ({ n0: q.n0, n1: q.n1, rows: whole(p.h) })), k, cols: whole(p.w) };
  }
  const rows = (h0: number, h1: number): Windows => ({ origin: h0 * rd.strideH - rd.padT, count: h1 - h0, stride: rd.strideH, window: rd.r, size: p.h });
  return {
    pieces: pieces.map((q) => ({ n0: q.n0, n1: q.n1, rows: rows(q.h0, q.h1) })),
    k: hasFilters(c) ? b.c : b.k,
    cols: { origin: b.w[0] * rd.strideW - rd.padL, count: b.w[1] - b.w[0], stride: rd.strideW, window: rd.s, size: p.w },
  };
}

/** One forwarded message: producer engine `from` after its step `step` to consumer engine `to` before its step `at`. */
export interface Forward { from: number; step: number; to: number; at: number; words: number }

/**
 * Every message of one producer -> consumer edge over `steps` steps (engines by their index in their layer; the
 * leaders of the producer's reduction groups send). Ordered by producer engine, step, consumer engine.
 */
export function forwardsOf(producer: LayerPlan, consumer: LayerPlan, rd: Reading, steps: number): Forward[] {
  const P = producer.l, C = consumer.l;
  const needs = consumer.blocks.map((b) => ({
    whole: needOf(P, C, rd, b, blockPieces(b, 0, blockRows(b))),
    byStep: Array.from({ length: steps }, (_, t) => needOf(P, C, rd, b, stepPieces(b, steps, t))),
  }));
  const out: Forward[] = [];
  producer.blocks.forEach((b, j) => {
    if (j % producer.p.pi !== 0) return;
    for (let s = 0; s < steps; s++) {
      const held: Held = { pieces: stepPieces(b, steps, s), k: b.k, w: b.w };
      if (held.pieces.length === 0) continue;
      needs.forEach((need, i) => {
        const words = shared(held, need.whole);
        if (words === 0) return;
        const at = need.byStep.findIndex((n) => shared(held, n) > 0);
        out.push({ from: j, step: s, to: i, at, words });
      });
    }
  });
  return out;
}
