import { attrInts } from '../../../ir/attrs.js';
import type { Graph, Node, Tensor } from '../../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../../ir/graph.js';
import { ndarray } from '../../../ir/ndarray.js';
import { byteWide } from '../../../kernels/common.js';

/*
 * Gives a cluster MatMul an n-major B (B[.., n, k], as Gemm's transB) wherever that costs nothing at run time, so that
 * the C kernel's int8 SIMD path applies: a dot product needs both operands contiguous in k (gemm.c.mustache `cdot`:
 * four k per word, two rows per fg_dot4x2 step), and a k-major B (ONNX MatMul's layout) leaves the kernel a scalar
 * loop with one byte load per MAC. Measured on the ISS, 8 cores, EEGFormer's 66x16x16 projections: 26,447 cycles
 * k-major, 7,577 n-major. Two cases:
 * - a constant B: stored transposed by the generator;
 * - a B made by a Transpose that only this MatMul reads (attention's K^T and V): the Transpose writes the n-major
 *   order instead (its perm with the last two axes swapped, the same work), or disappears when that perm is the
 *   identity.
 * The node carries transB = 1, which the GEMM kernel, its tiling spec and the NPU's eligibility read for MatMul as for
 * Gemm. Values do not change: outputs stay bit-identical.
 */
export function nMajorWeights(g: Graph): Graph {
  let out = g;
  for (const n of g.nodes) {
    if (n.op !== 'MatMul' || n.attrs.transB !== undefined) continue;
    const a = tensorOf(out, n.inputs[0]);
    const b = tensorOf(out, n.inputs[1]);
    const r = b.shape.length;
    if (r < 2 || !byteWide(a.dtype) || !byteWide(b.dtype) || n.inputs[0] === n.inputs[1]) continue;
    // Fewer than 4 k leave no word to dot; a single column is already contiguous in k.
    if (b.shape[r - 2] < 4 || b.shape[r - 1] === 1) continue;
    out = (b.data ? constantB(out, n, b) : transposedB(out, n, b)) ?? out;
  }
  return out;
}

const nMajor = (node: Node, b: string): Node =>
  ({ ...node, inputs: [node.inputs[0], b, ...node.inputs.slice(2)], attrs: { ...node.attrs, transB: { kind: 'int', value: 1 } } });

function replaceNode(g: Graph, from: Node, to: Node | undefined, tensors: Map<string, Tensor>): Graph {
  return { ...g, tensors, nodes: g.nodes.flatMap((x) => (x === from ? (to ? [to] : []) : [x])) };
}

function constantB(g: Graph, n: Node, b: Tensor): Graph | undefined {
  if (b.shape.length !== 2 || !b.data) return undefined;
  const [K, N] = b.shape;
  const t = ndarray(b.data.dtype, [N, K]);
  for (let k = 0; k < K; k++) for (let c = 0; c < N; c++) t.data[c * K + k] = b.data.data[k * N + c];
  // The transposed copy gets a name of its own unless this MatMul is B's only reader (a shared B keeps its layout for
  // the others).
  const only = (consumersOf(g).get(b.name) ?? []).length === 1 && !g.outputs.includes(b.name);
  let name = only ? b.name : `${b.name}__nk`;
  while (!only && g.tensors.has(name)) name += '_';
  const tensors = new Map(g.tensors).set(name, { ...b, name, shape: [N, K], data: t });
  return replaceNode(g, n, nMajor(n, name), tensors);
}

function transposedB(g: Graph, n: Node, b: Tensor): Graph | undefined {
  const t = producerOf(g).get(b.name);
  if (!t || t.op !== 'Transpose' || g.outputs.includes(b.name) || (consumersOf(g).get(b.name) ?? []).length !== 1) return undefined;
  const src = tensorOf(g, t.inputs[0]);
  const r = b.shape.length;
  if (src.shape.length !== r || src.dtype !== b.dtype) return undefined;
  const perm = attrInts(t, 'perm', Array.from({ length: r }, (_, i) => r - 1 - i));
  const swapped = [...perm.slice(0, r - 2), perm[r - 1], perm[r - 2]];
  const shape = [...b.shape.slice(0, r - 2), b.shape[r - 1], b.shape[r - 2]];
  const tensors = new Map(g.tensors);
  if (swapped.every((p, i) => p === i)) {
    // The n-major order is the source's own: the MatMul reads it, the Transpose goes.
    tensors.delete(b.name);
    const g1 = replaceNode(g, t, undefined, tensors);
    return replaceNode(g1, n, nMajor(n, src.name), tensors);
  }
  tensors.set(b.name, { ...b, shape });
  const g1 = replaceNode(g, t, { ...t, attrs: { ...t.attrs, perm: { kind: 'ints', value: swapped } } }, tensors);
  return replaceNode(g1, n, nMajor(n, b.name), tensors);
}
