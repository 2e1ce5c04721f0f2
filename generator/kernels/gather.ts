import { attrInt } from '../ir/attrs.js';
import { bytesOf } from '../ir/dtype.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { typeNames } from './common.js';
import { cDivide } from './divide.js';
import type { KernelDef } from './types.js';
import { deviceTypesReason } from './words.js';

/*
 * Gather with indices known only at run time: an embedding lookup by token ids, a 256-entry table read with int8
 * codes (the quantizer's Sigmoid/SiLU/Tanh tables). y[o, j, :] = x[o, idx[j], :]; a negative index counts from the
 * end of the axis (ONNX). Each core copies a contiguous range of rows. An index outside [-dim, dim) has no meaning;
 * the firmware clamps it into the axis so a bad token id cannot read outside the table (the reference refuses it).
 * A table read by 8-bit codes whose every value indexes the axis (int8 codes into at least 128 entries, uint8 into at
 * least 256; one element a code, one set of indices) is the `lookup` path: no clamp, no division, a negative code
 * wrapped by its sign's mask (LOOKUP per entry).
 */
export const gatherKernel: KernelDef = {
  name: 'gather',
  template: 'gather',
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'Gather') return 'not a Gather';
    if (tensorOf(g, node.inputs[1]).data) return 'constant indices (a copy)';
    return deviceTypesReason(g, [...node.inputs, ...node.outputs]);
  },
  view({ node, graph }) {
    const x = tensorOf(graph, node.inputs[0]);
    const i = tensorOf(graph, node.inputs[1]);
    const y = tensorOf(graph, node.outputs[0]);
    const rank = x.shape.length;
    const a0 = attrInt(node, 'axis', 0);
    const axis = a0 < 0 ? a0 + rank : a0;
    const n = sizeOf(i.shape);
    const rows = sizeOf(x.shape.slice(0, axis)) * n;
    const inner = sizeOf(x.shape.slice(axis + 1));
    const dim = x.shape[axis];
    const everyCode = (i.dtype === 'int8' && dim >= 128) || (i.dtype === 'uint8' && dim >= 256);
    const lookup = inner === 1 && rows === n && everyCode ? { wrap: i.dtype === 'int8' } : false;
    // Rows of whole words move as words (the table and the output start on words, as every buffer does: midend/plan.ts):
    // a quarter of the loads and stores, each from L2 ~20 cycles on a cluster core (an embedding table stays in L2).
    const rowBytes = inner * bytesOf(x.dtype);
    const words = !lookup && x.dtype === y.dtype && rowBytes % 4 === 0 ? { perRow: rowBytes / 4 } : false;
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'i', tensor: i.name, dtype: i.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        rows, n, dim, inner, lookup, words, rowOuter: cDivide('r', n, rows),
        x: typeNames(x.dtype), i: typeNames(i.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
