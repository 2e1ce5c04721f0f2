import { divisors, isNarrow, requant, type GraphState, type Val } from './graph-state.js';
import type { Draws } from './recipe.js';

/*
 * Step builders for the arithmetic ops (SEMANTICS.md section 1). Each reads the current value (or skips by
 * returning false when its shape does not fit), draws its attributes within what the shapes allow, and mostly
 * requantizes its int32 result back to 8 bits, as the dialect's graphs do.
 */
export type StepBuilder = (st: GraphState, d: Draws) => boolean;

const weightRange = (d: Draws): [number, number] => d.pick<[number, number]>([[-128, 127], [-128, 127], [-3, 3], [0, 255], [0, 0]]);

/** Conv 1-D or 2-D: groups (depthwise included), asymmetric pads, strides, dilations, optional bias. */
export const conv: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x) || (x.shape.length !== 3 && x.shape.length !== 4) || x.shape[0] !== 1) return false;
  const spatial = x.shape.slice(2);
  const cin = x.shape[1];
  const depthwise = d.chance(0.25);
  const group = depthwise ? cin : d.pick(divisors(cin));
  const cout = depthwise ? cin * d.pick([1, 1, 2]) : group * d.int(1, Math.max(1, Math.floor(12 / group)));
  const ks: number[] = [];
  const strides: number[] = [];
  const dil: number[] = [];
  const padsBegin: number[] = [];
  const padsEnd: number[] = [];
  const out: number[] = [];
  for (const size of spatial) {
    const k = d.pick([1, 3, 3, 2, 5]);
    const dl = d.chance(0.2) ? d.int(2, 3) : 1;
    const s = d.chance(0.3) ? d.int(2, 3) : 1;
    const eff = (k - 1) * dl + 1;
    const pb = d.int(0, k - 1);
    const pe = d.chance(0.7) ? pb : d.int(0, k - 1);
    const span = size + pb + pe - eff;
    if (span < 0) return false;
    ks.push(k); dil.push(dl); strides.push(s); padsBegin.push(pb); padsEnd.push(pe);
    out.push(Math.floor(span / s) + 1);
  }
  const [lo, hi] = weightRange(d);
  const w = st.constInts(d, 'int8', [cout, cin / group, ...ks], lo, hi);
  const inputs = [x.name, w];
  if (d.chance(0.3)) inputs.push(st.constInts(d, 'int32', [cout], -5000, 5000));
  const attrs = { group, kernel_shape: ks, strides, dilations: dil, pads: [...padsBegin, ...padsEnd] };
  const macs = (cin / group) * ks.reduce((a, b) => a * b, 1);
  const acc = st.node('Conv', inputs, attrs, { shape: [1, cout, ...out], kind: 'wide', spread: 70 * 40 * Math.sqrt(macs) });
  if (d.chance(0.9)) requant(st, d, acc, 1);
  return true;
};

/** Gemm with transA/transB, integer alpha/beta, a bias C of shape [N], [1, N] or [M, N], or none. */
export const gemm: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x) || x.shape.length !== 2) return false;
  const transA = d.chance(0.2) ? 1 : 0;
  const [M, K] = transA ? [x.shape[1], x.shape[0]] : x.shape;
  const N = d.int(1, 24);
  const transB = d.chance(0.5) ? 1 : 0;
  const [lo, hi] = weightRange(d);
  const B = st.constInts(d, 'int8', transB ? [N, K] : [K, N], lo, hi);
  const inputs = [x.name, B];
  const cShape = d.pick([[N], [1, N], [M, N], []]);
  if (cShape.length > 0) inputs.push(st.constInts(d, 'int32', cShape, -3000, 3000));
  const alpha = d.pick([1, 1, 2, 3]);
  const beta = d.pick([1, 1, 0, 2]);
  const acc = st.node('Gemm', inputs, { alpha, beta, transA, transB }, { shape: [M, N], kind: 'wide', spread: alpha * 70 * 40 * Math.sqrt(K) });
  if (d.chance(0.9)) requant(st, d, acc, d.chance(0.5) ? 1 : undefined);
  return true;
};

/** MatMul: a constant B (2-D or batched) or another value (attention-like A x B^T through a transpose). */
export const matmul: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x) || x.shape.length < 2 || x.shape.length > 4) return false;
  const r = x.shape.length;
  const K = x.shape[r - 1];
  let bName: string;
  let N: number;
  if (d.chance(0.3)) {
    // x times x^T over the last two axes.
    const perm = [...x.shape.keys()];
    [perm[r - 1], perm[r - 2]] = [perm[r - 2], perm[r - 1]];
    N = x.shape[r - 2];
    const t = st.node('Transpose', [x.name], { perm }, { shape: perm.map((p) => x.shape[p]), kind: x.kind, spread: x.spread });
    bName = t.name;
  } else {
    N = d.int(1, 20);
    const batched = r > 2 && d.chance(0.4);
    const bShape = batched ? [...x.shape.slice(0, r - 2), K, N] : [K, N];
    const [lo, hi] = weightRange(d);
    bName = st.constInts(d, 'int8', bShape, lo, hi);
  }
  const acc = st.node('MatMul', [x.name, bName], {}, { shape: [...x.shape.slice(0, r - 1), N], kind: 'wide', spread: 70 * 70 * Math.sqrt(K) });
  if (d.chance(0.9)) requant(st, d, acc);
  return true;
};

/** Add / Sub / Mul of the current value and a broadcast constant or another value of the same shape. */
export const binary: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x)) return false;
  const op = d.pick(['Add', 'Add', 'Sub', 'Mul']);
  // Another value of the same shape, or one that broadcasts into it (a reduced or sliced branch).
  const y = d.chance(0.5) ? st.other(d, (v) => isNarrow(v) && v !== x && broadcastsInto(v.shape, x.shape)) : undefined;
  let other: string;
  if (y) other = y.name;
  else {
    const r = x.shape.length;
    const shape = r === 0 ? [] : d.pick([[1], x.shape.map((s, i) => (i === 1 || r === 1 ? s : 1)), [...x.shape], [x.shape[r - 1]]]);
    other = st.constInts(d, d.pick(['int8', 'int32'] as const), shape, -100, 100);
  }
  const acc = st.node(op, d.chance(0.2) ? [other, x.name] : [x.name, other], {}, { shape: [...x.shape], kind: 'wide', spread: op === 'Mul' ? 4000 : 100 });
  if (d.chance(0.9)) requant(st, d, acc, x.shape.length > 1 ? 1 : undefined);
  return true;
};

function broadcastsInto(small: number[], big: number[]): boolean {
  if (small.length > big.length) return false;
  const off = big.length - small.length;
  return small.every((d, i) => d === 1 || d === big[off + i]);
}

/** A branch: an earlier value requantized becomes the current one, so later steps grow a second path. */
export const fork: StepBuilder = (st, d) => {
  const v = st.other(d);
  if (!v || v === st.current()) return false;
  requant(st, d, v.kind === 'wide' ? v : { ...v, spread: 100 }, v.shape.length > 1 ? 1 : undefined);
  return true;
};

/** The dialect's requantized Add: each operand requantized, summed, requantized again. */
export const requantAdd: StepBuilder = (st, d) => {
  const x = st.current();
  const y = st.other(d, (v) => v !== x && v.shape.join() === x.shape.join()) ?? x;
  const a = requant(st, d, { ...x, spread: 80 });
  const b = requant(st, d, { ...y, spread: 80 });
  const acc = st.node('Add', [a.name, b.name], {}, { shape: [...x.shape], kind: 'wide', spread: 100 });
  requant(st, d, acc);
  return true;
};

/** Relu, or Clip with constant bounds (inputs), on narrow or wide values. */
export const activation: StepBuilder = (st, d) => {
  const x = st.current();
  if (d.chance(0.5)) {
    st.node('Relu', [x.name], {}, { ...x, shape: [...x.shape] });
    return true;
  }
  const lo = d.int(-130, 20);
  const hi = lo + d.int(0, 200);
  const ct = x.kind === 'wide' ? 'int32' : x.kind;
  const loName = x.kind === 'uint8' ? st.constOf('uint8', [], [Math.max(0, lo)]) : st.constOf(ct, [], [Math.max(-128, lo)]);
  const hiName = x.kind === 'uint8' ? st.constOf('uint8', [], [Math.min(255, Math.max(0, hi))]) : st.constOf(ct, [], [Math.min(127, hi)]);
  st.node('Clip', [x.name, loName, hiName], {}, { ...x, shape: [...x.shape] });
  return true;
};

/** MaxPool 1-D or 2-D with pads below the kernel, strides, dilations and ceil_mode. */
export const maxPool: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x) || (x.shape.length !== 3 && x.shape.length !== 4)) return false;
  const ks: number[] = [];
  const strides: number[] = [];
  const dil: number[] = [];
  const pb: number[] = [];
  const pe: number[] = [];
  const ceil = d.chance(0.2) ? 1 : 0;
  const out: number[] = [];
  for (const size of x.shape.slice(2)) {
    const k = d.int(1, Math.min(4, size + 1));
    const dl = d.chance(0.15) ? 2 : 1;
    const s = d.int(1, 3);
    const b = d.int(0, Math.floor((k - 1) / 2));
    const e = d.int(0, Math.floor((k - 1) / 2));
    const eff = (k - 1) * dl + 1;
    const span = size + b + e - eff;
    if (span < 0) return false;
    let o = (ceil ? Math.ceil(span / s) : Math.floor(span / s)) + 1;
    if (ceil && (o - 1) * s >= size + b) o--;
    ks.push(k); strides.push(s); dil.push(dl); pb.push(b); pe.push(e); out.push(o);
  }
  const attrs: Record<string, number | number[]> = { kernel_shape: ks, strides, pads: [...pb, ...pe], ceil_mode: ceil };
  if (dil.some((v) => v !== 1)) attrs.dilations = dil;
  st.node('MaxPool', [x.name], attrs, { ...x, shape: [...x.shape.slice(0, 2), ...out] });
  return true;
};

/** iGELU / iHardswish (int32 results), then requantized. */
export const intActivation: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x)) return false;
  let acc: Val;
  if (d.chance(0.5)) {
    const b = -d.int(1, 300);
    const one = d.int(1, 20000);
    acc = st.node('iGELU', [x.name], { b, one }, { shape: [...x.shape], kind: 'wide', spread: 128 * Math.max(one, b * b) });
  } else {
    const six = d.int(1, 200);
    acc = st.node('iHardswish', [x.name], { one_over_six: d.int(1, 2000), three: d.int(0, six), six }, { shape: [...x.shape], kind: 'wide', spread: 128 * 200 * 1000 });
  }
  requant(st, d, acc);
  return true;
};

/** IntegerDiv by a positive constant, or TrueIntegerDiv folded into the RequantShift that follows. */
export const integerDiv: StepBuilder = (st, d) => {
  const x = st.current();
  if (!isNarrow(x)) return false;
  const one = x.shape.length === 0 ? [] : [1]; // a scalar stays a scalar
  if (d.chance(0.5)) {
    const bv = st.constInts(d, 'int32', one, 1, 5000);
    const attrs = { Delta: d.pick([1, 8, 256]), eps: d.int(1, 10), eta: d.pick([1, 2, 16]) };
    const acc = st.node('IntegerDiv', [x.name, bv], attrs, { shape: [...x.shape], kind: 'wide', spread: 200 });
    requant(st, d, acc);
    return true;
  }
  const attrs = { Delta: d.pick([1, 64, 256]), eps: d.int(1, 10), eta: d.pick([1, 2, 16]), y: d.int(1, 100) };
  const t = st.node('TrueIntegerDiv', [x.name], attrs, { ...x, shape: [...x.shape], kind: 'wide' });
  const mul = st.constOf('int32', one, [d.int(1, 50)]);
  const add = st.constOf('int32', one, [0]);
  st.node('RequantShift', [t.name, mul, add], { div: 2 ** d.int(0, 8), n_levels: 256, signed: 1 }, { shape: [...x.shape], kind: 'int8', spread: 64 });
  return true;
};
