import { isNarrow, requant, type Val } from './graph-state.js';
import type { StepBuilder } from './ops-compute.js';

/*
 * Step builders for data movement, reductions, the softmax family and the norms. Constant operands (pads, starts,
 * shapes, axes) are int64 initializers, as exporters write them.
 */

const same = (x: Val): Omit<Val, 'name'> => ({ shape: [...x.shape], kind: x.kind, spread: x.spread });

export const pad: StepBuilder = (st, d) => {
  const x = st.current();
  const r = x.shape.length;
  const pads = Array.from({ length: 2 * r }, (_, i) => (d.chance(0.5) && (i % r !== 0 || d.chance(0.2)) ? d.int(0, 3) : 0));
  const value = x.kind === 'uint8' ? d.int(0, 255) : d.pick([0, 0, -128, 127, 5]);
  const inputs = [x.name, st.constOf('int64', [2 * r], pads)];
  if (value !== 0 || d.chance(0.3)) inputs.push(st.constOf(x.kind === 'wide' ? 'int32' : x.kind, [], [value]));
  st.node('Pad', inputs, {}, { ...same(x), shape: x.shape.map((s, i) => s + pads[i] + pads[i + r]) });
  return true;
};

/** Concat along a random axis with another value of matching shape (the current one again if none). */
export const concat: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.shape.length === 0) return false;
  const r = x.shape.length;
  const axis = d.int(0, r - 1);
  const fits = (v: Val) => v.kind === x.kind && v.shape.length === r && v.shape.every((s, i) => i === axis || s === x.shape[i]);
  const parts = [x, st.other(d, fits) ?? x];
  if (d.chance(0.3)) parts.push(st.other(d, fits) ?? x);
  const shape = x.shape.map((s, i) => (i === axis ? parts.reduce((a, p) => a + p.shape[i], 0) : s));
  st.node('Concat', parts.map((p) => p.name), { axis: d.chance(0.3) ? axis - r : axis }, { ...same(x), shape });
  return true;
};

/** Slice with constant starts/ends/axes/steps inputs, negative indices and steps included. */
export const slice: StepBuilder = (st, d) => {
  const x = st.current();
  const r = x.shape.length;
  const axes = [...x.shape.keys()].filter((i) => x.shape[i] > 1 && d.chance(0.6));
  if (axes.length === 0) return false;
  const starts: number[] = [];
  const ends: number[] = [];
  const steps: number[] = [];
  const shape = [...x.shape];
  for (const a of axes) {
    const n = x.shape[a];
    const step = d.pick([1, 1, 1, 2, 3, -1]);
    const lo = d.int(0, n - 1);
    const hi = d.int(lo + 1, n);
    if (step > 0) {
      const open = d.chance(0.2); // an end past the axis (exporters write INT_MAX)
      starts.push(d.chance(0.2) ? lo - n : lo);
      ends.push(open ? 2 ** 31 - 1 : hi);
      shape[a] = Math.ceil(((open ? n : hi) - lo) / step);
    } else {
      starts.push(hi - 1);
      ends.push(lo - 1 < 0 ? -n - 1 : lo - 1);
      shape[a] = hi - lo;
    }
    steps.push(step);
  }
  const neg = d.chance(0.3);
  const inputs = [x.name, st.constOf('int64', [axes.length], starts), st.constOf('int64', [axes.length], ends),
    st.constOf('int64', [axes.length], axes.map((a) => (neg ? a - r : a))), st.constOf('int64', [axes.length], steps)];
  st.node('Slice', inputs, {}, { ...same(x), shape });
  return true;
};

export const gather: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.shape.length === 0) return false;
  const axis = d.int(0, x.shape.length - 1);
  const n = x.shape[axis];
  const scalar = d.chance(0.3) && x.shape.length > 1;
  const count = scalar ? 1 : d.int(1, 4);
  const idx = Array.from({ length: count }, () => (d.chance(0.2) ? -d.int(1, n) : d.int(0, n - 1)));
  const indices = st.constOf('int64', scalar ? [] : [count], idx);
  const shape = [...x.shape.slice(0, axis), ...(scalar ? [] : [count]), ...x.shape.slice(axis + 1)];
  st.node('Gather', [x.name, indices], { axis }, { ...same(x), shape });
  return true;
};

/**
 * Gather by run-time indices: the current 8-bit value's codes read a constant table, as the quantizer's SiLU/Sigmoid
 * tables do (256 entries, a negative int8 code reading from the end), or index the rows of an embedding-like table
 * (uint8 codes, 256 rows of 1-4 values, the result one axis longer).
 */
export const lookup: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.kind !== 'int8' && x.kind !== 'uint8') return false;
  const kind = d.pick(['int8', 'uint8'] as const);
  const draw = (): number => (kind === 'int8' ? d.int(-128, 127) : d.int(0, 255));
  const rows = x.kind === 'uint8' && x.shape.length < 4 && d.chance(0.4) ? d.int(1, 4) : 0;
  const shape = rows ? [256, rows] : [256];
  const table = st.constOf(kind, shape, Array.from({ length: 256 * Math.max(rows, 1) }, draw));
  st.node('Gather', [table, x.name], { axis: 0 }, { shape: rows ? [...x.shape, rows] : [...x.shape], kind, spread: 0 });
  return true;
};

/** ArgMax over the last axis (a decoder's next token): indices 0..L-1, typed as inference narrows them. */
export const argmax: StepBuilder = (st, d) => {
  const x = st.current();
  const L = x.shape[x.shape.length - 1];
  if (x.shape.length < 2 || L > 256) return false;
  const keep = d.chance(0.5);
  const shape = keep ? [...x.shape.slice(0, -1), 1] : x.shape.slice(0, -1);
  st.node('ArgMax', [x.name], { axis: d.chance(0.5) ? -1 : x.shape.length - 1, keepdims: keep ? 1 : 0 }, { shape, kind: L <= 128 ? 'int8' : 'uint8', spread: 0 });
  return true;
};

export const transpose: StepBuilder = (st, d) => {
  const x = st.current();
  const perm = [...x.shape.keys()];
  for (let i = perm.length - 1; i > 0; i--) {
    const j = d.int(0, i);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  st.node('Transpose', [x.name], { perm }, { ...same(x), shape: perm.map((p) => x.shape[p]) });
  return true;
};

/** Reshape to a random factorisation of the element count (rank 1..4), with a -1 or 0 entry sometimes. */
export const reshape: StepBuilder = (st, d) => {
  const x = st.current();
  let left = x.shape.reduce((a, b) => a * b, 1);
  const rank = d.int(1, 4);
  const shape: number[] = [];
  for (let i = 0; i < rank - 1; i++) {
    const divs = [...Array(Math.min(left, 16)).keys()].map((k) => k + 1).filter((k) => left % k === 0);
    const f = d.pick(divs);
    shape.push(f);
    left /= f;
  }
  shape.push(left);
  const spec = [...shape];
  if (d.chance(0.3)) spec[d.int(0, rank - 1)] = -1;
  else if (d.chance(0.2) && x.shape.length > 0 && shape[0] === x.shape[0]) spec[0] = 0;
  st.node('Reshape', [x.name, st.constOf('int64', [rank], spec)], {}, { ...same(x), shape });
  return true;
};

/** Flatten, Squeeze/Unsqueeze (axes inputs, opset 13) or Identity. */
export const view: StepBuilder = (st, d) => {
  const x = st.current();
  const r = x.shape.length;
  const k = d.int(0, 3);
  if (k === 0) {
    const axis = d.int(0, r);
    const lead = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
    st.node('Flatten', [x.name], { axis }, { ...same(x), shape: [lead, x.shape.reduce((a, b) => a * b, 1) / lead] });
  } else if (k === 1) {
    const ones = [...x.shape.keys()].filter((i) => x.shape[i] === 1);
    if (ones.length === 0 || r === 1) return false;
    const axes = ones.filter(() => d.chance(0.6));
    if (axes.length === 0) axes.push(ones[0]);
    st.node('Squeeze', [x.name, st.constOf('int64', [axes.length], axes)], {}, { ...same(x), shape: x.shape.filter((_, i) => !axes.includes(i)) });
  } else if (k === 2) {
    if (r >= 4) return false;
    const axis = d.int(0, r);
    const shape = [...x.shape.slice(0, axis), 1, ...x.shape.slice(axis)];
    st.node('Unsqueeze', [x.name, st.constOf('int64', [1], [d.chance(0.3) ? axis - r - 1 : axis])], {}, { ...same(x), shape });
  } else {
    st.node('Identity', [x.name], {}, same(x));
  }
  return true;
};

/** ReduceSum (int32, requantized) or ReduceMean over random axes, keepdims or not. */
export const reduce: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.shape.length === 0) return false;
  if (!isNarrow(x)) return false;
  const r = x.shape.length;
  let axes = [...x.shape.keys()].filter(() => d.chance(0.4));
  if (axes.length === 0) axes = [r - 1];
  const keep = d.chance(0.6) ? 1 : 0;
  const shape = keep ? x.shape.map((s, i) => (axes.includes(i) ? 1 : s)) : x.shape.filter((_, i) => !axes.includes(i));
  const L = axes.reduce((a, i) => a * x.shape[i], 1);
  if (d.chance(0.5)) {
    const acc = st.node('ReduceSum', [x.name, st.constOf('int64', [axes.length], axes)], { keepdims: keep }, { shape, kind: 'wide', spread: 70 * Math.sqrt(L) });
    requant(st, d, acc);
  } else {
    st.node('ReduceMean', [x.name], { axes, keepdims: keep }, { ...same(x), shape });
  }
  return true;
};

/** iSoftmax, ITAMax or ITAPartialMax along the last axis (unsigned results). */
export const softmax: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.shape.length === 0) return false;
  if (x.kind !== 'int8') return false;
  const L = x.shape[x.shape.length - 1];
  const k = d.int(0, 2);
  const n = d.pick([256, 256, 16, 128]);
  if (k === 0) {
    const log2 = d.int(32, 300);
    const B = d.int(log2, 2 * log2);
    const A = d.int(1, 3);
    st.node('iSoftmax', [x.name], { coeffA: A, coeffB: B, coeffC: d.int(0, A * B * B), log2, n_levels: n }, { ...same(x), kind: 'uint8' });
  } else if (k === 1) {
    st.node('ITAMax', [x.name], { n_levels: n }, { ...same(x), kind: 'uint8' });
  } else {
    st.node('ITAPartialMax', [x.name], { n_levels: n, group_width: d.int(1, L) }, { ...same(x), kind: 'uint8' });
  }
  return true;
};

/** iLayerNorm / iRMSNorm (weights along the last axis) or iNoNorm (full-shape weights). */
export const norm: StepBuilder = (st, d) => {
  const x = st.current();
  if (x.shape.length === 0) return false;
  if (!isNarrow(x)) return false;
  const L = x.shape[x.shape.length - 1];
  const D = 2 ** d.int(0, 12);
  const k = d.int(0, 2);
  if (k === 0) {
    const w = st.constInts(d, 'int32', [L], -300, 300);
    const b = st.constInts(d, 'int32', [L], -2000, 2000);
    st.node('iLayerNorm', [x.name, w, b], { D, n_levels: 256 }, { ...same(x), kind: 'int8' });
  } else if (k === 1) {
    const w = st.constInts(d, 'int32', [L], -300, 300);
    st.node('iRMSNorm', [x.name, w], { D, n_levels: 256 }, { ...same(x), kind: 'int8' });
  } else {
    const w = st.constInts(d, 'int8', [...x.shape], -128, 127);
    const b = st.constInts(d, 'int32', [...x.shape], -5000, 5000);
    st.node('iNoNorm', [x.name, w, b], { D, mul: d.int(1, 20) }, { ...same(x), kind: 'int8' });
  }
  return true;
};

/** Brings a value back to 8 bits when it is wide (RequantShift), else a plain requantization. */
export const requantStep: StepBuilder = (st, d) => {
  const x = st.current();
  requant(st, d, x.kind === 'wide' ? x : { ...x, spread: 100 }, x.shape.length > 1 ? 1 : undefined);
  return true;
};
