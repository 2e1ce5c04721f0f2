import { GenError } from '../../errors.js';
import { attrInts } from '../../ir/attrs.js';
import { rangeOf, type IntType } from '../../ir/dtype.js';
import { tensorOf } from '../../ir/graph.js';
import { typeNames } from '../../kernels/common.js';
import { everyWindowInside } from '../../kernels/pool.js';
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
    const site = { node: node.name, op: node.op };
    const x = tensorOf(graph, node.inputs[0]);
    const y = tensorOf(graph, node.outputs[0]);
    const [N, H, W, C] = x.shape;
    const [, HO, WO] = y.shape;
    const [KH, KW] = attrInts(node, 'kernel_shape');
    const [SY, SX] = attrInts(node, 'strides', [1, 1]);
    const [DY, DX] = attrInts(node, 'dilations', [1, 1]);
    const [PT, PL] = attrInts(node, 'pads', [0, 0, 0, 0]);
    if (!everyWindowInside(HO, H, KH, SY, PT, DY) || !everyWindowInside(WO, W, KW, SX, PL, DX)) {
      throw new GenError('unsupported', 'a pooling window lies entirely in the padding (its maximum is undefined)', site);
    }
    const lowest = rangeOf(x.dtype as IntType).min;
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        N, C, H, W, HO, WO, KH, KW, SY, SX, DY, DX, PT, PL,
        lowest: lowest === -2147483648 ? '(-2147483647 - 1)' : `(${lowest})`,
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
