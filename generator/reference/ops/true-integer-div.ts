import { attrNumber } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { ndarray, type NDArray } from '../../ir/ndarray.js';
import { roundHalfEven } from '../exact.js';
import { need, type OpSpec } from '../op-spec.js';

/*
 * TrueIntegerDiv has no kernel of its own (SEMANTICS.md section 1): it divides by a constant y, and the division is
 * folded into the RequantShift that reads its output. Its own output is x unchanged, which is what a consumer other
 * than a RequantShift sees (as in spec/deeploy_ref.py).
 */

export interface TrueIntegerDivParams {
  Delta: number;
  eps: number;
  eta: number;
  y: number;
}

export function trueIntegerDivParams(node: Node): TrueIntegerDivParams {
  return {
    Delta: attrNumber(node, 'Delta'),
    eps: attrNumber(node, 'eps'),
    eta: attrNumber(node, 'eta'),
    y: attrNumber(node, 'y'),
  };
}

/** coeff = floor(Delta*eta / (y*eta + eps)) * 256, in float64 as the spec computes it. */
export function trueIntegerDivCoeff(p: TrueIntegerDivParams): number {
  return Math.floor((p.Delta * p.eta) / (p.y * p.eta + p.eps)) * 256;
}

/**
 * The requant parameters of a RequantShift that follows a TrueIntegerDiv: mul' = round(mul*coeff) (half to even,
 * as numpy.round), div' = div*256. A lowering pass that removes the TrueIntegerDiv node uses exactly this.
 */
export function foldTrueIntegerDiv(p: TrueIntegerDivParams, mul: number, div: number): { mul: number; div: number } {
  return { mul: roundHalfEven(mul * trueIntegerDivCoeff(p)), div: div * 256 };
}

/** The RequantShift node and mul array to evaluate in place of `rqs` when its input comes from `tid`. */
export function foldIntoRequant(rqs: Node, tid: Node, mul: NDArray): { node: Node; mul: NDArray } {
  const p = trueIntegerDivParams(tid);
  const div = attrNumber(rqs, 'div');
  const folded = ndarray(mul.dtype, mul.shape, Array.from(mul.data, (m) => foldTrueIntegerDiv(p, m, div).mul));
  const node: Node = { ...rqs, attrs: { ...rqs.attrs, div: { kind: 'float', value: div * 256 } } };
  return { node, mul: folded };
}

export const trueIntegerDivOp: OpSpec = {
  ops: ['TrueIntegerDiv'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node, inputs) => [need(node, inputs, 0).range ?? { min: -(2 ** 31), max: 2 ** 31 - 1 }],
  evaluate: (node, inputs) => [need(node, inputs, 0)],
};
