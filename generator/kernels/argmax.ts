import { typeNames } from './common.js';
import type { KernelDef } from './types.js';
import { rowAccepts, rowsOf } from './words.js';

/*
 * ArgMax over the last axis (reference/ops/argmax.ts): per row the first index of the largest entry. A decoder's
 * next token (the quantizer appends it to a step graph): the cores choose it, the host only reads one word.
 */
export const argMaxKernel: KernelDef = {
  name: 'argmax',
  template: 'argmax',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['ArgMax'], 'an ArgMax'),
  view({ node, graph, platform }) {
    const { x, L, rows } = rowsOf(node, graph);
    const y = graph.tensors.get(node.outputs[0])!;
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      // The loop over a row's entries, declared to the emulator's memory model (docs/firmware-abi.md "Memory
      // streams"): a load an entry, one compare-and-select (POOL_TAP) apart; the logits often stay in L2 (an untiled
      // layer), whose latency each load then waits for, as the C's does. (Without a platform: a caller that only
      // checks the view's ranges.)
      params: { rows, L, x: typeNames(x.dtype), y: typeNames(y.dtype), period: platform ? Math.max(1, Math.ceil(platform.costs.POOL_TAP)) : 1 },
      macs: 0,
    };
  },
};
