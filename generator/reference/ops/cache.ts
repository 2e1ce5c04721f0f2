import { attrInt, attrNumber, hasAttr } from '../../ir/attrs.js';
import { stridesOf } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import { isFloatType, lastDim, modelError, need, rangeOfInfo, type OpSpec } from '../op-spec.js';

/*
 * The two ops of a decoder's key/value caches with a fixed capacity (quantize/stateful.ts makes them from the
 * exporter's growing Concat(past, new)):
 *   CacheWrite(cache, value, pos; axis): the cache with rows pos .. pos+n-1 along `axis` replaced by value's n rows.
 *     Firmware writes those rows in place (the output shares the cache's buffer), so a step moves one row, never the
 *     cache.
 *   PositionMask(x, pos; fill): x with the entries of the last axis at index > pos replaced by `fill` (-inf for a
 *     float model, the bottom of the integer range for an integer one): attention over the rows written so far.
 * pos is a one-element integer tensor. A position outside the cache is a model error (a run past the context).
 */

function position(node: Parameters<OpSpec['evaluate']>[0], pos: { data: Float64Array } | undefined, limit: number): number {
  if (!pos || pos.data.length !== 1) throw modelError(node, 'pos must hold one integer');
  const p = pos.data[0];
  if (!Number.isInteger(p) || p < 0 || p >= limit) throw modelError(node, `position ${p} lies outside [0, ${limit})`);
  return p;
}

/** The value's rows must match the cache's shape on every axis but `axis` (checked at load, not only when run). */
function checkFits(node: Parameters<OpSpec['evaluate']>[0], cache: readonly number[], value: readonly number[], axis: number): void {
  if (value.length !== cache.length || value.some((d, i) => i !== axis && d !== cache[i]) || value[axis] > cache[axis]) {
    throw modelError(node, `value [${value.join(', ')}] does not fit cache [${cache.join(', ')}] along axis ${axis}`);
  }
}

export const cacheWriteOp: OpSpec = {
  ops: ['CacheWrite'],
  shape: (node, inputs) => {
    const cache = need(node, inputs, 0).shape;
    const value = inputs[1]?.shape;
    if (value) checkFits(node, cache, value, normAxis(attrInt(node, 'axis'), cache.length));
    return [[...cache]];
  },
  // An integer cache's result holds its values and the value's: its type follows that range (undefined: the
  // narrowest type), not the cache's, which a constant cache has narrowed to its own values (a fuzz mutation, seed
  // 4404: an int16 cache of 0/1 became int8 and a uint8 value of 255 was stored in it).
  dtype: (node, inputs) => [isFloatType(need(node, inputs, 0).dtype) ? 'float32' : undefined],
  positions: (node, inputs) => {
    const cache = need(node, inputs, 0).shape;
    const axis = normAxis(attrInt(node, 'axis'), cache.length);
    return [{ operand: 2, limit: cache[axis] - (inputs[1]?.shape[axis] ?? 1) + 1 }];
  },
  range: (_node, inputs) => {
    const a = rangeOfInfo(inputs[0]);
    const b = rangeOfInfo(inputs[1]);
    return [{ min: Math.min(a.min, b.min), max: Math.max(a.max, b.max) }];
  },
  evaluate(node, inputs) {
    const cache = need(node, inputs, 0);
    const value = need(node, inputs, 1, 'value');
    const axis = normAxis(attrInt(node, 'axis'), cache.shape.length);
    const n = value.shape[axis];
    checkFits(node, cache.shape, value.shape, axis);
    const p = position(node, inputs[2], cache.shape[axis] - n + 1);
    const out = { dtype: cache.dtype, shape: [...cache.shape], data: cache.data.slice() };
    const cs = stridesOf(cache.shape);
    const vs = stridesOf(value.shape);
    for (let i = 0; i < value.data.length; i++) {
      let rest = i;
      let off = 0;
      for (let d = 0; d < vs.length; d++) {
        const k = Math.floor(rest / vs[d]);
        rest -= k * vs[d];
        off += (d === axis ? k + p : k) * cs[d];
      }
      out.data[off] = value.data[i];
    }
    return [out];
  },
};

export const positionMaskOp: OpSpec = {
  ops: ['PositionMask'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  positions: (node, inputs) => [{ operand: 1, limit: lastDim(need(node, inputs, 0).shape) }],
  dtype: (node, inputs) => [isFloatType(need(node, inputs, 0).dtype) ? 'float32' : need(node, inputs, 0).dtype],
  range: (node, inputs) => {
    const r = rangeOfInfo(inputs[0]);
    const fill = hasAttr(node, 'fill') ? attrNumber(node, 'fill') : r.min;
    return [{ min: Math.min(r.min, fill), max: r.max }];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const L = x.shape[x.shape.length - 1];
    const p = position(node, inputs[1], L);
    const fill = hasAttr(node, 'fill') ? attrNumber(node, 'fill') : -Infinity;
    const out = { dtype: x.dtype, shape: [...x.shape], data: x.data.slice() };
    for (let r = 0; r < out.data.length; r += L) for (let j = p + 1; j < L; j++) out.data[r + j] = fill;
    return [out];
  },
};
