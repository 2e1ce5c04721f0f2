import { type Expr, type Graph, type Node, tensorOf } from '../../ir/graph.js';
import { engineOp } from './engine-kernel.js';
import { ELEMENT_KINDS, type ElementKind, type Functional } from './programs.js';
import type { SegmentLayerFunction } from './segment-programs.js';

/**
 * What a firmware layer computes inside a pipeline segment (segment-programs.ts), or why the engines cannot compute
 * it there (the reason splits the searched segments: search.ts, docs/tangram.md "Pipelined segments"):
 *  - the engine kernels' Conv, Gemm/MatMul (with a fused requantization) and MaxPool of one sample;
 *  - an Elementwise node of one map operand that is a requantization and/or a clip (RequantShift, ReLU, Clip and
 *    their fused chains: the integer dialect's expressions, frontend/passes/fuse-elementwise.ts).
 * Everything else (an Add of two maps, tables, normalisations, copies) is the control core's. The firmware's own
 * segments leave the element-wise layers out (`elementwiseOnEngines` false): its element-wise layers are the control
 * core's kernels.
 */
export function segmentFunctionOf(node: Node, g: Graph, elementwiseOnEngines = true): SegmentLayerFunction | string {
  if (node.op === 'Elementwise') return elementwiseOnEngines ? elementwiseOf(node, g) : 'runs on the control core (the firmware\'s element-wise layers: docs/tangram.md "What is left")';
  const op = engineOp(node, g);
  if (typeof op === 'string') return `runs on the control core (${node.op}: ${op})`;
  if (op.fn.n !== 1) return `a batch of ${op.fn.n} samples (a segment's steps are rows of one sample)`;
  return { kind: op.kind, fn: op.fn };
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A leaf of the expression: its index among the node's inputs. */
const leaf = (e: Expr): number | undefined => (e.k === 'in' ? e.i : undefined);

/**
 * The requantization of an expression without its clip: (v*mul + add + 2^(s-1)) >> s over leaves mul and add, or
 * undefined.
 */
function requantParts(e: Expr): { v: Expr; mul: number; add: number; shift: number } | undefined {
  let shift = 0;
  let t = e;
  if (t.k === 'shr') {
    shift = t.s;
    const a = t.a;
    if (shift < 1 || a.k !== 'add' || a.b.k !== 'const' || a.b.v !== 2 ** (shift - 1)) return undefined;
    t = a.a;
  }
  if (t.k !== 'add' || t.a.k !== 'mul') return undefined;
  const mul = leaf(t.a.b), add = leaf(t.b);
  if (mul === undefined || add === undefined) return undefined;
  return { v: t.a.a, mul, add, shift };
}

/**
 * What the engines compute of an element-wise expression: one map (leaf `x`), or the integer dialect's requantized
 * Add's scaled sum of two maps, x*sx + x2*sx2 (SEMANTICS.md: each input requantized, summed, requantized again; the
 * fusion leaves the scales as products), then the requantization and the clip.
 */
export interface ElementwiseLeaves { x: number; x2?: number; sx?: number; sx2?: number; mul?: number; add?: number }

function elementwiseOf(node: Node, g: Graph): SegmentLayerFunction | string {
  const why = `runs on the control core (an element-wise expression the engines do not compute: ${node.fusedFrom?.join(', ') ?? node.name})`;
  if (!node.expr) return why;
  // Outer clips and ReLUs narrow one range applied last.
  let lo = INT32_MIN, hi = INT32_MAX;
  let e: Expr = node.expr;
  for (;;) {
    if (e.k === 'clip') { lo = Math.max(lo, e.lo); hi = Math.min(hi, e.hi); e = e.a; } else if (e.k === 'max' && e.b.k === 'const') { lo = Math.max(lo, e.b.v); e = e.a; } else if (e.k === 'min' && e.b.k === 'const') { hi = Math.min(hi, e.b.v); e = e.a; } else break;
  }
  const rq = requantParts(e);
  const v = rq ? rq.v : e;
  const isMap = (i: number | undefined): i is number => i !== undefined && tensorOf(g, node.inputs[i]).data === undefined;
  let leaves: ElementwiseLeaves;
  if (isMap(leaf(v))) leaves = { x: leaf(v)! };
  else if (v.k === 'add' && v.a.k === 'mul' && v.b.k === 'mul' && isMap(leaf(v.a.a)) && isMap(leaf(v.b.a)) && !isMap(leaf(v.a.b)) && !isMap(leaf(v.b.b))) {
    leaves = { x: leaf(v.a.a)!, sx: leaf(v.a.b), x2: leaf(v.b.a)!, sx2: leaf(v.b.b) };
  } else return why;
  if (lo > hi || (leaves.x2 !== undefined && !rq)) return why;
  const x = tensorOf(g, node.inputs[leaves.x]);
  const y = tensorOf(g, node.outputs[0]);
  const sameShape = (t: { shape: number[] }): boolean => t.shape.length === y.shape.length && t.shape.every((d, i) => d === y.shape[i]);
  const maps = [x, ...(leaves.x2 !== undefined ? [tensorOf(g, node.inputs[leaves.x2])] : [])];
  if (![...maps, y].every((t) => ELEMENT_KINDS.includes(t.dtype as ElementKind)) || !maps.every(sameShape)) return why;
  let dims: { k: number; ho: number; wo: number; strides: [number, number, number, number] };
  if (x.shape.length === 4 && x.shape[0] === 1) {
    const [, C, H, W] = x.shape;
    dims = { k: C, ho: H, wo: W, strides: [C * H * W, H * W, W, 1] };
  } else if (x.shape.length === 2 && x.shape[0] >= 1) {
    const [M, K] = x.shape;
    dims = { k: K, ho: M, wo: 1, strides: [0, 1, K, 0] };
  } else return `a map of shape [${x.shape.join(', ')}] (a segment's element-wise layers take one sample's maps or matrices)`;
  // A constant leaf: integer, scalar or (requantization parameters) one per channel.
  const constant = (i: number | undefined, perChannel: boolean): { per: boolean; type: ElementKind } | undefined => {
    if (i === undefined) return undefined;
    const t = tensorOf(g, node.inputs[i]);
    const size = t.shape.reduce((a, d) => a * d, 1);
    if (t.data === undefined || !ELEMENT_KINDS.includes(t.dtype as ElementKind) || (size !== 1 && (!perChannel || size !== dims.k))) return undefined;
    return { per: size !== 1, type: t.dtype as ElementKind };
  };
  let requant: Functional['requant'];
  if (rq) {
    const m = constant(rq.mul, true), d = constant(rq.add, true);
    if (!m || !d) return why;
    leaves = { ...leaves, mul: rq.mul, add: rq.add };
    requant = { shift: rq.shift, min: lo, max: hi, mulPerChannel: m.per, addPerChannel: d.per, mulType: m.type, addType: d.type };
  }
  // The two maps' scales (scalars) take the filter and bias kinds' words of the record; the second map's kind the bias flag's.
  const sx = constant(leaves.sx, false), sx2 = constant(leaves.sx2, false);
  if (leaves.x2 !== undefined && (!sx || !sx2)) return why;
  const fn: Functional = {
    n: 1, k: dims.k, c: dims.k, ho: dims.ho, wo: dims.wo, r: 1, s: 1, strideH: 1, strideW: 1, padT: 0, padL: 0, h: dims.ho, w: dims.wo,
    xStrides: dims.strides, wStrides: [0, 0, 0, 0], yStrides: dims.strides, bias: false,
    xType: x.dtype as ElementKind, wType: sx?.type ?? 'int8', biasType: sx2?.type ?? 'int32', yType: y.dtype as ElementKind, requant,
  };
  if (leaves.x2 !== undefined) return { kind: 4, fn, leaves, x2Type: maps[1].dtype as ElementKind };
  return { kind: 3, fn, clip: rq ? undefined : { min: lo, max: hi }, leaves };
}
