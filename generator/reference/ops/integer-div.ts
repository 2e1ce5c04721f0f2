import { attrInt } from '../../ir/attrs.js';
import { broadcastIndex, broadcastShapes, describeShapes } from '../broadcast.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * IntegerDiv (SEMANTICS.md section 1): den = eta*B + eps, nom = Delta*eta*A, out = tdiv(nom + sign(nom)*(den>>1), den)
 * with sign(0) = +1. Delta*eta*A easily passes 2^53, hence the exact helpers. The result range is unknowable
 * from ranges alone (B may come close to zero), so it stays int32.
 */

export function integerDiv(a: number, b: number, delta: number, eps: number, eta: number): X.Exact {
  const den = X.add(X.mul(eta, b), eps);
  const nom = X.mul(X.mul(delta, eta), a);
  const sgn = X.sign(nom) >= 0 ? 1 : -1;
  return X.tdiv(X.add(nom, X.mul(sgn, X.shr(den, 1))), den);
}

export const integerDivOp: OpSpec = {
  ops: ['IntegerDiv'],
  shape(node, inputs) {
    const a = need(node, inputs, 0).shape;
    const b = need(node, inputs, 1).shape;
    const s = broadcastShapes(a, b);
    if (!s) throw modelError(node, `cannot broadcast ${describeShapes([a, b])}`);
    return [s];
  },
  evaluate(node, inputs) {
    const a = need(node, inputs, 0);
    const b = need(node, inputs, 1);
    if (isFloatType(a.dtype) || isFloatType(b.dtype)) throw modelError(node, 'IntegerDiv needs integer inputs');
    const shape = broadcastShapes(a.shape, b.shape);
    if (!shape) throw modelError(node, `cannot broadcast ${describeShapes([a.shape, b.shape])}`);
    const [delta, eps, eta] = ['Delta', 'eps', 'eta'].map((k) => attrInt(node, k));
    const am = broadcastIndex(a.shape, shape);
    const bm = broadcastIndex(b.shape, shape);
    const out = intArray(shape);
    for (let i = 0; i < out.data.length; i++) {
      out.data[i] = X.toNumber(integerDiv(a.data[am[i]], b.data[bm[i]], delta, eps, eta));
    }
    return [out];
  },
};
