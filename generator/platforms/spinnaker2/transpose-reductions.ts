import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { freshTensorName } from '../../frontend/edit.js';

/*
 * The reduction layer (reduce.ts) sums one contiguous group of axes, [O][R][I]. A reduction over axes that are not
 * contiguous becomes a Transpose that puts the reduced axes last, keeping the kept ones in order (a movement layer),
 * the reduction over those last axes, and, with keepdims, a Reshape back to the output's shape (an alias: the
 * values are already in the output's order). The sum and its rounding are those of the original node: the same
 * values are reduced, once.
 */
const REDUCTIONS = new Set(['ReduceSum', 'ReduceMean', 'IntegerMean']);

/** The reduced axes, normalised and sorted, or undefined when they come from a non-constant input. */
function axesOf(g: Graph, n: Node, rank: number): number[] | undefined {
  let axes: number[];
  if (n.inputs[1]) {
    const t = tensorOf(g, n.inputs[1]);
    if (!t.data) return undefined;
    axes = Array.from(t.data.data);
  } else {
    axes = hasAttr(n, 'axes') ? attrInts(n, 'axes') : [];
  }
  if (axes.length === 0 && attrInt(n, 'noop_with_empty_axes', 0) === 0) axes = [...Array(rank).keys()];
  return [...new Set(axes.map((a) => (a < 0 ? a + rank : a)))].sort((a, b) => a - b);
}

export function transposeReductions(g: Graph): Graph {
  const tensors = new Map(g.tensors);
  const out: Graph = { ...g, tensors };
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    const x = REDUCTIONS.has(n.op) ? tensorOf(g, n.inputs[0]) : undefined;
    const axes = x ? axesOf(g, n, x.shape.length) : undefined;
    if (!x || !axes || axes.length === 0 || axes.every((a, i) => i === 0 || a === axes[i - 1] + 1)) {
      nodes.push(n);
      continue;
    }
    const y = tensorOf(g, n.outputs[0]);
    const rank = x.shape.length;
    const kept = x.shape.map((_, i) => i).filter((i) => !axes.includes(i));
    const perm = [...kept, ...axes];
    const moved: Tensor = { ...x, name: freshTensorName(out, `${n.name}__reduced_last`), shape: perm.map((p) => x.shape[p]), data: undefined };
    tensors.set(moved.name, moved);
    nodes.push({ name: `${n.name}__transpose`, op: 'Transpose', domain: '', inputs: [x.name], outputs: [moved.name], attrs: { perm: { kind: 'ints', value: perm } } });
    const keepdims = attrInt(n, 'keepdims', 1) !== 0;
    const last = axes.map((_, i) => kept.length + i);
    const reduced: Tensor = keepdims ? { ...y, name: freshTensorName(out, `${n.name}__kept`), shape: kept.map((i) => x.shape[i]) } : y;
    if (keepdims) tensors.set(reduced.name, reduced);
    const attrs = { ...n.attrs, axes: { kind: 'ints' as const, value: last }, keepdims: { kind: 'int' as const, value: 0 } };
    nodes.push({ ...n, inputs: [moved.name], outputs: [reduced.name], attrs, fusedFrom: n.fusedFrom ?? [n.name] });
    if (keepdims) {
      const shape: Tensor = { name: freshTensorName(out, `${n.name}__shape`), dtype: 'int64', shape: [rank], data: ndarray('int64', [rank], y.shape) };
      tensors.set(shape.name, shape);
      nodes.push({ name: `${n.name}__reshape`, op: 'Reshape', domain: '', inputs: [reduced.name, shape.name], outputs: [y.name], attrs: {} });
    }
  }
  return { ...out, nodes };
}
