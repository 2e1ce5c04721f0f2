import { GenError } from '../errors.js';
import { attrInt } from '../ir/attrs.js';
import { tensorOf } from '../ir/graph.js';
import { isqrt } from '../reference/exact.js';
import { typeNames } from './common.js';
import type { KernelDef } from './types.js';
import { bigRange, maxAbs, rowAccepts, rowsOf, siteOf } from './words.js';

/*
 * QLayerNorm (docs/quantized-onnx.md; reference/ops/qlayernorm.ts): per row of the last axis, the sum, the centred
 * values c = N·x - Σx, the sum of their squares plus eps, its square root with `frac` fraction bits (fg_isqrt64,
 * bit by bit), then (G·c·2^frac + B·r) / (r·2^shift) rounded half up (a floor division), the zero point added and
 * clipped. Every intermediate is a 64-bit word; the bounds below prove it holds them. Cores take contiguous rows.
 */

const MAX64 = 2n ** 63n - 1n;

export const qLayerNormKernel: KernelDef = {
  name: 'qlayernorm',
  template: 'qlayernorm',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['QLayerNorm'], 'a QLayerNorm'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const G = tensorOf(graph, node.inputs[1]);
    const B = tensorOf(graph, node.inputs[2]);
    const [eps, frac, shift, zp, lo, hi] = ['eps', 'frac', 'shift', 'zero_point', 'lo', 'hi'].map((k) => attrInt(node, k));
    const N = BigInt(L);
    const xr = bigRange(x);
    const cMax = N * (xr.hi - xr.lo);
    const V = N * cMax * cMax + BigInt(eps);
    const scaledV = V * 4n ** BigInt(frac);
    const rMax = BigInt(isqrt(scaledV)) + 1n;
    const den = rMax * 2n ** BigInt(shift);
    const num = bigRange(G).abs * cMax * 2n ** BigInt(frac) + bigRange(B).abs * rMax + den;
    const worst = maxAbs(N * xr.abs, scaledV, den, num);
    if (worst > MAX64) throw new GenError('unsupported', `a QLayerNorm term can reach ${worst}, beyond 64-bit arithmetic`, site);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'g', tensor: G.name, dtype: G.dtype, write: false },
        { field: 'b', tensor: B.name, dtype: B.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: { rows, L, eps: { c: `${eps}LL`, as: `${eps}` }, frac, shift, zp, lo, hi, x: typeNames(x.dtype), g: typeNames(G.dtype), b: typeNames(B.dtype), y: typeNames(y.dtype) },
      macs: 0,
    };
  },
};
