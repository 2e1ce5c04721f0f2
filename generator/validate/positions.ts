import { GenError, quoted } from '../errors.js';
import type { Graph, Node } from '../ir/graph.js';
import { sizeOf, type NDArray } from '../ir/ndarray.js';
import { modelError } from '../reference/op-spec.js';
import { opSpec } from '../reference/registry.js';

/*
 * Positions read at run time (a decoder step's CacheWrite, PositionMask, iSoftmax over the rows written so far) must
 * lie inside what the op holds (OpSpec.positions). The reference refuses any other value; the firmware cannot refuse
 * at run time and clamps it, so an out-of-range position would silently give another answer. Hence:
 *   - a constant position is checked when the model is loaded;
 *   - a graph input read as a position carries its limit (Tensor.limit, then firmware.json's tensor `limit`), and
 *     the sample inputs of `gen firmware` and the inputs of `gen run` are checked against it before anything runs.
 * A position computed inside the graph from an input is not checked here (its value is known only when run).
 */

interface Bound {
  limit: number;
  node: Node;
}

/** The tightest bound on each graph input read as a position, with the node that sets it. */
function inputBounds(g: Graph): Map<string, Bound> {
  const bounds = new Map<string, Bound>();
  for (const node of g.nodes) {
    const spec = opSpec(node.op);
    if (!spec?.positions) continue;
    const infos = node.inputs.map((n) => (n ? g.tensors.get(n) : undefined));
    for (const { operand, limit } of spec.positions(node, infos)) {
      const name = node.inputs[operand];
      const t = name ? g.tensors.get(name) : undefined;
      if (!name || !t) continue;
      if (sizeOf(t.shape) !== 1) throw modelError(node, `position operand ${quoted(name)} holds ${sizeOf(t.shape)} values; a position is one integer`);
      if (t.data) checkValues(t.data.data, limit, (v) => modelError(node, `position ${v} lies outside [0, ${limit})`));
      if (!g.inputs.includes(name)) continue;
      const seen = bounds.get(name);
      if (!seen || limit < seen.limit) bounds.set(name, { limit, node });
    }
  }
  return bounds;
}

/** The first value that is no position in [0, limit), if any (also `gen run`'s check of its inputs). */
export function outsidePosition(values: ArrayLike<number>, limit: number): number | undefined {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isInteger(v) || v < 0 || v >= limit) return v;
  }
  return undefined;
}

function checkValues(values: ArrayLike<number>, limit: number, fail: (v: number) => GenError): void {
  const v = outsidePosition(values, limit);
  if (v !== undefined) throw fail(v);
}

/**
 * Marks each graph input read as a position with its limit, checks constant positions, and checks the sample
 * inputs (the arrays of `file`, in the graph's input order) when given. Runs on the inferred graph.
 */
export function checkPositions(g: Graph, samples?: { arrays: NDArray[]; file: string }): void {
  for (const [name, { limit, node }] of inputBounds(g)) {
    g.tensors.get(name)!.limit = limit;
    const i = g.inputs.indexOf(name);
    const a = samples?.arrays[i];
    if (!a) continue;
    checkValues(a.data, limit, (v) => new GenError('input', `sample array ${i} (input ${quoted(name)}): position ${v} lies ` +
      `outside [0, ${limit}) of node ${quoted(node.name)} (${node.op})`, { file: samples.file }));
  }
}
