import { broadcastStrides } from '../ir/broadcast.js';
import { isIntType } from '../ir/dtype.js';
import { tensorOf } from '../ir/graph.js';
import { stridesOf } from '../ir/ndarray.js';
import { valueRange } from './common.js';
import { renderPart } from './parts.js';
import type { KernelDef } from './types.js';

/** Any fused elementwise expression over broadcast operands (frontend/passes/fuse-elementwise.ts). */
export const elementwiseKernel: KernelDef = {
  name: 'elementwise',
  template: 'elementwise',
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'Elementwise' || !node.expr) return 'not an elementwise expression';
    const all = [...node.inputs, ...node.outputs].map((n) => tensorOf(g, n));
    const bad = all.find((t) => !isIntType(t.dtype));
    return bad ? `tensor '${bad.name}' is ${bad.dtype}, not an integer type` : null;
  },
  view({ node, graph, platform }) {
    const out = tensorOf(graph, node.outputs[0]);
    const leaves = node.inputs.map((n) => tensorOf(graph, n));
    const fields = leaves.map((_, k) => `in${k}`);
    const part = renderPart(
      {
        dims: out.shape,
        leaves: leaves.map((t, k) => ({ field: fields[k], dtype: t.dtype, strides: broadcastStrides(t.shape, out.shape), offset: 0, range: valueRange(t) })),
        out: { field: 'y', dtype: out.dtype, strides: stridesOf(out.shape), offset: 0 },
        expr: node.expr!,
      },
      { node: node.name, op: node.op },
      Math.ceil(platform.costs.ELEMENT),
    );
    return {
      args: [
        ...leaves.map((t, k) => ({ field: fields[k], tensor: t.name, dtype: t.dtype, write: false })),
        { field: 'y', tensor: out.name, dtype: out.dtype, write: true },
      ],
      params: { parts: [part], cost: 'ELEMENT' },
      macs: 0,
    };
  },
};
