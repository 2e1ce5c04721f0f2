import { attrInt } from '../../ir/attrs.js';
import type { IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, mulRange, need, rangeOfInfo, type OpSpec } from '../op-spec.js';

/* Integer activations with int32 results (SEMANTICS.md section 1): iGELU and iHardswish. */

function map(node: Node, x: NDArray, fn: (v: number) => X.Exact): NDArray {
  if (isFloatType(x.dtype)) throw modelError(node, `${node.op} needs an integer input`);
  const out = intArray(x.shape);
  for (let i = 0; i < x.data.length; i++) out.data[i] = X.toNumber(fn(x.data[i]));
  return out;
}

/** y = x * ((one + L) >> 1), L = sign(x) * (one - (min(|x|, -b) + b)^2). */
export function iGelu(v: number, b: number, one: number): X.Exact {
  const s = Math.sign(v);
  const q = Math.min(Math.abs(v), -b);
  const d = q + b;
  const L = X.mul(s, X.sub(one, X.mul(d, d)));
  return X.mul(v, X.shr(X.add(one, L), 1));
}

/** y = x * (clip(x + three, 0, six) * one_over_six). */
export function iHardswish(v: number, oneOverSix: number, three: number, six: number): X.Exact {
  return X.mul(v, X.mul(X.clip(v + three, 0, six), oneOverSix));
}

export const iGeluOp: OpSpec = {
  ops: ['iGELU'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range(node, inputs) {
    const b = attrInt(node, 'b');
    const one = attrInt(node, 'one');
    // |L| <= max(|one|, |one - b^2|), so the factor (one + L) >> 1 lies in this interval.
    const lm = Math.max(Math.abs(one), Math.abs(one - b * b));
    const f: IntRange = { min: Math.floor((one - lm) / 2), max: Math.floor((one + lm) / 2) };
    return [mulRange(rangeOfInfo(inputs[0]), f)];
  },
  evaluate(node, inputs) {
    const b = attrInt(node, 'b');
    const one = attrInt(node, 'one');
    return [map(node, need(node, inputs, 0), (v) => iGelu(v, b, one))];
  },
};

export const iHardswishOp: OpSpec = {
  ops: ['iHardswish'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range(node, inputs) {
    const [k, three, six] = ['one_over_six', 'three', 'six'].map((a) => attrInt(node, a));
    const x = rangeOfInfo(inputs[0]);
    const t = [X.clip(x.min + three, 0, six) * k, X.clip(x.max + three, 0, six) * k];
    return [mulRange(x, { min: Math.min(...t, 0), max: Math.max(...t, 0) })];
  },
  evaluate(node, inputs) {
    const [k, three, six] = ['one_over_six', 'three', 'six'].map((a) => attrInt(node, a));
    return [map(node, need(node, inputs, 0), (v) => iHardswish(v, k, three, six))];
  },
};
