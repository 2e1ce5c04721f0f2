import { GenError } from '../errors.js';
import { attrInt, attrInts, hasAttr } from '../ir/attrs.js';
import { tensorOf, type Graph, type Node } from '../ir/graph.js';
import { sizeOf, stridesOf } from '../ir/ndarray.js';
import { typeNames } from './common.js';
import { cDivide } from './divide.js';
import { toRank } from './loops.js';
import type { KernelDef } from './types.js';
import { bigRange, rowAccepts, siteOf, wordFor } from './words.js';

/** The reduced axes, normalised; [] with noop_with_empty_axes means "reduce nothing" (the identity). */
function reducedAxes(node: Node, g: Graph, rank: number): number[] {
  let axes: number[];
  if (node.inputs[1]) {
    const t = tensorOf(g, node.inputs[1]);
    if (!t.data) throw new GenError('unsupported', 'the reduction axes must be a constant', siteOf(node));
    axes = Array.from(t.data.data);
  } else {
    axes = hasAttr(node, 'axes') ? attrInts(node, 'axes') : [];
  }
  if (axes.length === 0 && attrInt(node, 'noop_with_empty_axes', 0) === 0) axes = [...Array(rank).keys()];
  return [...new Set(axes.map((a) => (a < 0 ? a + rank : a)))].sort((a, b) => a - b);
}

/**
 * ReduceSum, ReduceMean and IntegerMean over any axes whose kept and reduced parts each merge into at most two
 * loops: the [outer, reduced, inner] case of a contiguous axis set is kept (outer, inner) x reduced (one loop).
 * The work unit is one output element: cores split the outputs, and each sums its own inputs, so no partial
 * sums cross cores. The mean rounds as SEMANTICS.md says: a rounding shift when the count L is a power of two,
 * else a rounded truncating division with sign(0) = +1.
 */
export const reduceKernel: KernelDef = {
  name: 'reduce',
  template: 'reduce',
  engine: 'cores',
  accepts(node, g) {
    return rowAccepts(node, g, ['ReduceSum', 'ReduceMean', 'IntegerMean'], 'a reduction', [node.inputs[0], node.outputs[0]]);
  },
  view({ node, graph }) {
    const site = siteOf(node);
    const x = tensorOf(graph, node.inputs[0]);
    const y = tensorOf(graph, node.outputs[0]);
    const rank = x.shape.length;
    const axes = reducedAxes(node, graph, rank);
    const xs = stridesOf(x.shape);
    const kept = x.shape.map((_, i) => i).filter((i) => !axes.includes(i));
    const keptDims = kept.map((i) => x.shape[i]);
    let kn;
    let rn;
    try {
      // The output is row-major over the kept axes, so its strides ride along and stay linear when loops merge.
      kn = toRank({ dims: keptDims, strides: [kept.map((i) => xs[i]), stridesOf(keptDims)] }, 2, site);
      rn = toRank({ dims: axes.map((i) => x.shape[i]), strides: [axes.map((i) => xs[i])] }, 2, site);
    } catch (e) {
      if (!(e instanceof GenError)) throw e;
      throw new GenError('unsupported', `reducing axes [${axes.join(', ')}] of a rank-${rank} tensor needs more than two kept or two reduced loops`, site);
    }
    const L = sizeOf(axes.map((i) => x.shape[i]));
    const mean = node.op !== 'ReduceSum';
    const pow2 = mean && (L & (L - 1)) === 0;
    const s = pow2 ? Math.log2(L) : 0;
    // |acc| <= L * max|x|, plus the rounding term of the mean.
    const acc = wordFor(BigInt(L) * bigRange(x).abs + BigInt(L), 'the sum', site);
    return {
      args: [
        { field: 'x', tensor: x.name, dtype: x.dtype, write: false },
        { field: 'y', tensor: y.name, dtype: y.dtype, write: true },
      ],
      params: {
        outputs: sizeOf(keptDims), K1: kn.dims[1], ks0: kn.strides[0][0], ks1: kn.strides[0][1],
        i0: cDivide('u', kn.dims[1], sizeOf(keptDims)),
        R0: rn.dims[0], R1: rn.dims[1], rs0: rn.strides[0][0], rs1: rn.strides[0][1],
        op: node.op, L, acc,
        direct: !mean || L === 1,
        shift: pow2 && s > 0 ? { s, round: 2 ** (s - 1) } : false,
        divide: mean && !pow2 ? { half: Math.floor(L / 2) } : false,
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
