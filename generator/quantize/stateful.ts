import { GenError } from '../errors.js';
import { attrInt } from '../ir/attrs.js';
import { cloneGraph, consumersOf, type Graph, type Node } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { DecoderSteps } from '../reference/generate.js';
import { producerThroughIdentity, type StatePair } from '../ir/state.js';

/*
 * A decoder's step graph as exporters write it keeps its key/value caches outside: each step takes past.* [.., T, ..]
 * and returns present.* = Concat(past, new) [.., T+1, ..], T growing by one per step. On a chip the caches live in
 * memory at fixed addresses and a step appends one row. makeStateful turns the exported form into that one, for a
 * context of S positions:
 *   - each past input becomes a cache of S rows (static shape), each Concat(past, new) a CacheWrite(past, new, pos)
 *     writing the new rows at the position input: the output (the present) is the cache after the write;
 *   - every Softmax whose input depends on a cache (the attention scores) reads PositionMask(scores, pos), which hides
 *     the rows not written yet (index > pos): the scores over S rows then give exactly the exported Concat's result.
 * The pairs (past input, present output) are the graph's state: a generation loop feeds each present back as the
 * next past, and firmware keeps both in one buffer (generator: CacheWrite writes in place).
 */

export interface StatefulGraph {
  graph: Graph;
  state: StatePair[];
  /** The token-id input and the position input. */
  ids: string;
  pos: string;
}

/** The exported cache pairs: outputs made by Concat of a graph input and a new value. */
function concatPairs(g: Graph): { concat: Node; past: string; output: string }[] {
  const pairs = [];
  for (const o of g.outputs) {
    const c = producerThroughIdentity(g, o);
    if (c?.op !== 'Concat' || c.inputs.length !== 2 || !g.inputs.includes(c.inputs[0])) continue;
    pairs.push({ concat: c, past: c.inputs[0], output: o });
  }
  return pairs;
}

/** The graph's token-id and position inputs (the integer inputs other than caches): ids feed a Gather's indices. */
function idsAndPos(g: Graph, caches: Set<string>): { ids: string; pos: string } {
  const ints = g.inputs.filter((i) => !caches.has(i) && g.tensors.get(i)?.dtype !== 'float32');
  const consumers = consumersOf(g);
  const ids = ints.find((i) => (consumers.get(i) ?? []).some((n) => n.op === 'Gather' && n.inputs[1] === i && g.tensors.get(n.inputs[0])?.data));
  const pos = ints.find((i) => i !== ids);
  if (!ids || !pos || ints.length !== 2) {
    throw new GenError('unsupported', `a step graph with caches needs two integer inputs, token ids and the position (found ${ints.length})`, { file: g.source });
  }
  return { ids, pos };
}

/** Whether the model keeps caches the exporter's way (past.* inputs concatenated into present.* outputs). */
export function hasExportedCaches(g: Graph): boolean {
  return concatPairs(g).length > 0;
}

export function makeStateful(model: Graph, context: number): StatefulGraph {
  const g = cloneGraph(model);
  const pairs = concatPairs(g);
  if (pairs.length === 0) throw new GenError('input', 'no caches found: no graph output is Concat(graph input, new value)', { file: g.source });
  const { ids, pos } = idsAndPos(g, new Set(pairs.map((p) => p.past)));
  for (const { concat, past } of pairs) {
    const t = g.tensors.get(past)!;
    const axis = attrInt(concat, 'axis');
    const a = axis < 0 ? axis + t.shape.length : axis;
    t.shape = t.shape.map((d, i) => (i === a ? context : d === -1 ? 1 : d));
    concat.op = 'CacheWrite';
    concat.inputs = [past, concat.inputs[1], pos];
    concat.attrs = { axis: { kind: 'int', value: a } };
  }
  // Tensors downstream of a cache: the attention scores among them get the position mask before their Softmax.
  const derived = new Set(pairs.map((p) => p.concat.outputs[0]));
  const nodes: Node[] = [];
  for (const n of g.nodes) {
    if (n.op === 'Softmax' && derived.has(n.inputs[0])) {
      const masked = `${n.inputs[0]}_masked`;
      g.tensors.set(masked, { name: masked, dtype: 'float32', shape: [] });
      nodes.push({ name: `${n.name}_position_mask`, op: 'PositionMask', domain: '', inputs: [n.inputs[0], pos], outputs: [masked], attrs: {} });
      n.inputs = [masked, ...n.inputs.slice(1)];
    }
    nodes.push(n);
    if (n.inputs.some((i) => derived.has(i))) for (const o of n.outputs) derived.add(o);
  }
  g.nodes = nodes;
  // Value infos of the exported (dynamic) shapes would disagree with the static ones: inference recomputes them.
  for (const t of g.tensors.values()) if (!t.data && !g.inputs.includes(t.name)) t.shape = [];
  return { graph: g, state: pairs.map((p) => ({ input: p.past, output: p.output })), ids, pos };
}

/**
 * Runs a stateful graph over token windows ([N, L] ids) one token per step, caches fed back: window w's step t gets
 * token windows[w][t] at position t; caches start as zeros. `read` sees each step's values.
 */
export function runSequences(g: Graph, windows: NDArray, read: (values: Map<string, NDArray>, window: number, step: number) => void): void {
  const [count, length] = windows.shape.length === 2 ? windows.shape : [1, windows.shape[windows.shape.length - 1]];
  const context = new DecoderSteps(g).roles.context;
  if (length > context) throw new GenError('input', `windows of ${length} tokens exceed the context of ${context}`);
  for (let w = 0; w < count; w++) {
    const steps = new DecoderSteps(g);
    for (let t = 0; t < length; t++) read(steps.run(windows.data[w * length + t], t), w, t);
  }
}
