import { attrInt } from '../ir/attrs.js';
import { bytesOf } from '../ir/dtype.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { L3_CACHE_ATTR, L3_LOAD, L3_OPS } from '../midend/l3.js';
import { cacheWriteShape } from './cache.js';
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
    const bytes = sizeOf(to.shape) * bytesOf(to.dtype);
    const args = [
      { field: 'src', tensor: from.name, dtype: from.dtype, write: false },
      { field: 'dst', tensor: to.name, dtype: to.dtype, write: true },
    ];
    if (!node.inputs[1]) return { args, params: { bytes, load }, macs: 0 };
    // A cache whose reader stops at the position (midend/l3.ts): rows 0..pos of each outer index, one copy each.
    const p = tensorOf(graph, node.inputs[1]);
    const axis = attrInt(node, 'axis');
    const row = sizeOf(from.shape.slice(axis + 1)) * bytesOf(from.dtype);
    return {
      args: [...args, { field: 'p', tensor: p.name, dtype: p.dtype, write: false }],
      params: { bytes, load, rows: { outer: sizeOf(from.shape.slice(0, axis)), rowBytes: row, stride: from.shape[axis] * row, extent: from.shape[axis] } },
      macs: 0,
    };
  },
};

/**
 * A CacheWrite whose cache is at home in L3 (midend/l3.ts): the value's rows go from L2 straight to rows pos.. of the
 * cache, one HyperRAM DMA write per outer index (a contiguous run of n rows), in place; nothing else of the cache
 * moves. pos is read from its L2 tensor at run time and clamped into the cache, as kernels/cache.ts does. No closure:
 * the skeleton calls the HAL.
 */
export const l3CacheWriteKernel: KernelDef = {
  name: 'l3-cache-write',
  template: 'l3copy',
  engine: 'l3dma',
  inPlace: true,
  accepts(node, g) {
    if (node.op !== 'CacheWrite' || !node.attrs[L3_CACHE_ATTR]) return 'not a CacheWrite of a cache in L3';
    const c = tensorOf(g, node.inputs[0]);
    if (tensorOf(g, node.inputs[1]).dtype !== c.dtype) return 'its rows are of another type than its cache';
    return null;
  },
  view({ node, graph }) {
    const { c, v, p, y, axis, inner } = cacheWriteShape(node, graph);
    const eb = bytesOf(c.dtype);
    const n = v.shape[axis];
    return {
      args: [
        { field: 'x', tensor: c.name, dtype: c.dtype, write: false },
        { field: 'v', tensor: v.name, dtype: v.dtype, write: false },
        { field: 'p', tensor: p.name, dtype: p.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        rows: {
          outer: sizeOf(c.shape.slice(0, axis)), run: n * inner * eb, rowBytes: inner * eb,
          stride: c.shape[axis] * inner * eb, last: c.shape[axis] - n,
        },
      },
      macs: 0,
    };
  },
};
