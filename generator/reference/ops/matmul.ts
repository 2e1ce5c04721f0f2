import type { IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, sizeOf, type NDArray } from '../../ir/ndarray.js';
import { broadcastIndex, broadcastShapes } from '../broadcast.js';
import { exactDotRange, vectorStart, type VectorLayout } from '../dot-bounds.js';
import { SgemmDot } from '../float32.js';
import {
  floatArray, intArray, isFloatType, modelError, mulRange, need, rangeOfInfo, scaleRange, type OpSpec, type Operands,
  type TensorInfo,
} from '../op-spec.js';

/*
 * numpy matmul: batched, with broadcasting of the batch axes and 1-D operands promoted (and their axis removed from
 * the result). Integer operands are exact; float operands accumulate in float32 as MLAS's SGEMM does (float32.ts).
 */

const f32 = Math.fround;
const LIMIT = 2 ** 53;

export interface MatMulDims {
  batch: number[];
  aBatch: number[];
  bBatch: number[];
  M: number;
  K: number;
  N: number;
  out: number[];
}

export function matmulDims(node: Node, a: readonly number[], b: readonly number[]): MatMulDims {
  if (a.length === 0 || b.length === 0) throw modelError(node, 'MatMul operands must have rank >= 1');
  const a2 = a.length === 1 ? [1, a[0]] : [...a];
  const b2 = b.length === 1 ? [b[0], 1] : [...b];
  const M = a2[a2.length - 2];
  const K = a2[a2.length - 1];
  const N = b2[b2.length - 1];
  if (b2[b2.length - 2] !== K) throw modelError(node, `cannot multiply ${formatShape(a)} by ${formatShape(b)}`);
  const aBatch = a2.slice(0, -2);
  const bBatch = b2.slice(0, -2);
  const batch = broadcastShapes(aBatch, bBatch);
  if (!batch) throw modelError(node, `batch axes of ${formatShape(a)} and ${formatShape(b)} do not broadcast`);
  const out = [...batch];
  if (a.length > 1) out.push(M);
  if (b.length > 1) out.push(N);
  return { batch, aBatch, bBatch, M, K, N, out };
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/**
 * out[batch, m, n] = sum_k a[batch, m, k] * b[batch, k, n] (row-major operands, broadcast batches). In float mode the
 * operands are read as float32 (rounded as they are read: a copy of each operand per call was most of a decoder
 * step's calibration time at long contexts, its caches the B of the attention), and alpha and per-output initial
 * values (Gemm's beta*C) enter as MLAS's SGEMM applies them.
 */
export function matmulInto(
  d: MatMulDims, a: ArrayLike<number>, b: ArrayLike<number>, float: boolean, out: Float64Array, alpha = 1, init?: Float64Array,
): void {
  const { M, K, N } = d;
  const am = broadcastIndex(d.aBatch, d.batch);
  const bm = broadcastIndex(d.bBatch, d.batch);
  const big = !float && maxAbs(a) * maxAbs(b) * K >= LIMIT;
  const dot = new SgemmDot();
  const nb = sizeOf(d.batch);
  for (let t = 0; t < nb; t++) {
    const aOff = am[t] * M * K;
    const bOff = bm[t] * K * N;
    const oOff = t * M * N;
    if (!float && !big) {
      // Exact integers (every partial sum below 2^53): any order gives the same sums, so rows of B are walked in
      // memory order (a column of B per output was most of a decoder's quantization time, bias correction's runs).
      for (let m = 0; m < M; m++) {
        const row = oOff + m * N;
        out.fill(0, row, row + N);
        for (let k = 0; k < K; k++) {
          const av = a[aOff + m * K + k];
          if (av === 0) continue;
          const bRow = bOff + k * N;
          for (let n = 0; n < N; n++) out[row + n] += av * b[bRow + n];
        }
      }
      continue;
    }
    for (let m = 0; m < M; m++) {
      for (let n = 0; n < N; n++) {
        let acc = 0;
        if (float) {
          dot.reset(alpha, init?.[oOff + m * N + n]);
          for (let k = 0; k < K; k++) dot.add(f32(a[aOff + m * K + k]), f32(b[bOff + k * N + n]));
          acc = dot.result();
        } else if (!big) for (let k = 0; k < K; k++) acc += a[aOff + m * K + k] * b[bOff + k * N + n];
        else {
          let s = 0n;
          for (let k = 0; k < K; k++) s += BigInt(a[aOff + m * K + k]) * BigInt(b[bOff + k * N + n]);
          acc = Number(s);
        }
        out[oOff + m * N + n] = acc;
      }
    }
  }
}

export function matmulArrays(node: Node, a: NDArray, b: NDArray): NDArray {
  const d = matmulDims(node, a.shape, b.shape);
  const float = isFloatType(a.dtype) || isFloatType(b.dtype);
  const out = float ? floatArray(d.out) : intArray(d.out);
  matmulInto(d, a.data, b.data, float, out.data);
  return out;
}

/**
 * Range of a sum of K products a*b. When one operand is constant, its columns (or rows) bound the sum per output
 * exactly; otherwise K times the interval product.
 */
export function dotRange(a: TensorInfo, b: TensorInfo, d: MatMulDims): IntRange {
  const { K, N } = d;
  const ar = rangeOfInfo(a);
  const br = rangeOfInfo(b);
  if (!a.data && !b.data) return scaleRange(mulRange(ar, br), K);
  const bConst = b.data !== undefined;
  const c = (bConst ? b.data : a.data) as NDArray;
  const r = bConst ? ar : br;
  const data = c.data;
  // b is (.., K, N): vector v = (batch, n) starts at batch * K * N + n and strides by N along k; a is (.., M, K):
  // contiguous rows (dot-bounds.ts sums them by sign where that is exact).
  const layout: VectorLayout = bConst ? { rows: false, N } : { rows: true };
  const exact = exactDotRange(data, data.length / K, K, layout, r);
  if (exact) return exact;
  let min = Infinity;
  let max = -Infinity;
  for (let v = 0; v < data.length / K; v++) {
    let lo = 0;
    let hi = 0;
    const step = bConst ? N : 1;
    for (let k = 0, at = vectorStart(v, K, layout); k < K; k++, at += step) {
      const cv = data[at];
      const p = cv * r.min;
      const q = cv * r.max;
      lo += p < q ? p : q;
      hi += p < q ? q : p;
    }
    min = Math.min(min, lo);
    max = Math.max(max, hi);
  }
  return { min, max };
}

/**
 * dotRange for Gemm when the constant operand dotRange would read (b if constant, else a) is stored transposed,
 * (N, K) or (K, M), read as stored; undefined where the exact sums do not apply (the caller transposes it and asks
 * dotRange). d: the dims of the product of the transposed operands.
 */
export function transposedConstantDotRange(a: TensorInfo, b: TensorInfo, d: MatMulDims): IntRange | undefined {
  const c = b.data ?? a.data;
  if (!c) return undefined;
  const layout: VectorLayout = b.data ? { rows: true } : { rows: false, N: d.M };
  return exactDotRange(c.data, c.data.length / d.K, d.K, layout, rangeOfInfo(b.data ? a : b));
}

export const matmulOp: OpSpec = {
  ops: ['MatMul'],
  shape: (node, inputs) => [matmulDims(node, need(node, inputs, 0).shape, need(node, inputs, 1).shape).out],
  range(node, inputs: Operands<TensorInfo>) {
    const a = need(node, inputs, 0);
    const b = need(node, inputs, 1);
    return [dotRange(a, b, matmulDims(node, a.shape, b.shape))];
  },
  evaluate: (node, inputs) => [matmulArrays(node, need(node, inputs, 0), need(node, inputs, 1))],
};
