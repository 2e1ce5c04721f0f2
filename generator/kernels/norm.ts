import { GenError } from '../errors.js';
import { attrLog2 } from '../ir/attrs.js';
import { broadcastShapes, broadcastStrides } from '../ir/broadcast.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../ir/graph.js';
import { typeNames } from './common.js';
import { collapse } from './loops.js';
import type { BufferArg, KernelDef } from './types.js';
import { bigRange, maxAbs, rowAccepts, rowsOf, shiftWithin, siteOf, wordFor, type Site } from './words.js';

/*
 * iRMSNorm and iLayerNorm (SEMANTICS.md), row-wise over the last axis; cores take contiguous ranges of rows.
 * Weights and biases broadcast against x as numpy does; the kernel addresses them with one stride along the row
 * and one across rows, which covers per-column ([D]), per-row and full-shape parameters.
 */

interface ParamAccess {
  arg: BufferArg;
  /** Element strides across rows (rs) and along a row (cs). */
  rs: number;
  cs: number;
  t: ReturnType<typeof typeNames>;
}

function paramAccess(p: Tensor, field: string, x: Tensor, site: Site): ParamAccess {
  const shape = broadcastShapes([x.shape, p.shape], site);
  if (shape.length !== x.shape.length || shape.some((d, i) => d !== x.shape[i])) {
    throw new GenError('model', `parameter '${p.name}' [${p.shape.join(', ')}] does not broadcast to x [${x.shape.join(', ')}]`, site);
  }
  const st = broadcastStrides(p.shape, x.shape);
  const rank = x.shape.length;
  const across = collapse({ dims: x.shape.slice(0, rank - 1), strides: [st.slice(0, rank - 1)] });
  if (across.dims.length > 1) {
    throw new GenError('unsupported', `parameter '${p.name}' varies across rows in a way one stride cannot follow`, site);
  }
  return {
    arg: { field, tensor: p.name, dtype: p.dtype, write: false },
    rs: across.dims.length === 1 ? across.strides[0][0] : 0,
    cs: st[rank - 1],
    t: typeNames(p.dtype),
  };
}

/**
 * iRMSNorm: std = isqrt(tdiv(sum x^2, N) + 1); out = clip(tdiv(x*w, std) >> log2(D), -128, 127).
 * std <= max|x| + 1, so it and the quotient stay in the product's word.
 */
export const iRMSNormKernel: KernelDef = {
  name: 'irmsnorm',
  template: 'rmsnorm',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['iRMSNorm'], 'an iRMSNorm'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const w = paramAccess(tensorOf(graph, node.inputs[1]), 'w', x, site);
    const xa = bigRange(x).abs;
    const wa = bigRange(tensorOf(graph, node.inputs[1])).abs;
    const pT = wordFor(maxAbs(xa * wa, xa + 1n), 'x*w', site);
    return {
      args: [{ field: 'x', tensor: x.name, dtype: x.dtype, write: false }, w.arg, { field: 'y', tensor: y.name, dtype: y.dtype, write: true }],
      params: {
        rows, L, log2D: shiftWithin(attrLog2(node, 'D'), pT.wide),
        wRs: w.rs, wCs: w.cs, w: w.t,
        sqT: sumWord(L, xa, site),
        pT,
        recip: rmsReciprocal(node, graph),
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};

/**
 * Whether an iRMSNorm's divisions by std are multiplies by its reciprocal (rmsnorm.c): every product x*w below 2^31
 * in magnitude (the reciprocal's bound), std below 2^32 (it is at most max|x| + 1). The AS charge and the tiler read it.
 */
export function rmsReciprocal(node: Node, graph: Graph): boolean {
  const xa = bigRange(tensorOf(graph, node.inputs[0])).abs;
  const wa = bigRange(tensorOf(graph, node.inputs[1])).abs;
  return xa * wa < 2n ** 31n && xa + 1n < 2n ** 32n;
}

/** Whether an iRMSNorm's row sum of squares is a 64-bit word (NORM_SUM_WIDE per entry): the view's sqT. */
export function rmsWideSum(node: Node, graph: Graph): boolean {
  const { x, L } = rowsOf(node, graph);
  return sumWord(L, bigRange(x).abs, siteOf(node)).wide;
}

const sumWord = (L: number, xa: bigint, site: Site): ReturnType<typeof wordFor> =>
  wordFor(BigInt(L) * xa * xa + 1n, 'the sum of squares', site);

/**
 * iLayerNorm: mean = tdiv(sum x, N); var = tdiv(sum (x-mean)^2, N) + 1; std = isqrt(var);
 * out = wrap8((tdiv((x-mean)*w, std) + b) >> log2(D)). The mean lies in x's range, so x - mean spans hi - lo.
 */
export const iLayerNormKernel: KernelDef = {
  name: 'ilayernorm',
  template: 'layernorm',
  engine: 'cores',
  accepts: (node, g) => rowAccepts(node, g, ['iLayerNorm'], 'an iLayerNorm'),
  view({ node, graph }) {
    const site = siteOf(node);
    const { x, y, L, rows } = rowsOf(node, graph);
    const wt = tensorOf(graph, node.inputs[1]);
    const bt = tensorOf(graph, node.inputs[2]);
    const w = paramAccess(wt, 'w', x, site);
    const b = paramAccess(bt, 'b', x, site);
    const xr = bigRange(x);
    const span = xr.hi - xr.lo;
    const Lb = BigInt(L);
    const pT = wordFor(maxAbs(span * bigRange(wt).abs + bigRange(bt).abs, span + 1n), '(x-mean)*w', site);
    return {
      args: [{ field: 'x', tensor: x.name, dtype: x.dtype, write: false }, w.arg, b.arg, { field: 'y', tensor: y.name, dtype: y.dtype, write: true }],
      params: {
        rows, L, log2D: shiftWithin(attrLog2(node, 'D'), pT.wide),
        wRs: w.rs, wCs: w.cs, w: w.t, bRs: b.rs, bCs: b.cs, b: b.t,
        sT: wordFor(Lb * xr.abs, 'the row sum', site),
        sqT: wordFor(Lb * span * span + 1n, 'the sum of squares', site),
        pT,
        x: typeNames(x.dtype), y: typeNames(y.dtype),
      },
      macs: 0,
    };
  },
};
