import { attrInt } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * TableSoftmax (SEMANTICS.md section 1): the softmax of a QDQ model's 8-bit codes, per row of the last axis, with the
 * exponential read from a table indexed by the code difference and one exact division per entry:
 *   m = max(row); e_j = table[m - x_j]; S = Σ e_j; den = S·2^shift;
 *   out_j = clip(floor((e_j·mul + floor(den/2)) / den) + zero_point, lo, hi)
 * (frontend/passes/quantized/softmax.ts writes the table and the multiplier). S > 0 needs table[0] > 0 and no
 * negative entry; the products are 64-bit in the kernels (their bounds are checked there).
 */

export interface TableSoftmaxParams {
  mul: number;
  shift: number;
  zp: number;
  lo: number;
  hi: number;
}

/** One row: codes in, output codes out, exactly as the kernels compute them. */
export function tableSoftmaxRow(row: ArrayLike<number>, table: ArrayLike<number>, p: TableSoftmaxParams, out: { [j: number]: number }): void {
  let mx = -Infinity;
  for (let j = 0; j < row.length; j++) if (row[j] > mx) mx = row[j];
  let sum: X.Exact = 0;
  for (let j = 0; j < row.length; j++) sum = X.add(sum, table[mx - row[j]]);
  const den = X.mul(sum, 2 ** p.shift);
  const half = X.shr(den, 1);
  for (let j = 0; j < row.length; j++) {
    const q = X.floorDiv(X.add(X.mul(table[mx - row[j]], p.mul), half), den);
    out[j] = X.clipExact(X.add(q, p.zp), p.lo, p.hi);
  }
}

export function tableSoftmaxParams(node: Node): TableSoftmaxParams {
  return { mul: attrInt(node, 'mul'), shift: attrInt(node, 'shift'), zp: attrInt(node, 'zero_point'), lo: attrInt(node, 'lo'), hi: attrInt(node, 'hi') };
}

export const tableSoftmaxOp: OpSpec = {
  ops: ['TableSoftmax'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node) => [{ min: attrInt(node, 'lo'), max: attrInt(node, 'hi') }],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const table = need(node, inputs, 1, 'the table');
    if (isFloatType(x.dtype) || isFloatType(table.dtype)) throw modelError(node, 'TableSoftmax needs integer codes and an integer table');
    if (x.shape.length === 0) throw modelError(node, 'TableSoftmax needs an input of rank >= 1');
    const p = tableSoftmaxParams(node);
    if (p.mul <= 0 || p.shift < 0 || p.shift > 62 || p.lo > p.hi) throw modelError(node, `mul ${p.mul}, shift ${p.shift}, clip [${p.lo}, ${p.hi}]: mul > 0, 0 <= shift <= 62, lo <= hi`);
    if (table.data.length === 0 || !(table.data[0] > 0) || Array.from(table.data).some((v) => v < 0)) {
      throw modelError(node, 'the table needs a positive first entry and no negative one (the row sum must be positive)');
    }
    const L = x.shape[x.shape.length - 1];
    const out = intArray(x.shape);
    for (let r = 0; r * L < x.data.length; r++) {
      const row = x.data.subarray(r * L, (r + 1) * L);
      let lo = Infinity;
      let hi = -Infinity;
      for (const v of row) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
      if (hi - lo >= table.data.length) throw modelError(node, `a row spans ${hi - lo + 1} codes, beyond the table's ${table.data.length} entries`);
      tableSoftmaxRow(row, table.data, p, out.data.subarray(r * L, (r + 1) * L));
    }
    return [out];
  },
};
