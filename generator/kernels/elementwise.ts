import { broadcastStrides } from '../ir/broadcast.js';
import { isIntType } from '../ir/dtype.js';
import { tensorOf, type Expr } from '../ir/graph.js';
import { stridesOf } from '../ir/ndarray.js';
import { valueRange } from './common.js';
import { partNest, renderPart } from './parts.js';
import type { KernelDef } from './types.js';

/**
 * ELEM_OP units of one element of a fused expression (runtime/as/cost.ts): its operations (a clip, a shift, ...) and
 * its operands that vary over the loop (a load each; one that is the same for every element is loaded once).
 */
export function elementOps(e: Expr, leafStrides: readonly number[][]): number {
  const ops = (x: Expr): number => {
    switch (x.k) {
      case 'in': case 'const': return 0;
      case 'shr': return x.s === 0 ? ops(x.a) : 1 + ops(x.a);
      case 'clip': case 'abs': case 'sign': case 'signp': case 'wrap8': return 1 + ops(x.a);
      default: return 1 + ops(x.a) + ops(x.b);
    }
  };
  return ops(e) + leafStrides.filter((s) => s.some((v) => v !== 0)).length;
}

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
    const spec = {
      dims: out.shape,
      leaves: leaves.map((t, k) => ({ field: fields[k], dtype: t.dtype, strides: broadcastStrides(t.shape, out.shape), offset: 0, range: valueRange(t) })),
      out: { field: 'y', dtype: out.dtype, strides: stridesOf(out.shape), offset: 0 },
      expr: node.expr!,
    };
    const site = { node: node.name, op: node.op };
    // A leaf loads per element only where the inner loop moves along it: the C loads the others once per run.
    const ops = elementOps(node.expr!, partNest(spec, site).strides.slice(0, leaves.length).map((s) => [s[3]]));
    // Without XpulpV2's p.clip the C's clamp branches when it clips: the AS counts those (CLIP_TAKEN).
    const part = renderPart(spec, site, Math.ceil(platform.costs.ELEMENT + ops * platform.costs.ELEM_OP), !platform.image?.xpulp);
    return {
      args: [
        ...leaves.map((t, k) => ({ field: fields[k], tensor: t.name, dtype: t.dtype, write: false })),
        { field: 'y', tensor: out.name, dtype: out.dtype, write: true },
      ],
      params: { parts: [part], cost: 'ELEMENT', ops },
      macs: 0,
    };
  },
};
