import { GenError } from '../../errors.js';
import { attrInt } from '../../ir/attrs.js';
import { broadcastStrides, requantParamShape } from '../../ir/broadcast.js';
import { bytesOf, isSigned, type IntType } from '../../ir/dtype.js';
import { tensorOf, type Graph, type Node, type Tensor } from '../../ir/graph.js';
import { sizeOf } from '../../ir/ndarray.js';

/**
 * What a SpiNNaker2 GEMM layer computes, read off a Gemm or (batched, broadcasting) MatMul node with its fused bias
 * and requantization: Y[b][m][n] = epilogue(alpha * sum_k A[b](m, k) * B[b](k, n)), the sum on the MLA.
 */
export interface GemmGeometry {
  A: Tensor;
  B: Tensor;
  Y: Tensor;
  batches: number;
  M: number;
  N: number;
  K: number;
  transA: boolean;
  transB: boolean;
  alpha: number;
  /** Element offset of batch b's matrix in A, B (broadcast batches repeat an offset). */
  aOffset: (b: number) => number;
  bOffset: (b: number) => number;
  /** beta * C, and the requantization parameters, as int32 tables over the output. */
  bias: ParamTable;
  requant?: { mul: ParamTable; add: ParamTable; shift: number; min: number; max: number };
}

/** How a parameter varies over the output rows (batch x M, flattened) and columns. */
export type ParamMode = 'none' | 'scalar' | 'col' | 'row' | 'full';
export const PARAM_MODES: Record<ParamMode, number> = { none: 0, scalar: 1, col: 2, row: 3, full: 4 };

export interface ParamTable {
  mode: ParamMode;
  /** The value of a scalar table; 0 otherwise. */
  scalar: number;
  /** col: N values; row: batches x M values; full: (batches x M) x N values, row-major. */
  values: Int32Array;
}

const NONE: ParamTable = { mode: 'none', scalar: 0, values: new Int32Array(0) };

/** The MLA multiplies 8-bit operands (HARDWARE.md "MLA"): int8 or uint8, its signedness set per operand. */
export function eightBit(t: Tensor): boolean {
  return t.dtype === 'int8' || t.dtype === 'uint8';
}

export function gemmGeometry(node: Node, g: Graph): GemmGeometry {
  const site = { node: node.name, op: node.op };
  const A = tensorOf(g, node.inputs[0]);
  const B = tensorOf(g, node.inputs[1]);
  const C = node.inputs[2] ? tensorOf(g, node.inputs[2]) : undefined;
  const Y = tensorOf(g, node.outputs[0]);
  if (A.shape.length < 2 || B.shape.length < 2) throw new GenError('unsupported', 'MatMul of 1-D operands', site);
  const isGemm = node.op === 'Gemm';
  const transA = isGemm && attrInt(node, 'transA', 0) !== 0;
  const transB = isGemm && attrInt(node, 'transB', 0) !== 0;
  const ar = A.shape.length;
  const br = B.shape.length;
  const M = transA ? A.shape[ar - 1] : A.shape[ar - 2];
  const K = transA ? A.shape[ar - 2] : A.shape[ar - 1];
  const N = transB ? B.shape[br - 2] : B.shape[br - 1];
  const batchShape = Y.shape.slice(0, Y.shape.length - 2);
  const batches = sizeOf(batchShape);
  const batchOffset = (shape: number[], inner: number) => {
    const strides = broadcastStrides(shape.slice(0, shape.length - 2), batchShape);
    return (b: number): number => {
      let off = 0;
      let rest = b;
      for (let i = batchShape.length - 1; i >= 0; i--) {
        off += (rest % batchShape[i]) * strides[i];
        rest = Math.floor(rest / batchShape[i]);
      }
      return off * inner;
    };
  };
  const beta = isGemm ? attrInt(node, 'beta', 1) : 1;
  const bias = C ? paramTable(C, Y.shape, M, N, beta, site, false) : NONE;
  const rq = node.requant;
  return {
    A, B, Y, batches, M, N, K, transA, transB,
    alpha: isGemm ? attrInt(node, 'alpha', 1) : 1,
    aOffset: batchOffset(A.shape, M * K),
    bOffset: batchOffset(B.shape, K * N),
    bias,
    requant: rq && {
      mul: paramTable(tensorOf(g, rq.mul), Y.shape, M, N, 1, site, true),
      add: paramTable(tensorOf(g, rq.add), Y.shape, M, N, 1, site, true),
      shift: rq.shift, min: rq.min, max: rq.max,
    },
  };
}

/** A constant broadcast over the output [...batch, M, N], times `scale`, as the smallest table that holds it. */
function paramTable(t: Tensor, yShape: number[], M: number, N: number, scale: number, site: { node: string; op: string }, requant: boolean): ParamTable {
  if (!t.data) throw new GenError('unsupported', `'${t.name}' must be a constant on spinnaker2 (the epilogue reads it from the layer configuration)`, site);
  const shape = requant ? requantParamShape(t.shape, yShape) : t.shape;
  const strides = broadcastStrides(shape, yShape);
  const rank = yShape.length;
  const rows = sizeOf(yShape) / N;
  const data = t.data.data;
  const valueAt = (r: number, n: number): number => {
    let off = n * strides[rank - 1] + (r % M) * strides[rank - 2];
    let rest = Math.floor(r / M);
    for (let i = rank - 3; i >= 0; i--) {
      off += (rest % yShape[i]) * strides[i];
      rest = Math.floor(rest / yShape[i]);
    }
    // The reference truncates requantization parameters to integers (RequantShift casts to int64).
    const v = Math.trunc(data[off]) * scale;
    if (v < -(2 ** 31) || v >= 2 ** 31) throw new GenError('unsupported', `'${t.name}' holds ${v}, outside int32`, site);
    return v;
  };
  const byCol = strides[rank - 1] !== 0 && N > 1;
  const byRow = strides.slice(0, rank - 1).some((s, i) => s !== 0 && yShape[i] > 1);
  if (!byCol && !byRow) return { mode: 'scalar', scalar: valueAt(0, 0), values: new Int32Array(0) };
  if (byCol && !byRow) return { mode: 'col', scalar: 0, values: Int32Array.from({ length: N }, (_, n) => valueAt(0, n)) };
  if (!byCol) return { mode: 'row', scalar: 0, values: Int32Array.from({ length: rows }, (_, r) => valueAt(r, 0)) };
  return { mode: 'full', scalar: 0, values: Int32Array.from({ length: rows * N }, (_, i) => valueAt(Math.floor(i / N), i % N)) };
}

/** Bytes of one output element and whether the operands are signed (MLA flags). */
export function elementInfo(geo: GemmGeometry): { yBytes: number; aSigned: boolean; bSigned: boolean } {
  return {
    yBytes: bytesOf(geo.Y.dtype),
    aSigned: isSigned(geo.A.dtype as IntType),
    bSigned: isSigned(geo.B.dtype as IntType),
  };
}
