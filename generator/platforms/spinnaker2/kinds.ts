import { GenError } from '../../errors.js';
import { tensorOf } from '../../ir/graph.js';
import type { KernelDef } from '../../kernels/types.js';
import { eightBit } from './gemm-geometry.js';
import { elementwiseNest } from './elementwise.js';
import { rowsAccepts } from './rows.js';
import { convReason, poolReason } from './conv-geometry.js';
import { movementReason } from './movement.js';
import { reduceReason } from './reduce.js';
import { indexedReason } from './indexed.js';

/**
 * The layer types of the SpiNNaker2 firmware, as the pipeline's kernel selection sees them: each accepts the nodes
 * its worker code runs. There are no templates: the firmware is fixed and the layer lives in the DRAM image
 * (backend.ts encodes it), so `view` is never called.
 */
function layerKind(name: string, accepts: KernelDef['accepts']): KernelDef {
  return {
    name,
    template: '',
    engine: 'cores',
    accepts,
    view: () => { throw new GenError('internal', `spinnaker2 layer '${name}' has no template`); },
  };
}

export const S2_GEMM = layerKind('s2-gemm', (node, g) => {
  if (node.op !== 'Gemm' && node.op !== 'MatMul') return 'not a Gemm or MatMul';
  const [a, b] = node.inputs.slice(0, 2).map((n) => tensorOf(g, n));
  if (!eightBit(a) || !eightBit(b)) return `the MLA multiplies 8-bit operands; '${eightBit(a) ? b.name : a.name}' is ${eightBit(a) ? b.dtype : a.dtype}`;
  if (a.shape.length < 2 || b.shape.length < 2) return 'MatMul of 1-D operands';
  const c = node.inputs[2] ? tensorOf(g, node.inputs[2]) : undefined;
  if (c && !c.data) return `the bias '${c.name}' is not a constant`;
  return null;
});

/** Any fused elementwise expression (Add, Sub, Mul, RequantShift, iHardswish, ...): the core runs its bytecode. */
export const S2_ELEMENTWISE = layerKind('s2-elementwise', (node, g) => {
  if (node.op !== 'Elementwise' || !node.expr) return 'not an elementwise expression';
  try {
    elementwiseNest(node, g);
  } catch (e) {
    if (e instanceof GenError) return e.reason;
    throw e;
  }
  return null;
});

/** The integer softmaxes, norms and ArgMax, row by row (rows.ts). */
export const S2_ROWS = layerKind('s2-rows', rowsAccepts);

/** Conv on the MLA over an im2col buffer the worker builds (conv-plan.ts). */
export const S2_CONV = layerKind('s2-conv', convReason);

/** MaxPool of 8-bit values: the conv layer in its pool mode (the max of each im2col column); wider values: wide-maxpool.ts. */
export const S2_POOL = layerKind('s2-pool', poolReason);

/** Data movement (Transpose, Slice, Concat, Gather, Pad): strided copies through the worker's SRAM (movement.ts). */
export const S2_MOVE = layerKind('s2-move', movementReason);

/**
 * ReduceSum / ReduceMean over a contiguous group of axes: the row layer's column reduction (reduce.ts); other axis
 * sets reach it behind a Transpose (transpose-reductions.ts).
 */
export const S2_REDUCE = layerKind('s2-reduce', reduceReason);

/**
 * Gather by run-time indices and CacheWrite at a run-time position: the worker reads the index from data memory
 * (indexed.ts). CacheWrite is in place as on the core platforms: its output shares the cache's buffer when nothing
 * else reads the cache.
 */
export const S2_INDEXED: KernelDef = { ...layerKind('s2-indexed', indexedReason), inPlace: true };

export const S2_KINDS: KernelDef[] = [S2_GEMM, S2_CONV, S2_POOL, S2_ELEMENTWISE, S2_ROWS, S2_REDUCE, S2_MOVE, S2_INDEXED];
