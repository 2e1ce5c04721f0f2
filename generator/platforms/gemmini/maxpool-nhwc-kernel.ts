import type { IntType } from '../../ir/dtype.js';
import { tensorOf } from '../../ir/graph.js';
import { typeNames } from '../../kernels/common.js';
import { lowestLiteral, maxPoolWindow } from '../../kernels/pool.js';
import type { KernelDef } from '../../kernels/types.js';

/**
 * 'GemminiMaxPoolNhwc' (keep-nhwc.ts): a 2-D MaxPool on an NHWC tensor between array convolutions, on the host core,
 * with the shared MaxPool's semantics (pads, strides, dilations; only positions inside the input compared) and cost
 * (every output compares its whole window: ELEMENT per window position, as kernels/pool.ts's template charges).
 */
export const gemminiMaxPoolNhwcKernel: KernelDef = {
  name: 'maxpool-nhwc',
  template: 'gemmini-maxpool-nhwc',
  engine: 'cores',
  accepts(node) {
    return node.op === 'GemminiMaxPoolNhwc' && node.domain === 'firmgen' ? null : 'not a GemminiMaxPoolNhwc';
  },
  view({ node, graph }) {
    const x = tensorOf(graph, node.inputs[0]);
    const y = tensorOf(graph, node.outputs[0]);
    const [N, H, W, C] = x.shape;
    const [, HO, WO] = y.shape;
    const win = maxPoolWindow(node, 2, H, W, HO, WO);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        N, C, H, W, HO, WO, ...win,
        lowest: lowestLiteral(x.dtype as IntType),
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
