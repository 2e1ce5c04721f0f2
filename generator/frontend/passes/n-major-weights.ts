import { attrInts } from '../../ir/attrs.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { byteWide } from '../../kernels/common.js';

/*
 * Gives a MatMul an n-major B (B[.., n, k], as Gemm's transB) wherever that costs nothing at run time, so that the C
 * kernel's dot-product path applies (a platform opts in through its passes): a dot product needs both operands
 * contiguous in k (gemm.c.mustache `cdot`: four k per word, two rows per fg_dot4x2 step), and a k-major B (ONNX
 * MatMul's layout) leaves the kernel a scalar loop with one byte load per MAC. Measured on the ISS, 8 cluster cores,
 * EEGFormer's 66x16x16 projections: 26,447 cycles k-major, 7,577 n-major; one plain rv32 core, the tiny-llama's
 * 16x64x64 projections: 619,884 -> 251,961. Two cases:
 * - a constant B: stored transposed by the generator;
 * - a B made by a Transpose that only this MatMul reads (attention's K^T and V): the Transpose writes the n-major
 *   order instead (its perm with the last two axes swapped, the same work), or disappears when that perm is the
 *   identity.
 * The node carries transB = 1, which the GEMM kernel, its tiling spec and the NPU's eligibility read for MatMul as for
 * Gemm. Values do not change: outputs stay bit-identical.
 */
export function nMajorWeights(g: Graph): Graph {
  // One walk that edits a working copy in place (node list, tensor map, readers per tensor, producers) rather than
  // copying the graph for each MatMul: the same rewrites in the same order (a later MatMul sees what earlier ones did:
  // a shared B's last reader transposes it in place), the same node order and tensor map order.
  const work: Work = { ...g, nodes: [...g.nodes], tensors: new Map(g.tensors), readers: readerCounts(g), producers: producerOf(g), transposed: new Map() };
  let changed = false;
  for (const n of g.nodes) {
    if (n.op !== 'MatMul' || n.attrs.transB !== undefined) continue;
    const a = tensorOf(work, n.inputs[0]);
    const b = tensorOf(work, n.inputs[1]);
    const r = b.shape.length;
    if (r < 2 || !byteWide(a.dtype) || !byteWide(b.dtype) || n.inputs[0] === n.inputs[1]) continue;
    // Fewer than 4 k leave no word to dot; a single column is already contiguous in k.
    if (b.shape[r - 2] < 4 || b.shape[r - 1] === 1) continue;
    changed = (b.data ? constantB(work, n, b) : transposedB(work, n, b)) || changed;
  }
  return changed ? { ...g, tensors: work.tensors, nodes: work.nodes } : g;
}

/** The graph being rewritten (its nodes and tensors so far), each tensor's reader count (as consumersOf counts), producers. */
interface Work extends Graph {
  readers: Map<string, number>;
  producers: Map<string, Node>;
  /** A constant B and its n-major copy, made once for all its MatMuls (a prompt pass and its step share weights). */
  transposed: Map<string, string>;
}

function readerCounts(g: Graph): Map<string, number> {
  return new Map([...consumersOf(g)].map(([name, list]) => [name, list.length]));
}

const nMajor = (node: Node, b: string): Node =>
  ({ ...node, inputs: [node.inputs[0], b, ...node.inputs.slice(2)], attrs: { ...node.attrs, transB: { kind: 'int', value: 1 } } });

/** `from` replaced by `to` where it stands (removed when `to` is undefined). */
function replaceNode(w: Work, from: Node, to: Node | undefined): void {
  const at = w.nodes.indexOf(from);
  if (at < 0) return;
  if (to) w.nodes[at] = to;
  else w.nodes.splice(at, 1);
}

const addReaders = (w: Work, name: string, k: number): void => {
  w.readers.set(name, (w.readers.get(name) ?? 0) + k);
};

function constantB(w: Work, n: Node, b: Tensor): boolean {
  if (b.shape.length !== 2 || !b.data) return false;
  const made = w.transposed.get(b.name);
  if (made) {
    // Another MatMul's copy serves this one too; the k-major original goes when nothing else reads it.
    addReaders(w, b.name, -1);
    addReaders(w, made, 1);
    if ((w.readers.get(b.name) ?? 0) === 0 && !w.outputs.includes(b.name)) w.tensors.delete(b.name);
    replaceNode(w, n, nMajor(n, made));
    return true;
  }
  const [K, N] = b.shape;
  const t = ndarray(b.data.dtype, [N, K]);
  for (let k = 0; k < K; k++) for (let c = 0; c < N; c++) t.data[c * K + k] = b.data.data[k * N + c];
  // The transposed copy gets a name of its own unless this MatMul is B's only reader (a shared B keeps its layout for
  // the others).
  const only = (w.readers.get(b.name) ?? 0) === 1 && !w.outputs.includes(b.name);
  let name = only ? b.name : `${b.name}__nk`;
  while (!only && w.tensors.has(name)) name += '_';
  w.tensors.set(name, { ...b, name, shape: [N, K], data: t });
  if (!only) {
    addReaders(w, b.name, -1);
    addReaders(w, name, 1);
    w.transposed.set(b.name, name);
  }
  replaceNode(w, n, nMajor(n, name));
  return true;
}

function transposedB(w: Work, n: Node, b: Tensor): boolean {
  const t = w.producers.get(b.name);
  if (!t || t.op !== 'Transpose' || w.outputs.includes(b.name) || (w.readers.get(b.name) ?? 0) !== 1) return false;
  const src = tensorOf(w, t.inputs[0]);
  const r = b.shape.length;
  if (src.shape.length !== r || src.dtype !== b.dtype) return false;
  const perm = attrInts(t, 'perm', Array.from({ length: r }, (_, i) => r - 1 - i));
  const swapped = [...perm.slice(0, r - 2), perm[r - 1], perm[r - 2]];
  const shape = [...b.shape.slice(0, r - 2), b.shape[r - 1], b.shape[r - 2]];
  if (swapped.every((p, i) => p === i)) {
    // The n-major order is the source's own: the MatMul reads it, the Transpose goes.
    w.tensors.delete(b.name);
    w.producers.delete(b.name);
    w.readers.delete(b.name);
    replaceNode(w, t, undefined);
    replaceNode(w, n, nMajor(n, src.name));
    // (the source loses the Transpose as a reader and gains the MatMul)
    return true;
  }
  w.tensors.set(b.name, { ...b, shape });
  const t2 = { ...t, attrs: { ...t.attrs, perm: { kind: 'ints' as const, value: swapped } } };
  w.producers.set(b.name, t2);
  replaceNode(w, t, t2);
  replaceNode(w, n, nMajor(n, b.name));
  return true;
}
