import { attrLog2, attrNumber, hasAttr } from '../../ir/attrs.js';
import type { IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import { broadcastAll, broadcastIndex, describeShapes } from '../broadcast.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/** The clip range of n_levels/signed (SEMANTICS.md section 1). */
export function levelsRange(nLevels: number, signed: boolean): IntRange {
  return signed ? { min: -Math.floor(nLevels / 2), max: Math.floor(nLevels / 2) - 1 } : { min: 0, max: nLevels - 1 };
}

export function requantParams(node: Node): { shift: number; range: IntRange } {
  const n = hasAttr(node, 'n_levels') ? attrNumber(node, 'n_levels') : attrNumber(node, 'n_levels_out');
  return { shift: attrLog2(node, 'div'), range: levelsRange(n, attrNumber(node, 'signed') !== 0) };
}

/**
 * Per-channel parameters stored as (C,1,...,1) with the rank of x are meant for axis 1; numpy broadcasting would
 * align them with axis 0, so they are viewed as (1,C,1,...) first (what spec/deeploy_ref.py does).
 */
export function channelShape(param: readonly number[], x: readonly number[]): number[] {
  const c = param[0];
  if (param.length === x.length && param.length >= 2 && c === x[1] && c > 1 && param.slice(1).every((d) => d === 1)) {
    return [1, c, ...param.slice(2)];
  }
  return [...param];
}

const LIMIT = 2 ** 53;

/** clip((x*mul + add + 2^(s-1)) >> s): exact for any integers (BigInt only when the product needs it). */
export function requantShift(x: number, mul: number, add: number, shift: number, range: IntRange): number {
  const round = shift > 0 ? 2 ** (shift - 1) : 0;
  const p = x * mul;
  const t = p + add + round;
  let v: number;
  if (Math.abs(p) < LIMIT && Math.abs(t) < LIMIT) v = Math.floor(t / 2 ** shift);
  else v = X.toNumber(X.shr(X.add(X.add(X.mul(x, mul), add), round), shift));
  return v < range.min ? range.min : v > range.max ? range.max : v;
}

/** RequantShift on arrays, with mul/add as stored (the TrueIntegerDiv fold passes modified ones). */
export function evaluateRequant(node: Node, x: NDArray, mulA: NDArray, addA: NDArray, shift: number, range: IntRange): NDArray {
  if (isFloatType(x.dtype)) throw modelError(node, 'RequantShift needs an integer input');
  const mulShape = channelShape(mulA.shape, x.shape);
  const addShape = channelShape(addA.shape, x.shape);
  const shape = broadcastAll([x.shape, mulShape, addShape]);
  if (!shape) throw modelError(node, `cannot broadcast ${describeShapes([x.shape, mulShape, addShape])}`);
  const xm = broadcastIndex(x.shape, shape);
  const mm = broadcastIndex(mulShape, shape);
  const am = broadcastIndex(addShape, shape);
  const out = intArray(shape);
  const o = out.data;
  // The spec casts mul and add to int64, which truncates.
  const muls = mulA.data.map(Math.trunc);
  const adds = addA.data.map(Math.trunc);
  for (let i = 0; i < o.length; i++) o[i] = requantShift(x.data[xm[i]], muls[mm[i]], adds[am[i]], shift, range);
  return out;
}

export const requantShiftOp: OpSpec = {
  ops: ['RequantShift'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    const m = channelShape(need(node, inputs, 1).shape, x);
    const a = channelShape(need(node, inputs, 2).shape, x);
    const s = broadcastAll([x, m, a]);
    if (!s) throw modelError(node, `cannot broadcast ${describeShapes([x, m, a])}`);
    return [s];
  },
  range(node) {
    return [requantParams(node).range];
  },
  evaluate(node, inputs) {
    const { shift, range } = requantParams(node);
    return [evaluateRequant(node, need(node, inputs, 0), need(node, inputs, 1), need(node, inputs, 2), shift, range)];
  },
};
