import { GenError } from '../../errors.js';
import { attrInt, attrLog2 } from '../../ir/attrs.js';
import { requantParamShape } from '../../ir/broadcast.js';
import type { Expr, Graph, Node } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { isIntType, rangeOf } from '../../ir/dtype.js';
import { shapeEquals } from '../../ir/ndarray.js';
import { requantExpr } from '../../backend/expr.js';
import { fusedNames, referencedTensors, soleConsumer } from '../edit.js';
import { requantOf } from '../requant.js';
import { clipBounds } from '../../reference/ops/elementwise.js';

/*
 * Elementwise integer ops become 'Elementwise' nodes carrying an expression over their inputs, and chains of them
 * (e.g. RequantShift -> Add <- RequantShift -> RequantShift, the requantized Add of SEMANTICS.md; iHardswish ->
 * RequantShift) merge into one node, so intermediates never reach memory. The expressions are the formulas of
 * SEMANTICS.md section 1 written once here; backend/expr.ts emits them as C and AS.
 */
const ELEMENTWISE = new Set(['RequantShift', 'Add', 'Sub', 'Mul', 'iHardswish', 'iGELU', 'IntegerDiv', 'iNoNorm', 'Relu', 'Clip']);

const inp = (i: number): Expr => ({ k: 'in', i });
const cst = (v: number): Expr => ({ k: 'const', v });
const add = (a: Expr, b: Expr): Expr => ({ k: 'add', a, b });
const sub = (a: Expr, b: Expr): Expr => ({ k: 'sub', a, b });
const mul = (a: Expr, b: Expr): Expr => ({ k: 'mul', a, b });

function exprOf(g: Graph, n: Node): { expr: Expr; inputs: string[]; tensors: Map<string, ReturnType<typeof tensorOf>> } {
  const extra = new Map<string, ReturnType<typeof tensorOf>>();
  switch (n.op) {
    case 'Add': return { expr: add(inp(0), inp(1)), inputs: n.inputs.slice(0, 2), tensors: extra };
    case 'Sub': return { expr: sub(inp(0), inp(1)), inputs: n.inputs.slice(0, 2), tensors: extra };
    case 'Mul': return { expr: mul(inp(0), inp(1)), inputs: n.inputs.slice(0, 2), tensors: extra };
    case 'RequantShift': {
      const rq = requantOf(g, n);
      const xShape = tensorOf(g, n.inputs[0]).shape;
      // Per-channel parameters stored as (C,1,..,1) broadcast along axis 1: give the leaf that shape.
      const params = [rq.mul, rq.add].map((name) => {
        const t = tensorOf(g, name);
        const shape = requantParamShape(t.shape, xShape);
        if (shapeEquals(shape, t.shape)) return name;
        const alias = `${name}__per_channel`;
        extra.set(alias, { ...t, name: alias, shape, data: t.data && { ...t.data, shape } });
        return alias;
      });
      return { expr: requantExpr(inp(0), inp(1), inp(2), rq.shift, rq.min, rq.max), inputs: [n.inputs[0], ...params], tensors: extra };
    }
    case 'Relu': return { expr: { k: 'max', a: inp(0), b: cst(0) }, inputs: [n.inputs[0]], tensors: extra };
    case 'Clip': return { expr: clipExpr(g, n), inputs: [n.inputs[0]], tensors: extra };
    case 'iHardswish': {
      const x = inp(0);
      const three = attrInt(n, 'three');
      const six = attrInt(n, 'six');
      const oneOverSix = attrInt(n, 'one_over_six');
      return { expr: mul(x, mul({ k: 'clip', a: add(x, cst(three)), lo: 0, hi: six }, cst(oneOverSix))), inputs: [n.inputs[0]], tensors: extra };
    }
    case 'iGELU': {
      const x = inp(0);
      const b = attrInt(n, 'b');
      const one = attrInt(n, 'one');
      const q: Expr = { k: 'min', a: { k: 'abs', a: x }, b: cst(-b) };
      const d = add(q, cst(b));
      const L = mul({ k: 'sign', a: x }, sub(cst(one), mul(d, d)));
      return { expr: mul(x, { k: 'shr', a: add(cst(one), L), s: 1 }), inputs: [n.inputs[0]], tensors: extra };
    }
    case 'IntegerDiv': {
      const Delta = attrInt(n, 'Delta');
      const eps = attrInt(n, 'eps');
      const eta = attrInt(n, 'eta');
      const den = add(mul(cst(eta), inp(1)), cst(eps));
      const nom = mul(cst(Delta * eta), inp(0));
      const expr: Expr = { k: 'tdiv', a: add(nom, mul({ k: 'signp', a: nom }, { k: 'shr', a: den, s: 1 })), b: den };
      return { expr, inputs: n.inputs.slice(0, 2), tensors: extra };
    }
    case 'iNoNorm': {
      const m = attrInt(n, 'mul');
      const s = attrLog2(n, 'D');
      const expr: Expr = { k: 'wrap8', a: { k: 'shr', a: mul(add(mul(inp(0), inp(1)), inp(2)), cst(m)), s } };
      return { expr, inputs: n.inputs.slice(0, 3), tensors: extra };
    }
  }
  throw new GenError('internal', `no expression for ${n.op}`, { node: n.name, op: n.op });
}

/**
 * An integer Clip as ONNX defines it, min(max(x, lo), hi) (SEMANTICS.md names no integer Clip): bounds from inputs
 * 1 and 2 or the min/max attributes, the reference interpreter's reading. Written as max then min, not 'clip', so
 * that lo > hi gives hi everywhere, as ONNX does. A bound the input's type already satisfies is left out.
 */
function clipExpr(g: Graph, n: Node): Expr {
  const site = { node: n.name, op: n.op };
  const x = tensorOf(g, n.inputs[0]);
  const { lo, hi } = clipBounds(n, (i) => {
    if (!n.inputs[i]) return undefined;
    return tensorOf(g, n.inputs[i]).data?.data ?? null;
  });
  for (const b of [lo, hi]) {
    if (Number.isFinite(b) && (!Number.isInteger(b) || Math.abs(b) > 2 ** 31)) {
      throw new GenError('unsupported', `an integer Clip with the bound ${b}, not a 32-bit integer`, site);
    }
  }
  const r = isIntType(x.dtype) ? rangeOf(x.dtype) : { min: -Infinity, max: Infinity };
  let e: Expr = inp(0);
  if (lo > r.min) e = { k: 'max', a: e, b: cst(lo) };
  if (hi < Math.max(r.max, lo)) e = { k: 'min', a: e, b: cst(hi) };
  return e;
}

/** Renumbers leaves of `e` through `map` (or replaces them by expressions). */
export function remap(e: Expr, map: (i: number) => Expr): Expr {
  switch (e.k) {
    case 'in': return map(e.i);
    case 'const': return e;
    case 'shr': return { ...e, a: remap(e.a, map) };
    case 'clip': return { ...e, a: remap(e.a, map) };
    case 'abs': case 'sign': case 'signp': case 'wrap8': return { ...e, a: remap(e.a, map) };
    default: return { ...e, a: remap(e.a, map), b: remap(e.b, map) };
  }
}

/**
 * Operands of one fused expression at most: with its output, the argument slots of a tiled layer (the C's
 * fg_l1_args, network.h NETWORK_L1_ARGS = 16 pointers; midend/tiling/plan-tiles.ts L1_ARGS_BYTES). A fuzz finding:
 * two requantized Adds and a division fused into 16 operands, whose tiled layer's arguments failed the C build's
 * static assertion on Siracusa.
 */
export const MAX_FUSED_LEAVES = 15;

/**
 * `maxLeaves`: a merge that would exceed it stops (the two nodes then run as two layers): MAX_FUSED_LEAVES, or fewer
 * where a platform's elementwise layer takes fewer operands (SpiNNaker2).
 */
export function fuseElementwise(g: Graph, maxLeaves = MAX_FUSED_LEAVES): Graph {
  // 1. Every elementwise op becomes an Elementwise node.
  let out: Graph = { ...g, tensors: new Map(g.tensors) };
  out.nodes = out.nodes.map((n) => {
    if (!ELEMENTWISE.has(n.op) || n.domain === 'firmgen') return n;
    // Relu and Clip are elementwise here on integers only; a float one stays itself (and finds no kernel).
    if ((n.op === 'Relu' || n.op === 'Clip') && !isIntType(tensorOf(out, n.inputs[0]).dtype)) return n;
    const { expr, inputs, tensors } = exprOf(out, n);
    for (const [k, t] of tensors) out.tensors.set(k, t);
    return { name: n.name, op: 'Elementwise', domain: 'firmgen', inputs, outputs: [...n.outputs], attrs: {}, expr, fusedFrom: fusedNames(n) };
  });
  // 2. Merge a producer into its sole consumer when its result has the consumer's output shape. The merges are the
  // ones a restart from the first node after each merge would make, in the same order (a chain merges link by link,
  // which fixes the leaf order of its expression), but the graph is edited in place: nodes before the merged one
  // cannot merge after it (they precede both nodes, in topological order, and no reader count they see falls to
  // one), so the scan goes on from the merged node, and the tensors are pruned once at the end.
  const nodes = [...out.nodes];
  const producers = producerOf(out);
  const consumers = consumersOf(out);
  const graph = out;
  const mergeable = (c: Node, outShape: number[]): number => c.inputs.findIndex((i) => {
    const p = producers.get(i);
    return p && p.op === 'Elementwise' && soleConsumer(graph, i, consumers) === c && shapeEquals(tensorOf(graph, i).shape, outShape) &&
      new Set([...c.inputs.filter((x) => x !== i), ...p.inputs]).size <= maxLeaves;
  });
  let merges = 0;
  for (let at = 0; at < nodes.length;) {
    const c = nodes[at];
    const idx = c.op === 'Elementwise' && c.expr ? mergeable(c, tensorOf(out, c.outputs[0]).shape) : -1;
    if (idx < 0) {
      at++;
      continue;
    }
    const p = producers.get(c.inputs[idx]) as Node;
    const inputs = [...c.inputs];
    const pLeaf = new Map<number, number>();
    p.inputs.forEach((name, j) => {
      let leaf = inputs.indexOf(name);
      if (leaf < 0 || leaf === idx) {
        inputs.push(name);
        leaf = inputs.length - 1;
      }
      pLeaf.set(j, leaf);
    });
    const pExpr = remap(p.expr as Expr, (j) => inp(pLeaf.get(j) as number));
    const expr = remap(c.expr as Expr, (i) => (i === idx ? pExpr : inp(i)));
    // Drop the consumed leaf and renumber.
    const keep = inputs.map((_, i) => i).filter((i) => i !== idx);
    const renum = new Map(keep.map((old, neu) => [old, neu]));
    const fused: Node = {
      ...c,
      inputs: keep.map((i) => inputs[i]),
      expr: remap(expr, (i) => inp(renum.get(i) as number)),
      fusedFrom: fusedNames(p, c),
    };
    // As replaceNodes places it: where the later of the two was, both gone.
    const pAt = nodes.indexOf(p);
    nodes[Math.max(pAt, at)] = fused;
    nodes.splice(Math.min(pAt, at), 1);
    for (const o of p.outputs) if (producers.get(o) === p) producers.delete(o);
    for (const o of fused.outputs) producers.set(o, fused);
    for (const [n, names] of [[p, p.inputs], [c, c.inputs]] as const) {
      for (const name of names) {
        const list = consumers.get(name);
        if (list) consumers.set(name, list.filter((x) => x !== n));
      }
    }
    for (const name of fused.inputs) {
      if (!name) continue; // (as consumersOf: an absent optional input)
      const list = consumers.get(name);
      if (list) list.push(fused);
      else consumers.set(name, [fused]);
    }
    merges++;
    // A producer after its consumer would break the argument above: then scan from the start, as before.
    at = pAt < at ? at - 1 : 0;
  }
  return merges === 0 ? out : { ...out, nodes, tensors: referencedTensors(out, nodes) };
}
