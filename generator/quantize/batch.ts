import { cloneGraph, type Graph } from '../ir/graph.js';
import { inferGraph } from '../ir/infer.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';
import { runReference } from '../reference/interpreter.js';

/*
 * Runs a batch-1 model on many samples at once. The reference interpreter redoes per-call work on constants (float32
 * copies and transposes of weight matrices, range checks), which for an MLP costs more than the products; one call
 * per 64 samples amortises it. A model is run batched only when the batch travels through it: every tensor the
 * caller reads must be [B, ...its batch-1 shape] (a Reshape to a constant [1, -1] fails this and runs per sample).
 * Results are the same as per sample: the reference computes every output element independently of the batch.
 */

/** Samples per run. */
export const CHUNK = 64;

function withBatch(g: Graph, batch: number): Graph {
  const out = cloneGraph(g);
  for (const name of out.inputs) out.tensors.get(name)!.shape[0] = batch;
  return out;
}

/** The graph at batch B, or undefined when some read tensor does not carry the batch on axis 0. */
export function batchedGraph(g: Graph, batch: number, read: string[]): Graph | undefined {
  if (batch === 1) return g;
  try {
    const one = inferGraph(g);
    const many = inferGraph(withBatch(g, batch));
    const ok = read.every((t) => {
      const a = one.tensors.get(t)?.shape ?? [];
      const b = many.tensors.get(t)?.shape ?? [];
      return a[0] === 1 && b[0] === batch && a.length === b.length && a.every((d, i) => i === 0 || d === b[i]);
    });
    return ok ? withBatch(g, batch) : undefined;
  } catch {
    return undefined;
  }
}

/** Batch-1 arrays stacked along axis 0. */
export function concat(arrays: NDArray[]): NDArray {
  const first = arrays[0];
  const out = ndarray(first.dtype, [arrays.length * first.shape[0], ...first.shape.slice(1)]);
  arrays.forEach((a, i) => out.data.set(a.data, i * a.data.length));
  return out;
}

/** Sample i of a batched array (a view, no copy). */
export function sampleOf(a: NDArray, i: number, count: number): NDArray {
  const n = a.data.length / count;
  return { dtype: a.dtype, shape: [1, ...a.shape.slice(1)], data: a.data.subarray(i * n, (i + 1) * n) };
}

/**
 * Runs `g` on every sample (each one array per graph input, batch 1), `CHUNK` at a time where the model allows,
 * and hands each run's values (tensors listed in `read` hold `count` samples along axis 0) to `visit`, in order.
 */
export function runBatched(g: Graph, samples: NDArray[][], read: string[], visit: (values: Map<string, NDArray>, count: number) => void): void {
  const graphs = new Map<number, Graph | undefined>();
  const graphFor = (n: number): Graph | undefined => {
    if (!graphs.has(n)) graphs.set(n, batchedGraph(g, n, read));
    return graphs.get(n);
  };
  for (let s = 0; s < samples.length; s += CHUNK) {
    const part = samples.slice(s, s + CHUNK);
    const bg = part.length === 1 ? undefined : graphFor(part.length);
    if (bg) visit(runReference(bg, g.inputs.map((_, i) => concat(part.map((p) => p[i])))), part.length);
    else for (const p of part) visit(runReference(g, p), 1);
  }
}
