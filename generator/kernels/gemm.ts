import { GenError } from '../errors.js';
import { attrInt } from '../ir/attrs.js';
import { fillsPast, POSITION_BOUND_INPUT, positionBoundOf } from '../frontend/passes/bound-by-position.js';
import { broadcastStrides, GEMM_ADD_AXIS, GEMM_MUL_AXIS, requantParamShape, varyingAxes } from '../ir/broadcast.js';
import { isIntType } from '../ir/dtype.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../ir/graph.js';
import { accRange, epilogueOf } from './epilogue.js';
import { byteWide, chunkOf, extOf, typeNames, valueRange } from './common.js';
import { toRank } from './loops.js';
import type { KernelDef } from './types.js';
import { gemmRowPairs, gemmTileMacCycles } from './gemm-tile-cost.js';
import { GEMM_KMAJOR_LOOP, GEMM_LOOP, loopOf } from './streams.js';

/**
 * How a GEMM's output splits over the cores: whole rows when there are at least as many rows as cores (as pulp-nn's
 * linear kernels do), else each row in `chunks` column slices of `width` columns (the last one shorter), so a
 * classifier's single row still runs on every core. Slices wider than 16 columns are whole multiples of 16, the AS
 * kernel's SIMD block.
 */
export function gemmSplit(rows: number, N: number, cores: number): { chunks: number; width: number } {
  if (rows >= cores || N < 2) return { chunks: 1, width: N };
  let width = Math.ceil(N / Math.min(N, Math.ceil(cores / rows)));
  if (width > 16) width = Math.ceil(width / 16) * 16;
  return { chunks: Math.ceil(N / width), width };
}

/**
 * The operations the C's output stage spends per output before its requantization (FG_GEMM_OUT in gemm.c.mustache),
 * charged as ELEM_OP like a fused expression's: alpha's multiply, and the C term's load and add (and beta's multiply
 * unless 1). A 66x16x16 MatMul with its bias on 8 ISS cores: 5,364 -> 5,807 cycles with the C term, ~3 a value.
 */
export function gemmOutputOps(node: Node): number {
  const isGemm = node.op === 'Gemm';
  const alpha = isGemm ? attrInt(node, 'alpha', 1) : 1;
  const beta = isGemm ? attrInt(node, 'beta', 1) : 1;
  return (alpha !== 1 ? 1 : 0) + (node.inputs[2] ? (beta !== 1 ? 3 : 2) : 0);
}

/** Columns of work of the busiest core (share_begin/share_end: chunkOf). */
export function gemmBusiestColumns(rows: number, N: number, cores: number): number {
  const { chunks, width } = gemmSplit(rows, N, cores);
  let most = 0;
  for (let c = 0; c < cores; c++) {
    const [start, end] = chunkOf(rows * chunks, c, cores);
    let cols = 0;
    for (let u = start; u < end; u++) {
      const begin = (u % chunks) * width;
      cols += Math.min(N, begin + width) - begin;
    }
    most = Math.max(most, cols);
  }
  return most;
}

/**
 * Which of the C's loops a GEMM takes (gemm.c.mustache), from its operands' types and layouts: the SIMD dot products
 * along k where both operands are 8-bit and contiguous in k (`dotK`; with K of 4 or more), the transposed-B SIMD path
 * where B is contiguous in n on a core with XpulpV2 (`kdot`), else the scalar loop. The kernel's view and the tiler's
 * estimate (gemm-tile-cost.ts) both read it, so the tiles are chosen for the loop that runs.
 */
export function gemmLoops(node: Node, graph: Graph, xpulp: boolean) {
  const A = tensorOf(graph, node.inputs[0]);
  const B = tensorOf(graph, node.inputs[1]);
  const transA = node.op === 'Gemm' && attrInt(node, 'transA', 0) !== 0;
  // MatMul carries transB only when the generator stored a constant B n-major (platforms/siracusa/passes).
  const transB = attrInt(node, 'transB', 0) !== 0;
  // MatMul promotes 1-D operands to matrices (numpy rules).
  const aShape = A.shape.length === 1 ? [1, A.shape[0]] : A.shape;
  const bShape = B.shape.length === 1 ? [B.shape[0], 1] : B.shape;
  const ar = aShape.length;
  const br = bShape.length;
  const M = transA ? aShape[ar - 1] : aShape[ar - 2];
  const K = transA ? aShape[ar - 2] : aShape[ar - 1];
  const N = transB ? bShape[br - 2] : bShape[br - 1];
  // Elements from one row of B to the next: B's last dim, or more when the tile plan padded B's rows in L1 against
  // bank conflicts (midend/tiling/filter-layout.ts gemmRowLayoutOf). Every B index goes through it.
  const rowB = bShape[br - 1];
  const WB = B.shape.length >= 2 ? (node.filterStride ?? rowB) : rowB;
  const bytes8 = byteWide(A.dtype) && byteWide(B.dtype);
  const sAk = transA ? M : 1;
  const sBk = transB ? 1 : WB;
  const sBn = transB ? WB : 1;
  const dotK = bytes8 && sAk === 1 && sBk === 1;
  const kdot = xpulp && !dotK && bytes8 && sAk === 1 && sBn === 1 && K >= 4;
  const macClass: 'MAC_GEMM' | 'MAC_GEMM_KDOT' | 'MAC_GEMM_SCALAR' = dotK && K >= 4 ? 'MAC_GEMM' : kdot ? 'MAC_GEMM_KDOT' : 'MAC_GEMM_SCALAR';
  return { A, B, transA, transB, aShape, bShape, M, K, N, rowB, WB, bytes8, sAk, sBk, sBn, dotK, vecN: bytes8 && !dotK && sBn === 1, kdot, macClass };
}
export type GemmLoops = ReturnType<typeof gemmLoops>;

/**
 * B's columns copied as rows along k sit on the core's stack, at most 512 bytes of a cluster core's 1 KiB: a pair of
 * columns up to K = 256, four (the 4x2 block's) up to K = 128.
 */
export const KDOT_COPY_BYTES = 512;

/**
 * Where the C's transposed-B path (gemm.c.mustache `kdot`) copies B's columns out as rows along k (the 1x2 loop's
 * operand): `runs`, whole rows of one batch (units of whole rows, no run-time column bound) take every column pair from
 * a copy made once for the rows (gemm-tile-cost.ts counts the same); `cols`, the 1..3 columns the 4-column step leaves
 * over (N or the unit's width not a multiple of 4, or a run-time column bound). `bt`: the copy's buffer (k padded to
 * words; four rows for the runs' 4x2 block, else two), if either.
 */
export function kdotCopies(L: GemmLoops, split: { chunks: number; width: number }, posBound: string | undefined) {
  const kPad = Math.ceil(L.K / 4) * 4;
  const fits = 2 * kPad <= KDOT_COPY_BYTES;
  const quads = 4 * kPad <= KDOT_COPY_BYTES && L.N >= 4;
  const runs = fits && split.chunks === 1 && posBound !== 'n';
  const cols = fits && (L.N % 4 !== 0 || split.width % 4 !== 0 || posBound === 'n');
  return {
    runs: runs ? { quads } : false,
    quads: runs && quads,
    cols,
    bt: runs || cols ? { kPad, rows: runs && quads ? 4 : 2 } : false,
  } as const;
}

/**
 * Integer GEMM for Gemm (alpha, beta, transA, transB, bias C) and batched, broadcasting MatMul (with an optional
 * bias folded in by frontend/passes/fold-bias-add.ts). Operands are addressed through strides, so transposes and
 * broadcast batches cost nothing. The work unit is one output row, or a slice of one (gemmSplit); cores take
 * contiguous ranges of units.
 */
export const gemmKernel: KernelDef = {
  name: 'gemm',
  template: 'gemm',
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'Gemm' && node.op !== 'MatMul') return 'not a Gemm or MatMul';
    const a = tensorOf(g, node.inputs[0]);
    const b = tensorOf(g, node.inputs[1]);
    if (!isIntType(a.dtype) || !isIntType(b.dtype)) return 'inputs are not integer tensors';
    if (a.shape.length < 1 || b.shape.length < 1) return 'scalar operands';
    return null;
  },
  tileMacCycles(node, graph, out, platform) {
    const N = out[out.length - 1] ?? 1;
    const rows = out.reduce((a, b) => a * b, 1) / Math.max(1, N);
    const perBatch = out.length >= 2 ? out[out.length - 2] : 1;
    const loops = gemmLoops(node, graph, platform.image?.xpulp === true);
    const split = gemmSplit(rows, N, platform.cores);
    const runs = loops.kdot ? kdotCopies({ ...loops, N }, split, positionBoundOf(node)).runs : false;
    return gemmTileMacCycles(loops, rows, perBatch, N, split, platform, runs);
  },
  view({ node, graph, platform }) {
    const site = { node: node.name, op: node.op };
    const loops = gemmLoops(node, graph, platform.image?.xpulp === true);
    const { A, B, transA, transB, aShape, bShape, M, K, N, rowB, WB, bytes8, sAk, sBk, sBn, dotK, vecN } = loops;
    const C = node.inputs[2] ? tensorOf(graph, node.inputs[2]) : undefined;
    const Y = tensorOf(graph, node.outputs[0]);
    // A decoder's attention (frontend/passes/bound-by-position.ts): columns ('n') or the k loop ('k') stop at the
    // run-time position.
    const posBound = positionBoundOf(node);
    const P = posBound ? tensorOf(graph, node.inputs[POSITION_BOUND_INPUT]) : undefined;
    if (posBound && posBound !== 'n' && posBound !== 'k') throw new GenError('internal', `position_bound '${posBound}' is neither n nor k`, site);
    const isGemm = node.op === 'Gemm';
    const alpha = isGemm ? attrInt(node, 'alpha', 1) : 1;
    const beta = isGemm ? attrInt(node, 'beta', 1) : 1;
    const br = bShape.length;
    const yShape = [...Y.shape.slice(0, Math.max(0, Y.shape.length - 2))];
    const batch = yShape.length > 0 ? yShape : [1];
    const batchStrides = (shape: number[], inner: number): number[] =>
      broadcastStrides(shape.slice(0, shape.length - 2), batch).map((s) => s * inner);
    if (WB < rowB) throw new GenError('internal', `B row stride ${WB} is shorter than a row (${rowB} elements)`, site);
    const fullY = [...batch, M, N];
    const cStr = C ? broadcastStrides(C.shape, fullY) : [...batch.map(() => 0), 0, 0];
    const nest = toRank(
      {
        dims: batch,
        strides: [batchStrides(aShape, M * K), batchStrides(bShape, bShape[br - 2] * WB), cStr.slice(0, batch.length), batch.map((_, i) => batch.slice(i + 1).reduce((x, y) => x * y, 1) * M * N)],
      },
      2,
      site,
    );
    const [sa, sb, sc, sy] = nest.strides;

    const ar0 = valueRange(A);
    const br0 = valueRange(B);
    const amax = Math.max(Math.abs(ar0.min), Math.abs(ar0.max));
    const bmax = Math.max(Math.abs(br0.min), Math.abs(br0.max));
    let bound = K * amax * bmax * Math.abs(alpha);
    if (C) {
      const cr = valueRange(C);
      bound += Math.abs(beta) * Math.max(Math.abs(cr.min), Math.abs(cr.max));
    }
    const indexOf = (p: Tensor): string => {
      // A tile instance carries the axis as read on the whole output (tiling/specs.ts): its own shape may not tell.
      const key = p.name === node.requant?.mul ? GEMM_MUL_AXIS : p.name === node.requant?.add ? GEMM_ADD_AXIS : undefined;
      const planned = key !== undefined && node.attrs[key] ? attrInt(node, key) : -1;
      if (planned === 0) return 'col';
      if (planned === 1) return 'row';
      // The per-channel (C,1) form is read against Y's own shape, as the fusion pass read it (fuse-requant.ts):
      // fullY has a batch axis prepended, against which a (C,1) parameter would look per row.
      const axes = varyingAxes(requantParamShape(p.shape, Y.shape), fullY);
      if (axes.length === 1 && axes[0] === fullY.length - 1) return 'col';
      if (axes.length === 1 && axes[0] === fullY.length - 2) return 'row';
      throw new GenError('internal', `requantization parameter '${p.name}' is neither per row nor per column`, site);
    };
    const ep = epilogueOf(node, graph, accRange(bound), indexOf, platform.image?.xpulp ? undefined : Y.dtype);
    // The AS kernel's SIMD paths (emulation speed only; the C and the charged cycles do not change): both operands
    // 8-bit, and either both contiguous in k (dot products along k) or B contiguous in n (16 columns at a time).
    const split = gemmSplit(nest.dims[0] * nest.dims[1] * M, N, platform.cores);
    // The C's dot products by the operands' signedness (firmgen_simd.h: fg_dot4_<a><b> and its blocks).
    const signs = `${A.dtype === 'uint8' ? 'u' : 's'}${B.dtype === 'uint8' ? 'u' : 's'}`;
    const kdotOn = loops.kdot;
    const pairs = gemmRowPairs(loops, split);
    return {
      args: [
        { field: 'a', tensor: A.name, dtype: A.dtype, write: false },
        { field: 'b', tensor: B.name, dtype: B.dtype, write: false },
        ...(C ? [{ field: 'c', tensor: C.name, dtype: C.dtype, write: false }] : []),
        ...ep.args,
        ...(P ? [{ field: 'p', tensor: P.name, dtype: P.dtype, write: false }] : []),
        { field: 'y', tensor: Y.name, dtype: Y.dtype, write: true },
      ],
      params: {
        M, N, K, B1: nest.dims[1],
        // The loops' extents: the constants, or the bounds the kernel reads from the position first.
        nLim: posBound === 'n' ? 'nEnd' : String(N), kLim: posBound === 'k' ? 'kEnd' : String(K),
        posN: posBound === 'n' && P ? { p: typeNames(P.dtype), fill: fillsPast(node) } : false,
        posK: posBound === 'k' && P ? { p: typeNames(P.dtype) } : false,
        rows: nest.dims[0] * nest.dims[1] * M,
        split,
        aB0: sa[0], aB1: sa[1], bB0: sb[0], bB1: sb[1], cB0: sc[0], cB1: sc[1], yB0: sy[0], yB1: sy[1],
        sAm: transA ? 1 : K, sAk, sBk, sBn,
        // The linear loop's streams (streams.ts): B contiguous in k (the C's SIMD block): two A rows (the same row
        // twice when the C takes rows one at a time) and four B rows, a word = 4 k apart; else one A element and two B
        // words of 4 columns each per k.
        loop: dotK
          ? { ...loopOf(GEMM_LOOP, platform.costs.MAC_GEMM), block: { nextRowA: pairs ? (transA ? 1 : K) : 0, nextRowB: sBn } }
          : { ...loopOf(GEMM_KMAJOR_LOOP, kdotOn ? platform.costs.MAC_GEMM_KDOT : platform.costs.MAC_GEMM_SCALAR), block: false, aStep: sAk, bStep: sBk },
        dotK, vecN, scalarK: !dotK && !vecN, aExt: extOf(A.dtype), bExt: extOf(B.dtype),
        // The C kernel's SIMD path (gemm.c.mustache): the same condition as dotK; the dot product by signedness.
        // Whole rows per unit: two of a core's rows go through fg_dot4x2 together (4 columns x 2 rows per step).
        cdot: dotK ? {
          fn: `fg_dot4_${signs}`,
          fn4: `fg_dot4x2_${signs}`,
          fn1: `fg_dot1x2_${signs}`,
          // One A row against two B rows: the 1x2 loop with B's rows as its two rows (signedness B first).
          fn1swap: `fg_dot1x2_${signs[1]}${signs[0]}`,
          rowPairs: pairs,
          // A unit of fewer than 4 columns never takes the 4-column step (c1 - c0 <= the split's width).
          quads: split.width >= 4,
        } : false,
        // B contiguous in n, both 8-bit, A contiguous in k: the C's transposed-B SIMD path (gemm.c.mustache kdot).
        kdot: kdotOn ? {
          fn: `fg_dot4_${signs}`,
          ...kdotCopies(loops, split, posBound),
          fn1: `fg_dot1x2_${signs}`,
          fn4: `fg_dot4x2_${signs}`,
          fn1swap: `fg_dot1x2_${signs[1]}${signs[0]}`,
        } : false,
        // A row the C takes alone goes through the two-row block with itself as both rows (MAC_GEMM_LONE).
        // Where word loads take any address (XpulpV2), a row K bytes from the last is off a word when K is not a
        // multiple of 4: the SIMD loops' loads of such rows cost a cycle more (MISALIGNED, counted from the addresses).
        lone: dotK && K >= 4 ? { pairs, misaligned: platform.image?.xpulp === true } : false,
        sCm: cStr[cStr.length - 2], sCn: cStr[cStr.length - 1],
        alpha, beta, scaled: alpha !== 1, outOps: gemmOutputOps(node),
        // Neither SIMD path (k below 4, operands wider than a byte): the C's scalar loop, priced per MAC of its own.
        macClass: dotK && K >= 4 ? 'MAC_GEMM' : 'MAC_GEMM_SCALAR',
        a: typeNames(A.dtype), b: typeNames(B.dtype), y: typeNames(Y.dtype),
        c: C ? typeNames(C.dtype) : false,
        ...ep.params,
      },
      macs: nest.dims[0] * nest.dims[1] * M * N * K,
    };
  },
};
