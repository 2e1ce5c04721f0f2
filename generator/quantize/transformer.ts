import { GenError } from '../errors.js';
import { attrInt, attrInts, hasAttr } from '../ir/attrs.js';
import type { Graph, Node } from '../ir/graph.js';
import { erf } from '../reference/ops/float-math.js';
import { MASK_BELOW, type Unit } from './types.js';

/*
 * The operators of a Llama-style decoder as PyTorch exports them (opset 17), read as quantization units:
 *   Gather(constant table, runtime ids)                               -> embed   (int8 table, integer Gather)
 *   Pow(x, 2) | Mul(x, x) -> ReduceMean(last) -> Add(eps) -> Sqrt -> Reciprocal | Div(1, .) -> Mul(x, .) [-> Mul(gain)]
 *   or ... Sqrt -> Div(x, .) [-> Mul(gain)]                           -> rmsnorm (iRMSNorm)
 *   ReduceMean(x, last) -> Sub(x, .)  (LayerNorm's centring)           -> center; the rest of a LayerNorm
 *   (Pow 2 -> ReduceMean -> Add eps -> Sqrt -> Div -> Mul gain) is an rmsnorm of it, its bias Add an addconst
 *   Sigmoid(x) -> Mul(x, .)  (SiLU), Sigmoid, Tanh                     -> lut     (a 256-entry table read by Gather)
 *   Div(x, c) -> Erf -> Add(1) -> Mul(x, .) -> Mul(0.5)  (GELU, erf form as torch exports it)  -> lut
 *   Mul(a, b) of two activations (SwiGLU's gate * up)                 -> mul
 *   Mul(x, constant tensor) (rotary cos/sin), Neg(x), Mul by c < 0    -> mulconst
 *   Mul(x, c > 0) or Div(x, c > 0) with a scalar c (attention scale)  -> scale   (no integer op)
 *   Add(x, constant), Where(constant cond, x, fill) (causal masks)    -> addconst
 *   Cast to float of a float tensor                                   -> pass (Identity)
 * Float casts between these (HF's RMSNorm casts to float32) are looked through.
 */

interface Ctx {
  g: Graph;
  sole: (t: string) => Node | undefined;
  isConst: (t: string) => boolean;
  taken: Set<Node>;
}

const unsupported = (n: Node, why: string): GenError => new GenError('unsupported', why, { node: n.name, op: n.op });

function constOf(g: Graph, t: string | undefined): { data: Float64Array; shape: number[] } | undefined {
  const c = t ? g.tensors.get(t) : undefined;
  return c?.data ? { data: c.data.data, shape: [...c.data.shape] } : undefined;
}

/** A Cast to float32 of a float tensor: a no-op in the float model. */
export function isFloatCast(g: Graph, n: Node): boolean {
  return n.op === 'Cast' && attrInt(n, 'to', 1) === 1 && g.tensors.get(n.inputs[0])?.dtype === 'float32';
}

/** Follows t through sole-consumer float casts; returns the tensor they end at and the casts passed. */
function throughCasts(c: Ctx, t: string): { t: string; casts: Node[] } {
  const casts: Node[] = [];
  for (let next = c.sole(t); next && isFloatCast(c.g, next); next = c.sole(t)) {
    casts.push(next);
    t = next.outputs[0];
  }
  return { t, casts };
}

/** The other operand of a binary node, given one. */
const other = (n: Node, t: string): string => (n.inputs[0] === t ? n.inputs[1] : n.inputs[0]);

function isScalar(d: { data: Float64Array } | undefined, v?: number): boolean {
  return d !== undefined && d.data.length === 1 && (v === undefined || d.data[0] === v);
}

/** RMSNorm from its first node (the square); undefined when the chain does not match. */
function rmsNorm(c: Ctx, n: Node): Unit | undefined {
  const x = n.inputs[0];
  const square = (n.op === 'Pow' && isScalar(constOf(c.g, n.inputs[1]), 2)) || (n.op === 'Mul' && n.inputs[1] === x);
  if (!square) return undefined;
  const chain: Node[] = [n];
  const step = (t: string, ok: (m: Node) => boolean): Node | undefined => {
    const via = throughCasts(c, t);
    const m = c.sole(via.t);
    if (!m || !ok(m)) return undefined;
    chain.push(...via.casts, m);
    return m;
  };
  const rank = c.g.tensors.get(x)?.shape.length ?? 0;
  const mean = step(n.outputs[0], (m) => m.op === 'ReduceMean' && attrInt(m, 'keepdims', 1) === 1
    && reducedAxes(c.g, m).length === 1 && (reducedAxes(c.g, m)[0] + rank) % rank === rank - 1);
  const eps = mean && step(mean.outputs[0], (m) => m.op === 'Add' && isScalar(constOf(c.g, other(m, mean.outputs[0]))));
  const sqrt = eps && step(eps.outputs[0], (m) => m.op === 'Sqrt');
  if (!sqrt) return undefined;
  // 1/sqrt then a product with x, or x divided by sqrt.
  let normed: Node | undefined;
  const inv = step(sqrt.outputs[0], (m) => m.op === 'Reciprocal' || (m.op === 'Div' && m.inputs[1] === sqrt.outputs[0] && isScalar(constOf(c.g, m.inputs[0]), 1))
    || (m.op === 'Div' && m.inputs[0] === x && m.inputs[1] === sqrt.outputs[0]));
  if (!inv) return undefined;
  if (inv.op === 'Div' && inv.inputs[0] === x) normed = inv;
  else normed = step(inv.outputs[0], (m) => m.op === 'Mul' && other(m, inv.outputs[0]) === x);
  if (!normed) return undefined;
  const width = c.g.tensors.get(x)?.shape[rank - 1] ?? 0;
  let out = normed.outputs[0];
  let gain: Float64Array = new Float64Array(width).fill(1);
  const constGain = (m: Node): Float64Array | undefined => gainOf(c.g, m.inputs[0], width) ?? gainOf(c.g, m.inputs[1], width);
  const scaled = step(out, (m) => m.op === 'Mul' && constGain(m) !== undefined);
  if (scaled) {
    gain = constGain(scaled)!;
    out = scaled.outputs[0];
  } else {
    const via = throughCasts(c, out);
    chain.push(...via.casts);
    out = via.t;
  }
  for (const m of chain) c.taken.add(m);
  return { kind: 'rmsnorm', name: n.name, nodes: chain.map((m) => m.name), node: n, x, gain, out };
}

function reducedAxes(g: Graph, m: Node): number[] {
  if (hasAttr(m, 'axes')) return attrInts(m, 'axes');
  return Array.from(constOf(g, m.inputs[1])?.data ?? []);
}

/** A per-column gain: a constant of `width` values broadcast along the last axis only. */
function gainOf(g: Graph, t: string, width: number): Float64Array | undefined {
  const d = constOf(g, t);
  if (!d || d.data.length !== width || d.shape[d.shape.length - 1] !== width) return undefined;
  return Float64Array.from(d.data);
}

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

/** ReduceMean(x) over the last axis (kept) whose sole reader is Sub(x, mean): LayerNorm's x - mean(x). */
function center(c: Ctx, n: Node): Unit | undefined {
  const x = n.inputs[0];
  const rank = c.g.tensors.get(x)?.shape.length ?? 0;
  const axes = reducedAxes(c.g, n);
  if (attrInt(n, 'keepdims', 1) !== 1 || axes.length !== 1 || (axes[0] + rank) % rank !== rank - 1) return undefined;
  const sub = c.sole(n.outputs[0]);
  if (sub?.op !== 'Sub' || sub.inputs[0] !== x || sub.inputs[1] !== n.outputs[0]) return undefined;
  c.taken.add(sub);
  return { kind: 'center', name: n.name, nodes: [n.name, sub.name], node: n, x, out: sub.outputs[0] };
}

/** GELU as torch exports it: x * (1 + erf(x / c)) * 0.5 from Div(x, c); undefined when the chain does not match. */
function gelu(c: Ctx, n: Node): Unit | undefined {
  const x = n.inputs[0];
  const k = constOf(c.g, n.inputs[1]);
  if (n.op !== 'Div' || !isScalar(k) || !(k!.data[0] > 0)) return undefined;
  const e = c.sole(n.outputs[0]);
  const one = e?.op === 'Erf' ? c.sole(e.outputs[0]) : undefined;
  if (!e || one?.op !== 'Add' || !isScalar(constOf(c.g, other(one, e.outputs[0])), 1)) return undefined;
  const times = c.sole(one.outputs[0]);
  if (times?.op !== 'Mul' || other(times, one.outputs[0]) !== x) return undefined;
  const half = c.sole(times.outputs[0]);
  if (half?.op !== 'Mul' || !isScalar(constOf(c.g, other(half, times.outputs[0])), 0.5)) return undefined;
  for (const m of [e, one, times, half]) c.taken.add(m);
  const d = k!.data[0];
  return {
    kind: 'lut', name: n.name, nodes: [n.name, e.name, one.name, times.name, half.name], node: n, x, out: half.outputs[0],
    fn: (v) => v * (1 + erf(v / d)) * 0.5, what: 'GELU',
  };
}

/** Finds the transformer unit starting at node n, or undefined (the caller's patterns apply). */
export function transformerUnit(c: Ctx, n: Node): Unit | undefined {
  const { g } = c;
  const base = { name: n.name, nodes: [n.name], node: n, out: n.outputs[0] };
  const act = (t: string | undefined): boolean => t !== undefined && t !== '' && !c.isConst(t);
  if (n.op === 'Gather' && c.isConst(n.inputs[0]) && act(n.inputs[1])) {
    const t = constOf(g, n.inputs[0])!;
    return { ...base, kind: 'embed', table: t.data, tableShape: t.shape, indices: n.inputs[1] };
  }
  if (n.op === 'Pow' || (n.op === 'Mul' && n.inputs[0] === n.inputs[1])) {
    const u = rmsNorm(c, n);
    if (u) return u;
    if (n.op === 'Pow') throw unsupported(n, 'Pow outside an RMSNorm (x * 1/sqrt(mean(x^2) + eps) * gain) has no integer form');
  }
  if (n.op === 'Sigmoid') {
    const m = c.sole(n.outputs[0]);
    if (m?.op === 'Mul' && other(m, n.outputs[0]) === n.inputs[0]) {
      c.taken.add(m);
      return { ...base, kind: 'lut', x: n.inputs[0], fn: (v) => v * sigmoid(v), what: 'SiLU', nodes: [n.name, m.name], out: m.outputs[0] };
    }
    return { ...base, kind: 'lut', x: n.inputs[0], fn: sigmoid, what: 'Sigmoid' };
  }
  if (n.op === 'Tanh') return { ...base, kind: 'lut', x: n.inputs[0], fn: Math.tanh, what: 'Tanh' };
  if (n.op === 'ReduceMean') {
    const u = center(c, n);
    if (u) return u;
  }
  if (n.op === 'Div') {
    const u = gelu(c, n);
    if (u) return u;
  }
  if (n.op === 'Neg') return { ...base, kind: 'mulconst', x: n.inputs[0], c: Float64Array.of(-1), cShape: [] };
  if (n.op === 'Mul' || n.op === 'Div') {
    const [a, b] = n.inputs;
    if (act(a) && act(b)) {
      if (n.op === 'Div') throw unsupported(n, 'Div of two activations has no integer form here');
      return { ...base, kind: 'mul', a, b };
    }
    const x = act(a) ? a : b;
    if (n.op === 'Div' && x !== a) throw unsupported(n, 'Div of a constant by an activation has no integer form');
    const k = constOf(g, other(n, x));
    if (!k) return undefined;
    const values = n.op === 'Div' ? k.data.map((v) => 1 / v) : k.data;
    if (values.length === 1 && values[0] > 0) return { ...base, kind: 'scale', x, factor: values[0] };
    if (values.some((v) => !Number.isFinite(v))) throw unsupported(n, 'a product with a non-finite constant');
    return { ...base, kind: 'mulconst', x, c: Float64Array.from(values), cShape: k.shape };
  }
  if (n.op === 'Add' && act(n.inputs[0]) !== act(n.inputs[1])) {
    const x = act(n.inputs[0]) ? n.inputs[0] : n.inputs[1];
    const k = constOf(g, other(n, x));
    if (!k) return undefined;
    return { ...base, kind: 'addconst', x, c: k.data, cShape: k.shape, mask: isMask(k.data) };
  }
  if (n.op === 'Where') return whereMask(c, n, base);
  if (n.op === 'CacheWrite') {
    const row = constOf(g, n.inputs[2]);
    return { ...base, kind: 'cache', x: n.inputs[1], cache: n.inputs[0], ...(row ? { row: row.data[0] } : {}) };
  }
  if (n.op === 'PositionMask') return { ...base, kind: 'posmask', x: n.inputs[0] };
  if (isFloatCast(g, n)) return { ...base, kind: 'pass', x: n.inputs[0] };
  return undefined;
}

/** Whether a constant only ever keeps (0) or masks out (very negative) entries. */
function isMask(c: Float64Array): boolean {
  return c.every((v) => v === 0 || v <= MASK_BELOW) && c.some((v) => v !== 0);
}

/** Where(constant condition, x, fill) or Where(condition, fill, x) with a very negative fill: an additive mask. */
function whereMask(c: Ctx, n: Node, base: { name: string; nodes: string[]; node: Node; out: string }): Unit {
  const cond = constOf(c.g, n.inputs[0]);
  const a = constOf(c.g, n.inputs[1]);
  const b = constOf(c.g, n.inputs[2]);
  const fill = a ?? b;
  const x = a ? n.inputs[2] : n.inputs[1];
  if (!cond || !fill || (a && b) || !isScalar(fill) || !(fill.data[0] <= MASK_BELOW)) {
    throw unsupported(n, 'only Where(constant condition, x, very negative fill) (an attention mask) has an integer form');
  }
  // The fill is taken where the condition is false when it is the third operand, where true when the second.
  const masked = (k: number): boolean => (a ? k !== 0 : k === 0);
  const mask = Float64Array.from(cond.data, (k) => (masked(k) ? fill.data[0] : 0));
  return { ...base, kind: 'addconst', x, c: mask, cShape: cond.shape, mask: true };
}
