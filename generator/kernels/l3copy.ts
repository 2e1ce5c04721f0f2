import { bytesOf } from '../ir/dtype.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { L3_LOAD, L3_OPS } from '../midend/l3.js';
import type { KernelDef } from './types.js';

/**
 * A tensor's whole bytes between its L3 home and an L2 buffer (midend/l3.ts): one blocking HyperRAM DMA copy the
 * fabric controller issues between layers (runtime/as/l3.ts, hal_l3_read/hal_l3_write). No closure: the network
 * skeleton calls the HAL directly.
 */
export const l3CopyKernel: KernelDef = {
  name: 'l3copy',
  template: 'l3copy',
  engine: 'l3dma',
  accepts(node) {
    return L3_OPS.has(node.op) ? null : 'not an L3 copy';
  },
  view({ node, graph }) {
    const from = tensorOf(graph, node.inputs[0]);
    const to = tensorOf(graph, node.outputs[0]);
    const load = node.op === L3_LOAD;
    return {
      args: [
        { field: 'src', tensor: from.name, dtype: from.dtype, write: false },
        { field: 'dst', tensor: to.name, dtype: to.dtype, write: true },
      ],
      params: { bytes: sizeOf(to.shape) * bytesOf(to.dtype), load },
      macs: 0,
    };
  },
};
