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

/** The leaves' requantization in an expression: clip((in0*in1 + in2 + 2^(s-1)) >> s) without its clip. */
function requantLeaves(e: Expr): { shift: number } | undefined {
  let shift = 0;
  let t = e;
  if (t.k === 'shr') {
    shift = t.s;
    const a = t.a;
    if (a.k !== 'add' || a.b.k !== 'const' || a.b.v !== 2 ** (shift - 1)) return undefined;
    t = a.a;
  }
  if (t.k !== 'add' || t.b.k !== 'in' || t.b.i !== 2) return undefined;
  const m = t.a;
  if (m.k !== 'mul' || m.a.k !== 'in' || m.a.i !== 0 || m.b.k !== 'in' || m.b.i !== 1) return undefined;
  return { shift };
}

function elementwiseOf(node: Node, g: Graph): SegmentLayerFunction | string {
  const why = `runs on the control core (an element-wise expression the engines do not compute: ${node.fusedFrom?.join(', ') ?? node.name})`;
  if (!node.expr) return why;
  // Outer clips and ReLUs narrow one range applied last.
  let lo = INT32_MIN, hi = INT32_MAX;
  let e: Expr = node.expr;
  for (;;) {
    if (e.k === 'clip') { lo = Math.max(lo, e.lo); hi = Math.min(hi, e.hi); e = e.a; } else if (e.k === 'max' && e.b.k === 'const') { lo = Math.max(lo, e.b.v); e = e.a; } else if (e.k === 'min' && e.b.k === 'const') { hi = Math.min(hi, e.b.v); e = e.a; } else break;
  }
  const rq = e.k === 'in' && e.i === 0 ? undefined : requantLeaves(e);
  if (lo > hi || (!rq && !(e.k === 'in' && e.i === 0))) return why;
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  if (!ELEMENT_KINDS.includes(x.dtype as ElementKind) || !ELEMENT_KINDS.includes(y.dtype as ElementKind)) return why;
  if (x.shape.length !== y.shape.length || x.shape.some((d, i) => d !== y.shape[i])) return why;
  let dims: { k: number; ho: number; wo: number; strides: [number, number, number, number] };
  if (x.shape.length === 4 && x.shape[0] === 1) {
    const [, C, H, W] = x.shape;
    dims = { k: C, ho: H, wo: W, strides: [C * H * W, H * W, W, 1] };
  } else if (x.shape.length === 2 && x.shape[0] >= 1) {
    const [M, K] = x.shape;
    dims = { k: K, ho: M, wo: 1, strides: [0, 1, K, 0] };
  } else return `a map of shape [${x.shape.join(', ')}] (a segment's element-wise layers take one sample's maps or matrices)`;
  let requant: Functional['requant'];
  if (rq) {
    const per: boolean[] = [];
    const types: ElementKind[] = [];
    for (const name of node.inputs.slice(1, 3)) {
      const t = tensorOf(g, name);
      const size = t.shape.reduce((a, d) => a * d, 1);
      if (t.data === undefined || !ELEMENT_KINDS.includes(t.dtype as ElementKind) || (size !== 1 && size !== dims.k)) return why;
      per.push(size !== 1);
      types.push(t.dtype as ElementKind);
    }
    requant = { shift: rq.shift, min: lo, max: hi, mulPerChannel: per[0], addPerChannel: per[1], mulType: types[0], addType: types[1] };
  }
  const fn: Functional = {
    n: 1, k: dims.k, c: dims.k, ho: dims.ho, wo: dims.wo, r: 1, s: 1, strideH: 1, strideW: 1, padT: 0, padL: 0, h: dims.ho, w: dims.wo,
    xStrides: dims.strides, wStrides: [0, 0, 0, 0], yStrides: dims.strides, bias: false,
    xType: x.dtype as ElementKind, wType: 'int8', biasType: 'int32', yType: y.dtype as ElementKind, requant,
  };
  return { kind: 3, fn, clip: rq ? undefined : { min: lo, max: hi } };
}
