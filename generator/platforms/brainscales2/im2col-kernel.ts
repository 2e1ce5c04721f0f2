import { tensorOf } from '../../ir/graph.js';
import { typeNames } from '../../kernels/common.js';
import type { KernelDef } from '../../kernels/types.js';
import { unfoldOf } from '../../reference/ops/im2col.js';

/**
 * 'Im2col' (lower-analog.ts, a convolution unfolded for the arrays) on the digital core: one element moved per output
 * element, charged as MOVE_ELEM (the generic core's data-movement cost, docs/timing.md), zeros where the window
 * leaves the input. Semantics: generator/reference/ops/im2col.ts.
 */
export const im2colKernel: KernelDef = {
  name: 'im2col',
  template: 'bss2-im2col',
  engine: 'cores',
  accepts(node) {
    return node.op === 'Im2col' && node.domain === 'firmgen' ? null : 'not an Im2col';
  },
  view({ node, graph }) {
    const x = tensorOf(graph, node.inputs[0]);
    const y = tensorOf(graph, node.outputs[0]);
    const u = unfoldOf(node, x.shape);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: { ...u, COLS: u.C * u.KH * u.KW, total: u.N * u.OH * u.OW * u.C * u.KH * u.KW, x: typeNames(x.dtype), y: typeNames(y.dtype) },
      macs: 0,
    };
  },
};
