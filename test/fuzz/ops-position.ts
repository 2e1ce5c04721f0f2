import type { StepBuilder } from './ops-compute.js';
import { isNarrow, requant, type GraphState, type Val } from './graph-state.js';
import type { Draws } from './recipe.js';

/*
 * Step builders for a decoder step's ops (quantize/stateful.ts, reference/ops/cache.ts): a CacheWrite of the
 * current value into a cache at the run-time position, and attention whose iSoftmax reads that position, so that
 * the planners' bound-by-position pass (frontend/passes/bound-by-position.ts) stops the MatMuls around it at the
 * position ('n' on the scores, 'k' on the weighted sum). The position is one int32 graph input shared by every
 * reader; its value is drawn below the smallest bound a reader sets (GraphState.position), so the reference
 * accepts it and the case tests the kernels, not the refusal.
 */

/** CacheWrite(cache, value, pos): the current value's rows written at the position along a random axis. */
export const cacheWrite: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x) || x.shape.length === 0) return false;
  const r = x.shape.length;
  const axis = d.int(0, r - 1);
  const n = x.shape[axis];
  const rows = n + d.int(0, 5);
  const shape = x.shape.map((s, i) => (i === axis ? rows : s));
  const dtype = x.kind as 'int8' | 'uint8';
  // The cache: a graph input (a decoder's state, written in place), a constant, or an earlier value of that shape.
  const source = d.int(0, 3);
  const earlier = source === 3 ? st.other(d, (v) => v !== x && v.kind === x.kind && v.shape.join() === shape.join()) : undefined;
  const cache = earlier?.name ?? (source === 2 ? st.constInts(d, dtype, shape, dtype === 'uint8' ? 0 : -128, dtype === 'uint8' ? 255 : 127) : st.graphInput(dtype, shape));
  const pos = st.position(rows - n + 1);
  const y = st.node('CacheWrite', [cache, x.name, pos], { axis: d.chance(0.3) ? axis - r : axis }, { shape, kind: x.kind, spread: x.spread });
  st.cacheOutputs.add(y.name);
  return true;
};

/**
 * Attention over L keys at the position: scores = MatMul(q, K^T) requantized to int8, probs = iSoftmax(scores, pos),
 * out = MatMul(probs, V) requantized. K^T is a constant or the transpose of a cache a CacheWrite made ([L, K]); V a
 * constant [L, N] (2-D or batched). Sometimes the scores have another reader (then the 'n' bound must not apply).
 */
export const attention: StepBuilder = (st, d) => {
  const q = st.current();
  if (!isNarrow(q) || q.shape.length < 2 || q.shape.length > 4) return false;
  const r = q.shape.length;
  const K = q.shape[r - 1];
  const keysFromCache = d.chance(0.5) ? st.other(d, (v) => st.cacheOutputs.has(v.name) && v.shape.length === 2 && v.shape[1] === K && v.kind === 'int8') : undefined;
  let kT: string;
  let L: number;
  if (keysFromCache) {
    L = keysFromCache.shape[0];
    kT = st.node('Transpose', [keysFromCache.name], { perm: [1, 0] }, { shape: [K, L], kind: 'int8', spread: 64 }).name;
  } else {
    L = d.int(1, 12);
    kT = st.constInts(d, 'int8', [K, L], -128, 127);
  }
  const scores = st.node('MatMul', [q.name, kT], {}, { shape: [...q.shape.slice(0, r - 1), L], kind: 'wide', spread: 70 * 70 * Math.sqrt(K) });
  const s8 = requant(st, d, scores, undefined, true);
  const probs = softmaxAt(st, d, s8, st.position(L));
  const N = d.int(1, 12);
  const vShape = r > 2 && d.chance(0.4) ? [...q.shape.slice(0, r - 2), L, N] : [L, N];
  const v = st.constInts(d, 'int8', vShape, -128, 127);
  const out = st.node('MatMul', [probs.name, v], {}, { shape: [...q.shape.slice(0, r - 1), N], kind: 'wide', spread: 255 * 70 * Math.sqrt(L) });
  requant(st, d, out);
  // A second reader of the scores (a graph output or a later step's operand) keeps them whole.
  if (d.chance(0.2)) st.node('Relu', [s8.name], {}, { ...s8, shape: [...s8.shape] });
  return true;
};

function softmaxAt(st: GraphState, d: Draws, x: Val, pos: string): Val {
  const log2 = d.int(32, 300);
  const B = d.int(log2, 2 * log2);
  const A = d.int(1, 3);
  const attrs = { coeffA: A, coeffB: B, coeffC: d.int(0, A * B * B), log2, n_levels: d.pick([256, 256, 16, 128]) };
  return st.node('iSoftmax', [x.name, pos], attrs, { shape: [...x.shape], kind: 'uint8', spread: 64 });
}
