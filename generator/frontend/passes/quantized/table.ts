import type { Node } from '../../../ir/graph.js';
import { int } from '../../../quantize/builder.js';
import { erf } from '../../../reference/ops/float-math.js';
import { dequantizeValue, quantizeValue } from '../../../reference/ops/quantize.js';
import { unsupported, type LoweringContext, type Pending, type Value } from './context.js';
import { siteOf, typeRange, type QTensor } from './emit.js';

/*
 * Float arithmetic of one 8-bit dequantized tensor alone (GELU's Div, Erf, Add, Mul chain, Sigmoid, Tanh, a scaling
 * by a constant), between its DequantizeLinear and the QuantizeLinear that ends it: whatever the chain, the output is a
 * function of the input's code, so it is lowered to a 256-entry table of the output codes read by Gather. Each entry
 * is the chain evaluated as onnxruntime evaluates it (float32 after every op) on the code's dequantized value, then
 * quantized with QuantizeLinear's rounding: the same codes as onnxruntime wherever its float32 functions (erf, exp,
 * tanh) round as a correctly rounded one does, else one apart.
 */

const f32 = Math.fround;
type Fn = (v: number) => number;
export type TablePending = Extract<Pending, { kind: 'table' }>;

/** Ops of one value each, float32 in and out. */
const UNARY: Record<string, Fn> = {
  Erf: (v) => f32(erf(v)),
  Sigmoid: (v) => f32(1 / (1 + Math.exp(-v))),
  Tanh: (v) => f32(Math.tanh(v)),
  Exp: (v) => f32(Math.exp(v)),
  Neg: (v) => -v,
  Abs: (v) => Math.abs(v),
  // A negative value's square root is NaN in onnxruntime, and its QuantizeLinear makes NaN the type's minimum (as
  // measured with onnxruntime-node on x86); -Infinity quantizes to the same code. LayerNorm's variance never takes
  // such codes, but the table has an entry for every code.
  Sqrt: (v) => (v < 0 ? -Infinity : f32(Math.sqrt(v))),
};

/** Elementwise ops of two values, float32 in and out. */
const BINARY: Record<string, (a: number, b: number) => number> = {
  Add: (a, b) => f32(a + b),
  Sub: (a, b) => f32(a - b),
  Mul: (a, b) => f32(a * b),
  Div: (a, b) => f32(a / b),
  // Math.pow is exact for the square torch's LayerNorm exports (x*x rounded once to float32, as onnxruntime).
  Pow: (a, b) => f32(Math.pow(a, b)),
};

/** An operand of a chain: a function of one 8-bit tensor's dequantized value, or a float scalar constant. */
type Term = { src: QTensor; fn: Fn; chained: boolean } | { c: number };

function termOf(v: Value | undefined): Term | undefined {
  if (v?.k === 'fq') return v.t.dtype === 'int8' || v.t.dtype === 'uint8' ? { src: v.t, fn: (x) => x, chained: false } : undefined;
  if (v?.k === 'pend' && v.p.kind === 'table') {
    const { lo, hi } = v;
    const g = v.p.fn;
    // A Relu/Clip after the chain, in float as onnxruntime clips.
    return { src: v.p.x, fn: lo === -Infinity && hi === Infinity ? g : (x) => Math.min(hi, Math.max(lo, g(x))), chained: true };
  }
  if (v?.k === 'const' && v.data.data.length === 1) return { c: f32(Number(v.data.data[0])) };
  if (v?.k === 'wq' && v.w.data.data.length === 1) return { c: dequantizeValue(Number(v.w.data.data[0]), v.w.scales[0], v.w.zps[0] ?? 0) };
  return undefined;
}

/**
 * The chain `n` extends or starts, when it is one: a unary op of one 8-bit tensor, or an elementwise op of it with a
 * scalar constant or with itself through another chain. Add and Mul of two dequantized tensors and of a dequantized
 * constant keep their integer lowerings (undefined here).
 */
export function tableOp(n: Node, ins: (Value | undefined)[]): TablePending | undefined {
  const unary = UNARY[n.op];
  if (unary && n.inputs.length === 1) {
    const t = termOf(ins[0]);
    if (!t || 'c' in t) return undefined;
    return { kind: 'table', node: n, x: t.src, fn: (v) => unary(t.fn(v)), what: n.op };
  }
  const binary = BINARY[n.op];
  if (!binary || n.inputs.length !== 2) return undefined;
  const [a, b] = [termOf(ins[0]), termOf(ins[1])];
  if (!a || !b || ('c' in a && 'c' in b)) return undefined;
  const floatConstant = ins.some((v) => v?.k === 'const');
  if ('c' in a || 'c' in b) {
    const t = ('c' in a ? b : a) as Extract<Term, { src: QTensor }>;
    // A dequantized scalar scaling a dequantized tensor is the integer Mul/Add's, unless a chain is under way.
    if ((n.op === 'Add' || n.op === 'Mul') && !floatConstant && !t.chained) return undefined;
    const fn: Fn = 'c' in a ? (v) => binary(a.c, t.fn(v)) : (v) => binary(t.fn(v), (b as { c: number }).c);
    return { kind: 'table', node: n, x: t.src, fn, what: n.op };
  }
  // Both a function of one tensor (GELU's x * Phi(x)): the same tensor, and a chain on at least one side.
  if (a.src.name !== b.src.name || a.src.scale !== b.src.scale || a.src.zp !== b.src.zp || !(a.chained || b.chained)) return undefined;
  return { kind: 'table', node: n, x: a.src, fn: (v) => binary(a.fn(v), b.fn(v)), what: n.op };
}

/** The table of a chain's output codes for every input code, read by Gather: y, clipped to `clip`. */
export function emitTable(ctx: LoweringContext, p: TablePending, y: QTensor, clip: [number, number]): void {
  const [tl, th] = typeRange(y.dtype);
  const [lo, hi] = [Math.max(tl, clip[0]), Math.min(th, clip[1])];
  const table = Array.from({ length: 256 }, (_, i) => {
    const code = p.x.dtype === 'int8' && i >= 128 ? i - 256 : i;
    const v = p.fn(dequantizeValue(code, p.x.scale, p.x.zp));
    if (Number.isNaN(v)) throw unsupported(siteOf(p.node), `${p.what} of the chain gives NaN for the input code ${code}`);
    return Math.min(hi, Math.max(lo, quantizeValue(v, y.scale, y.zp, { min: tl, max: th })));
  });
  // Gather reads a table entry per code: an int8 code's negative values index from the end, as i - 256 is stored.
  const t = ctx.w.constant(`${p.node.name}_table`, y.dtype, [256], table);
  ctx.w.b.tensor(y.name, y.dtype, []);
  ctx.w.node('Gather', p.node.name, [t, p.x.name], [y.name], { axis: int(0) });
}
