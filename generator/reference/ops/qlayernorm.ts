import { attrInt } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import * as X from '../exact.js';
import { intArray, isFloatType, modelError, need, type OpSpec } from '../op-spec.js';

/*
 * QLayerNorm (docs/quantized-onnx.md): LayerNormalization of a QDQ model's 8-bit codes, per row of the last axis (N
 * entries), with a gain G and an offset B per column (int64 fixed point) and the attributes eps, frac, shift,
 * zero_point, lo, hi:
 *   S = Σx; c_j = N·x_j - S; V = Σ c_j² + eps; r = max(1, isqrt(V·4^frac)); den = r·2^shift
 *   out_j = clip(floor((G_j·c_j·2^frac + B_j·r + floor(den/2)) / den) + zero_point, lo, hi)
 * (frontend/passes/quantized/layernorm.ts chooses the constants; the kernels compute in 64 bits, their bounds checked
 * there).
 */

export interface QLayerNormParams { eps: number; frac: number; shift: number; zp: number; lo: number; hi: number }

export function qLayerNormParams(node: Node): QLayerNormParams {
  const [eps, frac, shift, zp, lo, hi] = ['eps', 'frac', 'shift', 'zero_point', 'lo', 'hi'].map((k) => attrInt(node, k));
  return { eps, frac, shift, zp, lo, hi };
}

/** One row, exactly as the kernels compute it. */
export function qLayerNormRow(row: ArrayLike<number>, G: ArrayLike<number>, B: ArrayLike<number>, p: QLayerNormParams, out: { [j: number]: number }): void {
  const N = row.length;
  let S = 0;
  for (let j = 0; j < N; j++) S += row[j];
  let V: X.Exact = p.eps;
  for (let j = 0; j < N; j++) {
    const c = N * row[j] - S;
    V = X.add(V, c * c);
  }
  const r = Math.max(1, X.toNumber(X.isqrt(X.mul(V, 4 ** p.frac))));
  const den = X.mul(r, 2 ** p.shift);
  const half = X.shr(den, 1);
  for (let j = 0; j < N; j++) {
    const c = N * row[j] - S;
    const num = X.add(X.add(X.mul(X.mul(G[j], c), 2 ** p.frac), X.mul(B[j], r)), half);
    out[j] = X.clipExact(X.add(X.floorDiv(num, den), p.zp), p.lo, p.hi);
  }
}

export const qLayerNormOp: OpSpec = {
  ops: ['QLayerNorm'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: (node) => [{ min: attrInt(node, 'lo'), max: attrInt(node, 'hi') }],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const G = need(node, inputs, 1, 'the gains');
    const B = need(node, inputs, 2, 'the offsets');
    if ([x, G, B].some((t) => isFloatType(t.dtype))) throw modelError(node, 'QLayerNorm needs integer codes, gains and offsets');
    const N = x.shape[x.shape.length - 1];
    if (x.shape.length === 0 || G.data.length !== N || B.data.length !== N) throw modelError(node, `gains and offsets need ${N} entries, one per column`);
    const p = qLayerNormParams(node);
    if (p.eps < 0 || p.frac < 0 || p.frac > 30 || p.shift < 0 || p.shift > 62 || p.lo > p.hi) {
      throw modelError(node, `eps ${p.eps}, frac ${p.frac}, shift ${p.shift}, clip [${p.lo}, ${p.hi}]: eps >= 0, 0 <= frac <= 30, 0 <= shift <= 62`);
    }
    const out = intArray(x.shape);
    for (let r = 0; r * N < x.data.length; r++) {
      qLayerNormRow(x.data.subarray(r * N, (r + 1) * N), G.data, B.data, p, out.data.subarray(r * N, (r + 1) * N));
    }
    return [out];
  },
};
