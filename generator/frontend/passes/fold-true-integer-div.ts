import { attrNumber } from '../../ir/attrs.js';
import { narrowestType, rangeOfValues } from '../../ir/dtype.js';
import type { Graph, Node, Tensor } from '../../ir/graph.js';
import { tensorOf } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { foldTrueIntegerDiv, trueIntegerDivParams } from '../../reference/ops/true-integer-div.js';

/*
 * TrueIntegerDiv has no kernel (SEMANTICS.md section 1): its division folds into each RequantShift that reads it
 * (mul' = round(mul*coeff), div' = div*256, the same function the reference interpreter uses). Other readers see
 * x unchanged, so they read x directly; a TrueIntegerDiv whose result is a graph output becomes an Identity.
 */
export function foldTrueIntegerDivPass(g: Graph): Graph {
  if (!g.nodes.some((n) => n.op === 'TrueIntegerDiv')) return g;
  const tensors = new Map(g.tensors);
  const replaced = new Map<string, { x: string; tid: Node }>();
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    if (n.op === 'TrueIntegerDiv') {
      replaced.set(n.outputs[0], { x: n.inputs[0], tid: n });
      if (g.outputs.includes(n.outputs[0])) nodes.push({ ...n, op: 'Identity', attrs: {}, inputs: [n.inputs[0]] });
      continue;
    }
    const src = replaced.get(n.inputs[0]);
    if (n.op === 'RequantShift' && src) {
      const params = trueIntegerDivParams(src.tid);
      const div = attrNumber(n, 'div');
      const mulT = tensorOf(g, n.inputs[1]);
      const values = Array.from(mulT.data?.data ?? [], (m) => foldTrueIntegerDiv(params, m, div).mul);
      const name = `${mulT.name}__folded_${src.tid.name}`;
      const data = ndarray('int64', mulT.shape, values);
      const folded: Tensor = { ...mulT, name, dtype: narrowestType(rangeOfValues(values)), data };
      tensors.set(name, folded);
      nodes.push({
        ...n,
        inputs: [src.x, name, ...n.inputs.slice(2)],
        attrs: { ...n.attrs, div: { kind: 'float', value: foldTrueIntegerDiv(params, 0, div).div } },
        fusedFrom: [src.tid.name, n.name],
      });
      continue;
    }
    nodes.push({ ...n, inputs: n.inputs.map((i) => replaced.get(i)?.x ?? i) });
  }
  return { ...g, nodes, tensors };
}
