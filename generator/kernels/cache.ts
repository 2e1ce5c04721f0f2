import type { DType } from '../ir/dtype.js';
import { attrInt, attrNumber } from '../ir/attrs.js';
import { tensorOf, type Graph, type Node } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { L3_CACHE_ATTR } from '../midend/l3.js';
import { typeNames } from './common.js';
import type { KernelDef } from './types.js';
import { deviceTypesReason, rowsOf } from './words.js';

/*
 * The caches of a decoder step (quantize/stateful.ts, reference/ops/cache.ts):
 *   CacheWrite(cache, value, pos): in place, the value's n rows go to rows pos.. of the cache along the axis, one
 *     contiguous run of n*inner elements per outer index; a step moves those rows and nothing else.
 *   PositionMask(x, pos; fill): per row of the last axis, entries past pos become fill.
 * pos is read at run time from its one-element tensor, clamped into the cache (the reference refuses a position
 * outside it: a generation past the context).
 */

export const cacheWriteKernel: KernelDef = {
  name: 'cache-write',
  template: 'cache-write',
  engine: 'cores',
  inPlace: true,
  accepts(node, g) {
    if (node.op !== 'CacheWrite') return 'not a CacheWrite';
    if (node.attrs[L3_CACHE_ATTR]) return 'its cache is in L3 (an L3 cache write)';
    const rank = tensorOf(g, node.inputs[0]).shape.length;
    const axis = attrInt(node, 'axis');
    if (axis < -rank || axis >= rank) return `axis ${axis} lies outside the cache's rank ${rank}`;
    return deviceTypesReason(g, [...node.inputs, ...node.outputs]);
  },
  view({ node, graph }) {
    const { c, v, p, y, axis, inner } = cacheWriteShape(node, graph);
    // The templates' loops move `move`'s units: int32 words where every run starts on a word (buffers are
    // word-aligned: runs and row strides whole words) and the value and cache share their type (a decoder step's key
    // row of 4 int8 is one load and one store, where the byte loop's indexing cost ~10 cycles a byte on the ISS), else
    // elements of each operand's own type.
    const shift = typeNames(y.dtype).shift;
    const run = v.shape[axis] * inner;
    const copied = c.shape[axis] * inner;
    const words = v.dtype === y.dtype && c.dtype === y.dtype && ((inner << shift) & 3) === 0 && ((run << shift) & 3) === 0;
    const unit = (t: DType) => (words ? { c: 'fg_word_t', as: 'i32', shift: 2 } : typeNames(t));
    const move = {
      what: words ? 'a word' : 'an element', x: unit(c.dtype), v: unit(v.dtype), y: unit(y.dtype),
      run: words ? (run << shift) >> 2 : run, copy: words ? (copied << shift) >> 2 : copied,
    };
    return {
      args: [
        { field: 'x', tensor: c.name, dtype: c.dtype, write: false },
        { field: 'v', tensor: v.name, dtype: v.dtype, write: false },
        { field: 'p', tensor: p.name, dtype: p.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        outer: sizeOf(c.shape.slice(0, axis)), rows: c.shape[axis], n: v.shape[axis], inner, run, move,
        total: sizeOf(c.shape), last: c.shape[axis] - v.shape[axis],
        x: typeNames(c.dtype), v: typeNames(v.dtype), p: typeNames(p.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};

/** A CacheWrite's tensors and the axis and row size its rows run along. */
export function cacheWriteShape(node: Node, graph: Graph) {
  const c = tensorOf(graph, node.inputs[0]);
  const v = tensorOf(graph, node.inputs[1]);
  const p = tensorOf(graph, node.inputs[2]);
  const y = tensorOf(graph, node.outputs[0]);
  // A negative axis counts from the end (ONNX; the reference's normAxis): a fuzz finding, the view read shape[-1].
  const a0 = attrInt(node, 'axis');
  const axis = a0 < 0 ? a0 + c.shape.length : a0;
  return { c, v, p, y, axis, inner: sizeOf(c.shape.slice(axis + 1)) };
}

export const positionMaskKernel: KernelDef = {
  name: 'position-mask',
  template: 'position-mask',
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'PositionMask') return 'not a PositionMask';
    return deviceTypesReason(g, [...node.inputs, ...node.outputs]);
  },
  view({ node, graph }) {
    const { x, y, L, rows } = rowsOf(node, graph);
    const p = tensorOf(graph, node.inputs[1]);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'p', tensor: p.name, dtype: p.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: { rows, L, fill: attrNumber(node, 'fill'), x: typeNames(x.dtype), p: typeNames(p.dtype), y: typeNames(y.dtype) },
      macs: 0,
    };
  },
};
