import { attrInt } from '../../ir/attrs.js';
import { tensorOf } from '../../ir/graph.js';
import type { Graph, Node } from '../../ir/graph.js';
import { typeNames, valueRange } from '../../kernels/common.js';
import type { KernelDef } from '../../kernels/types.js';
import { loopWsTiles } from './tiles.js';

/** The array's side (HARDWARE.md "Gemmini": 16 x 16). */
export const DIM = 16;

interface Product {
  A: string;
  B: string;
  bias?: string;
  Y: string;
  M: number;
  K: number;
  N: number;
  transA: boolean;
  transB: boolean;
  /** Bias rows: 0 none, 1 one row for every output row (stride 0), M a row per output row. */
  biasRows: number;
  /** The bias is int8 (loop_ws "low D"), else int32. */
  lowD: boolean;
  /** The result is int8 (mvout at scale 1), else int32 (raw). */
  yInt8: boolean;
}

/** The matrix product a node asks for, or why the array cannot run it. */
function productOf(node: Node, g: Graph): Product | string {
  if (node.op !== 'Gemm' && node.op !== 'MatMul') return 'not a Gemm or MatMul';
  const A = tensorOf(g, node.inputs[0]);
  const B = tensorOf(g, node.inputs[1]);
  const Y = tensorOf(g, node.outputs[0]);
  if (A.shape.length !== 2 || B.shape.length !== 2) return 'the array takes 2-D operands';
  // The array multiplies signed bytes (HARDWARE.md: int8 inputs); uint8 operands stay on the host core.
  if (A.dtype !== 'int8' || B.dtype !== 'int8') return 'operands are not both int8';
  // int32 sums moved out raw; or int8 when the result's range fits it (mvout at scale 1.0 is then exact: every sum is
  // an integer inside int8, which float32 holds and round-half-even keeps). The requantization is a separate node
  // the host core runs (platform.ts says why); int16 results have no mvout form and stay on the host.
  if (Y.dtype !== 'int32' && Y.dtype !== 'int8') return 'the output is neither int32 nor int8';
  const isGemm = node.op === 'Gemm';
  if (isGemm && (attrInt(node, 'alpha', 1) !== 1 || attrInt(node, 'beta', 1) !== 1)) return 'alpha or beta is not 1';
  const transA = isGemm && attrInt(node, 'transA', 0) !== 0;
  const transB = isGemm && attrInt(node, 'transB', 0) !== 0;
  // config_ex's weight-stationary dataflow transposes A or B, not both (gemmini.h; the emulator faults on it).
  if (transA && transB) return 'A and B both transposed (the weight-stationary array transposes one of them)';
  const M = transA ? A.shape[1] : A.shape[0];
  const K = transA ? A.shape[0] : A.shape[1];
  const N = transB ? B.shape[0] : B.shape[1];
  let biasRows = 0;
  // Gemm's C, or the bias fold-bias-add.ts gives a MatMul as its third input.
  const biasName = node.inputs[2] ? node.inputs[2] : undefined;
  if (biasName) {
    const C = tensorOf(g, biasName);
    // D comes in as int32 rows, or as int8 rows the array widens (loop_ws low D).
    if (C.dtype !== 'int32' && C.dtype !== 'int8') return 'the bias is neither int32 nor int8';
    const s = C.shape;
    if (s.length === 1 && s[0] === N) biasRows = 1;
    else if (s.length === 2 && s[0] === 1 && s[1] === N) biasRows = 1;
    else if (s.length === 2 && s[0] === M && s[1] === N) biasRows = M;
    else return 'the bias is neither one row nor one row per output row';
  }
  // The array's accumulators wrap at 32 bits as the C int32 sums may not: take only products whose sums fit.
  const ar = valueRange(A);
  const br = valueRange(B);
  let bound = K * Math.max(Math.abs(ar.min), Math.abs(ar.max)) * Math.max(Math.abs(br.min), Math.abs(br.max));
  if (biasName) {
    const cr = valueRange(tensorOf(g, biasName));
    bound += Math.max(Math.abs(cr.min), Math.abs(cr.max));
  }
  if (bound > 2 ** 31 - 1) return 'the accumulator could leave int32';
  return { A: A.name, B: B.name, bias: biasName, Y: Y.name, M, K, N, transA, transB, biasRows, lowD: biasName !== undefined && tensorOf(g, biasName).dtype === 'int8', yInt8: Y.dtype === 'int8' };
}

/**
 * A 2-D int8 matrix product (Gemm with alpha = beta = 1, or MatMul) with an int32 result on Gemmini's array: the
 * product is cut into tiles of I x J x K blocks of 16 that fit the scratchpad and accumulator (tiles.ts, in the manner
 * of gemmini.h's tiled_matmul_auto), each run by one loop_ws command in the weight-stationary dataflow, the bias as the
 * D operand of a tile's first k step, the int32 sums moved out raw at its last; a fence before the host reads them.
 */
export const gemminiMatmulKernel: KernelDef = {
  name: 'gemmini-matmul',
  template: 'gemmini-matmul',
  engine: 'accelerator',
  accepts(node, g) {
    const p = productOf(node, g);
    return typeof p === 'string' ? p : null;
  },
  view({ node, graph }) {
    const p = productOf(node, graph) as Product;
    const blocks = { I: Math.ceil(p.M / DIM), J: Math.ceil(p.N / DIM), K: Math.ceil(p.K / DIM) };
    const tile = loopWsTiles(blocks);
    return {
      args: [
        { field: 'a', tensor: p.A, dtype: 'int8', write: false },
        { field: 'b', tensor: p.B, dtype: 'int8', write: false },
        ...(p.bias ? [{ field: 'c', tensor: p.bias, dtype: p.lowD ? 'int8' as const : 'int32' as const, write: false }] : []),
        { field: 'y', tensor: p.Y, dtype: p.yInt8 ? 'int8' : 'int32', write: true },
      ],
      params: {
        M: p.M, K: p.K, N: p.N,
        I0: blocks.I, J0: blocks.J, K0: blocks.K,
        padI: blocks.I * DIM - p.M, padJ: blocks.J * DIM - p.N, padK: blocks.K * DIM - p.K,
        TI: tile.I, TJ: tile.J, TK: tile.K,
        // Strides in elements and the element offsets of block (i, k) of A and (k, j) of B, as their layouts say.
        strideA: p.transA ? p.M : p.K, strideB: p.transB ? p.K : p.N,
        aI: p.transA ? DIM : DIM * p.K, aK: p.transA ? DIM * p.M : DIM,
        bK: p.transB ? DIM : DIM * p.N, bJ: p.transB ? DIM * p.K : DIM,
        transA: p.transA, transB: p.transB,
        bias: p.bias !== undefined, biasStride: p.biasRows > 1 ? p.N : 0, biasI: p.biasRows > 1 ? DIM * p.N : 0,
        lowD: p.lowD, dBytes: p.lowD ? 1 : 4, c: typeNames(p.lowD ? 'int8' : 'int32'),
        fullC: !p.yInt8, cBytes: p.yInt8 ? 1 : 4,
        y: typeNames(p.yInt8 ? 'int8' : 'int32'), a: typeNames('int8'), b: typeNames('int8'),
      },
      macs: p.M * p.N * p.K,
    };
  },
  hal: {
    // The commands of firmgen_gemmini.h (RoCC on the board, the C model in host-model builds); the core otherwise.
    c: '#include "firmgen_hal.h"\n#include "gemmini/firmgen_gemmini.h"',
    as: "import { gemmini_config_ex, gemmini_config_ld, gemmini_config_st, gemmini_fence, gemmini_loop_ws } from './hal/gemmini';\nimport { region_chip_base } from './hal/chip';",
  },
};
