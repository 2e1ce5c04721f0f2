import { attrInt, attrNumber } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import * as X from '../exact.js';
import { intArray, isFloatType, lastDim, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * Integer softmax approximations, per row of the last axis (SEMANTICS.md section 1). All three produce unsigned
 * probabilities: iSoftmax and ITAMax in [0, n_levels-1], ITAPartialMax in [0, n_levels/2-1].
 */

function rows(node: Node, x: NDArray, fn: (row: Float64Array, out: Float64Array) => void): NDArray {
  if (isFloatType(x.dtype)) throw modelError(node, `${node.op} needs an integer input`);
  if (x.shape.length === 0) throw modelError(node, `${node.op} needs an input of rank >= 1`);
  const L = x.shape[x.shape.length - 1];
  const out = intArray(x.shape);
  for (let r = 0; r * L < x.data.length; r++) fn(x.data.subarray(r * L, (r + 1) * L), out.data.subarray(r * L, (r + 1) * L));
  return out;
}

function rowMax(row: Float64Array): number {
  let m = -Infinity;
  for (const v of row) if (v > m) m = v;
  return m;
}

export const iSoftmaxOp: OpSpec = {
  ops: ['iSoftmax'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  positions: (node, inputs) => (inputs[1] ? [{ operand: 1, limit: lastDim(need(node, inputs, 0).shape) }] : []),
  range: (node) => [{ min: 0, max: attrInt(node, 'n_levels') - 1 }],
  evaluate(node, inputs) {
    const [a, b, c, log2, n] = ['coeffA', 'coeffB', 'coeffC', 'log2', 'n_levels'].map((k) => attrInt(node, k));
    // An optional position operand (a decoder's cache): only entries 0..pos of a row take part, the rest are 0.
    const pos = inputs[1];
    const x = need(node, inputs, 0);
    const L = x.shape[x.shape.length - 1];
    const len = pos ? Math.min(Math.max(pos.data[0] + 1, 1), L) : L;
    if (pos && (pos.data.length !== 1 || !(pos.data[0] >= 0 && pos.data[0] < L))) throw modelError(node, `position ${pos.data[0]} lies outside [0, ${L})`);
    return [rows(node, x, (full, out) => {
      const row = full.subarray(0, len);
      const mx = rowMax(row);
      const e: X.Exact[] = [];
      let sum: X.Exact = 0;
      for (const v of row) {
        const xt = v - mx;
        const z = X.clip(-X.toNumber(X.tdiv(xt, log2)), 0, 31);
        const p = xt + z * log2;
        const ev = X.shr(X.add(X.mul(a, X.mul(p + b, p + b)), c), z);
        e.push(ev);
        sum = X.add(sum, ev);
      }
      e.forEach((ev, j) => (out[j] = X.toNumber(X.floorDiv(X.mul(ev, n - 1), sum))));
    })];
  },
};

/** The exponent shift of ITA's softmax: (max - x + 16) >> 5. */
const itaShift = (mx: number, v: number): number => Math.floor((mx - v + 16) / 32);

export const itaMaxOp: OpSpec = {
  ops: ['ITAMax'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node) => [{ min: 0, max: attrInt(node, 'n_levels') - 1 }],
  evaluate(node, inputs) {
    const n = attrInt(node, 'n_levels');
    return [rows(node, need(node, inputs, 0), (row, out) => {
      const mx = rowMax(row);
      let s = 0;
      for (const v of row) s += X.toNumber(X.shr(256, Math.min(itaShift(mx, v), 63)));
      const inv = X.toNumber(X.floorDiv((n - 1) * 256, s));
      row.forEach((v, j) => (out[j] = X.toNumber(X.shr(inv, itaShift(mx, v)))));
    })];
  },
};

export const itaPartialMaxOp: OpSpec = {
  ops: ['ITAPartialMax'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node) => [{ min: 0, max: Math.floor(attrNumber(node, 'n_levels') / 2) - 1 }],
  evaluate(node, inputs) {
    const n = attrInt(node, 'n_levels');
    const gw = attrInt(node, 'group_width');
    if (gw <= 0) throw modelError(node, 'group_width must be positive');
    return [rows(node, need(node, inputs, 0), (row, out) => {
      // Streaming form: a running max g and a running sum S rescaled whenever g grows. Columns past the last full
      // group take no part in the sum (as in the spec).
      let g = -128;
      let s = 0;
      for (let k = 0; k + gw <= row.length; k += gw) {
        const group = row.subarray(k, k + gw);
        const m = rowMax(group);
        if (m > g) {
          s = X.toNumber(X.shr(s, itaShift(m, g)));
          g = m;
        }
        for (const v of group) s += X.toNumber(X.shr(256, itaShift(g, v)));
      }
      const inv = X.toNumber(X.floorDiv((Math.floor(n / 2) - 1) * 256, s));
      row.forEach((v, j) => (out[j] = X.toNumber(X.shr(inv, itaShift(g, v)))));
    })];
  },
};
