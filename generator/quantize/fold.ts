import { GenError } from '../errors.js';
import { cloneGraph, type Graph } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { opSpec } from '../reference/registry.js';

/*
 * Constant folding of the float model before it is read as units: exporters leave computations on constants in the
 * graph (a rotary cos/sin table sliced to the sequence length, a causal mask built from Range/Where, a weight
 * transposed by a node), which are constants to the quantizer. Each node whose operands are all constants runs once
 * in the reference interpreter and becomes an initializer.
 */

/** Folded results larger than this stay nodes (a folded table is stored once per use). */
const FOLD_LIMIT = 1 << 22;

export function foldConstants(g: Graph): Graph {
  const out = cloneGraph(g);
  const keep = [];
  for (const n of out.nodes) {
    const operands = n.inputs.map((i) => (i ? out.tensors.get(i)?.data : undefined));
    const constant = n.inputs.length > 0 && n.inputs.every((i, k) => !i || operands[k] !== undefined);
    const spec = opSpec(n.op);
    if (!constant || !spec || n.outputs.some((o) => out.outputs.includes(o))) {
      keep.push(n);
      continue;
    }
    let values;
    try {
      values = spec.evaluate(n, operands);
    } catch (e) {
      if (e instanceof GenError) throw e;
      throw new GenError('model', (e as Error).message, { node: n.name, op: n.op, file: g.source });
    }
    if (values.some((v) => sizeOf(v.shape) > FOLD_LIMIT)) {
      keep.push(n);
      continue;
    }
    n.outputs.forEach((o, i) => {
      if (!o) return;
      const v = values[i];
      out.tensors.set(o, { name: o, dtype: v.dtype === 'float64' ? 'float32' : v.dtype, shape: [...v.shape], data: v });
    });
  }
  out.nodes = keep;
  return out;
}
