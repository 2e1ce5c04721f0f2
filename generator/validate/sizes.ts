import { bytesOf } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { formatShape } from '../ir/ndarray.js';
import { GenError } from '../errors.js';

/*
 * The largest tensor any platform could ever hold: 64 MiB, the largest single memory of every platform firmgen
 * knows (Spinnaker2's DRAM; Siracusa's largest is its 16 MiB L3, the generic target has 16 MiB of RAM). A tensor lives
 * in one memory, so a bigger one can never become firmware, on any platform; rejecting it here keeps huge or
 * infinite sizes (a stride of 0, pads of 1e9, a dimension of 2^31) out of the planners, where they cost minutes of
 * search or all of the host's memory before failing. test/cli/model-domain.test.ts checks the bound against
 * every platform's memories. A dimension is at most the element count of such a tensor of bytes.
 */
export const MAX_TENSOR_BYTES = 64 * 1024 * 1024;
export const MAX_DIM = MAX_TENSOR_BYTES;

function tooBig(t: Tensor, node: Node | undefined, reason: string): GenError {
  return new GenError('model', reason, node ? { node: node.name, op: node.op, tensor: t.name } : { tensor: t.name });
}

/**
 * Throws when a tensor's shape has a dimension that is not a size or its bytes exceed MAX_TENSOR_BYTES. Tensors the
 * firmware computes (`computed`) are not empty either: a dimension of 0 leaves a kernel nothing to do and divides
 * by zero where it averages (constants may be empty lists).
 */
export function checkTensorSize(t: Tensor, node?: Node, computed = false): void {
  let elements = 1;
  const least = computed ? 1 : 0;
  for (const d of t.shape) {
    // -1 marks a dimension the file leaves open (inference fills it in later).
    if (d === -1 && !computed) continue;
    if (!Number.isInteger(d) || d < least || d > MAX_DIM) {
      throw tooBig(t, node, `shape ${formatShape(t.shape)}: dimension ${d} is not a size from ${least} to ${MAX_DIM}`);
    }
    elements *= d;
  }
  const bytes = elements * bytesOf(t.dtype);
  if (bytes > MAX_TENSOR_BYTES) {
    throw tooBig(t, node, `shape ${formatShape(t.shape)} needs ${bytes} bytes, more than the largest memory of any platform (${MAX_TENSOR_BYTES} bytes)`);
  }
}

/** Every tensor a node writes, after inference (graph inputs too, with no node). */
export function checkSizes(g: Graph): void {
  for (const name of g.inputs) {
    const t = g.tensors.get(name);
    if (t) checkTensorSize(t, undefined, true);
  }
  for (const n of g.nodes) {
    for (const o of n.outputs) {
      const t = o ? g.tensors.get(o) : undefined;
      if (t) checkTensorSize(t, n, true);
    }
  }
}
