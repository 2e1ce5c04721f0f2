import { GenError, quoted } from '../errors.js';
import { isIntType } from '../ir/dtype.js';
import { cloneGraph, type Graph, type Node } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { freshTensorName } from '../frontend/edit.js';
import { downstreamOf, producerThroughIdentity, tensorThroughIdentity } from '../ir/state.js';
import { DecoderSteps } from '../reference/generate.js';
import type { Observed } from './clipping.js';
import { scaleFor, WEIGHT_MAX } from './fixed-point.js';
import type { StatefulGraph } from './stateful.js';
import type { Unit } from './types.js';

/*
 * The parallel prompt pass (`gen quantize step.onnx --prompt-graph prompt.onnx`, docs/llm.md): the exporter's prompt
 * graph (ids [1, P] -> logits [1, P, V] and present.* [.., P, ..], the caches' first P rows) joins the stateful step
 * graph as a second phase of one graph, so one firmware holds both and they share weights and caches:
 *   - its tensors and nodes take the prefix `prompt.` (an initializer equal to the step's keeps the step's name);
 *   - each present.X output becomes `prompt.present.X` = CacheWrite(cache X, value, 0): rows 0..P-1 of the step's
 *     cache, written in place by firmware like the step's one row (ir/state.ts tells the two writes apart by their
 *     position: a constant here, the position input in the step);
 *   - its logits become `prompt.logits`, and after lowering an ArgMax `prompt.next_token` [1, P] chooses on chip.
 * Calibration observes the pass over the first P tokens of each window. The values it writes into a cache, and its
 * logits, take the step's observations of the same tensors, so both phases quantize them on one grid (the cache
 * holds one grid; the sampler reads one logits scale); params.ts refuses a cache written on two grids.
 */

export const PROMPT_PREFIX = 'prompt.';

function sameData(a: NDArray, b: NDArray): boolean {
  if (a.dtype !== b.dtype || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i])) return false;
  for (let i = 0; i < a.data.length; i++) if (a.data[i] !== b.data[i]) return false;
  return true;
}

/** The prompt graph's one integer input (token ids [1, P]) and its length P. */
function promptIds(prompt: Graph): { ids: string; length: number } {
  const ints = prompt.inputs.filter((i) => isIntType(prompt.tensors.get(i)?.dtype ?? 'float32'));
  const t = ints.length === 1 && prompt.inputs.length === 1 ? prompt.tensors.get(ints[0]) : undefined;
  const length = t ? t.shape.reduce((a, b) => a * b, 1) : 0;
  if (!t || !(length > 0) || t.shape.some((d) => !(d > 0))) {
    throw new GenError('input', 'the prompt graph must have one input: token ids of a static shape [1, P]', { file: prompt.source });
  }
  return { ids: ints[0], length };
}

export interface PromptMerge {
  graph: Graph;
  /** The pass's token ids input, its logits, and P. */
  ids: string;
  logits: string;
  length: number;
  /** The float tensors whose observations the pass takes from the step's: pass tensor -> step tensor. */
  shared: Map<string, string>;
  /** The pass's constants that are rows of a position table the step gathers: constant -> table (positionTables). */
  tables: Map<string, string>;
}

/**
 * The step graph (stateful, its graph with constants folded) with the prompt graph joined as its prompt pass. Its
 * state pairs the step's cache inputs with its present outputs; the prompt graph's outputs of the same names are their
 * first rows.
 */
export function joinPromptPass(stateful: StatefulGraph, prompt: Graph): PromptMerge {
  const { graph: step, state } = stateful;
  const g = cloneGraph(step);
  const { ids, length } = promptIds(prompt);
  const rename = new Map<string, string>();
  const nameOf = (t: string): string => {
    if (!t) return t;
    let n = rename.get(t);
    if (n !== undefined) return n;
    const src = prompt.tensors.get(t);
    const mine = g.tensors.get(t);
    if (src?.data && mine?.data && sameData(src.data, mine.data)) n = t;
    else {
      // A cache's rows: `prompt.<name>` is the cache after the pass's write (below).
      n = freshTensorName(g, `${PROMPT_PREFIX}${t}${state.some((p) => p.output === t) ? '.rows' : ''}`);
      g.tensors.set(n, { ...(src ?? { name: t, dtype: 'float32', shape: [] }), name: n, shape: [...(src?.shape ?? [])] });
    }
    rename.set(t, n);
    return n;
  };
  const nodeNames = new Set(g.nodes.map((n) => n.name));
  const nodes: Node[] = prompt.nodes.map((n) => {
    let name = `${PROMPT_PREFIX}${n.name}`;
    for (let k = 1; nodeNames.has(name); k++) name = `${PROMPT_PREFIX}${n.name}_${k}`;
    nodeNames.add(name);
    return { ...n, name, inputs: n.inputs.map(nameOf), outputs: n.outputs.map(nameOf), attrs: { ...n.attrs } };
  });
  g.nodes.push(...nodes);
  const promptInput = nameOf(ids);
  g.inputs.push(promptInput);

  const shared = new Map<string, string>();
  // The tensor a unit computes: through Identity nodes back to the first other producer's output.
  const sourceOf = (t: string): string => tensorThroughIdentity(g, t);
  const others: string[] = [];
  const zero = freshTensorName(g, `${PROMPT_PREFIX}cache_row0`);
  g.tensors.set(zero, { name: zero, dtype: 'int64', shape: [1], data: { dtype: 'int64', shape: [1], data: new Float64Array([0]) } });
  for (const o of prompt.outputs) {
    const pair = state.find((p) => p.output === o);
    if (!pair) {
      others.push(o);
      continue;
    }
    const write = producerThroughIdentity(g, pair.output);
    if (write?.op !== 'CacheWrite') throw new GenError('internal', `the step's ${quoted(o)} is not a CacheWrite`);
    const cache = g.tensors.get(pair.input)!;
    const axis = write.attrs.axis?.kind === 'int' ? write.attrs.axis.value : 0;
    const rows = prompt.tensors.get(o)?.shape[axis];
    if (rows !== undefined && rows > 0 && rows > cache.shape[axis]) {
      throw new GenError('input', `the prompt graph's ${quoted(o)} has ${rows} rows, more than the context of ${cache.shape[axis]}`, { file: prompt.source });
    }
    const value = nameOf(o);
    const out = freshTensorName(g, `${PROMPT_PREFIX}${o}`);
    g.tensors.set(out, { name: out, dtype: 'float32', shape: [] });
    g.nodes.push({ name: `${out}_write`, op: 'CacheWrite', domain: '', inputs: [pair.input, value, zero], outputs: [out], attrs: { axis: { kind: 'int', value: axis } } });
    g.outputs.push(out);
    shared.set(sourceOf(value), sourceOf(write.inputs[1]));
  }
  const missing = state.filter((p) => !prompt.outputs.includes(p.output));
  if (missing.length > 0) {
    throw new GenError('input', `the prompt graph has no output ${quoted(missing[0].output)} (the first rows of the step's cache ${quoted(missing[0].input)})`, { file: prompt.source });
  }
  if (others.length !== 1) {
    throw new GenError('input', `the prompt graph must have one output besides the caches (the logits), not ${others.length}`, { file: prompt.source });
  }
  const logits = nameOf(others[0]);
  g.outputs.push(logits);
  const stepLogits = step.outputs.find((o) => !state.some((p) => p.output === o));
  if (stepLogits) shared.set(sourceOf(logits), sourceOf(stepLogits));
  // Value infos of the exported shapes: inference recomputes them (as makeStateful does).
  for (const n of nodes) for (const o of n.outputs) if (!g.tensors.get(o)?.data) g.tensors.get(o)!.shape = [];
  const tables = positionTables(g, nodes, length, stateful.pos);
  for (const [mine, theirs] of correspondingTensors(g, nodes, stateful, promptInput)) if (!shared.has(mine)) shared.set(mine, theirs);
  return { graph: g, ids: promptInput, logits, length, shared, tables };
}

/**
 * Exporters fold the prompt graph's position tables (rotary cos/sin) into constants: rows 0..P-1 of the tables the
 * step gathers by its position. Such a constant is to be quantized on its table's scale (max |table| / 127, as the
 * step's Gather quantizes the table), not on its own rows' largest value, so that the pass multiplies by the very
 * int8 values and requantizes with the very multiplier the step does: constant name -> the step's table.
 */
function positionTables(g: Graph, passNodes: Node[], length: number, position: string): Map<string, string> {
  const tables = new Map<string, string>();
  const gathered = g.nodes.filter((n) => n.op === 'Gather' && n.inputs[1] === position && g.tensors.get(n.inputs[0])?.data && (n.attrs.axis?.kind !== 'int' || n.attrs.axis.value === 0));
  for (const c of new Set(passNodes.flatMap((n) => n.inputs))) {
    const t = g.tensors.get(c)?.data;
    if (!t || t.dtype !== 'float32' || t.shape.length !== 2 || t.shape[0] !== length) continue;
    const source = gathered.find((m) => {
      const table = g.tensors.get(m.inputs[0])!.data!;
      return table.shape.length === 2 && table.shape[1] === t.shape[1] && table.shape[0] >= length && t.data.every((v, i) => v === table.data[i]);
    });
    if (source) tables.set(c, source.inputs[0]);
  }
  return tables;
}

/**
 * The pass's tensors that compute what a step's tensor computes, row for row, so that both take one grid (the step's
 * observations): matched node by node in order, a pass node to the first unmatched step node of its op whose
 * activation inputs are the matched counterparts of its own and whose other inputs are constants or position tables
 * on both sides. Where the step reads a cache the pass reads the rows it computed (a CacheWrite's result stands for
 * its value), and the pass's causal mask and the step's PositionMask leave the scores as they are. A wrong match
 * would only choose a grid from other observations: correctness never depends on it (the caches' and the logits'
 * grids are checked in params.ts).
 */
function correspondingTensors(g: Graph, passNodes: Node[], stateful: StatefulGraph, passIds: string): Map<string, string> {
  const { graph: step, state, ids: stepIds } = stateful;
  const producer = new Map<string, Node>();
  for (const n of step.nodes) for (const o of n.outputs) producer.set(o, n);
  const through = (t: string): string => {
    for (;;) {
      const n = producer.get(t);
      if (n?.op === 'CacheWrite') t = n.inputs[1];
      else if (n?.op === 'PositionMask' || n?.op === 'Identity') t = n.inputs[0];
      else return t;
    }
  };
  const stepLive = new Set<string>([...state.map((p) => p.input), stepIds]);
  for (const n of step.nodes) if (n.inputs.some((i) => stepLive.has(i))) for (const o of n.outputs) stepLive.add(o);
  const passLive = downstreamOf(g, passIds);
  const map = new Map<string, string>([[passIds, stepIds]]);
  const used = new Set<Node>();
  const byOp = new Map<string, Node[]>();
  for (const n of step.nodes) byOp.set(n.op, [...(byOp.get(n.op) ?? []), n]);
  for (const n of passNodes) {
    const live = n.inputs.filter((i) => passLive.has(i));
    const fits = (m: Node): boolean => !used.has(m) && m.inputs.length === n.inputs.length && live.length > 0 && n.inputs.every((a, i) => {
      const b = m.inputs[i];
      if (passLive.has(a)) return map.get(a) === through(b);
      return a === b || !stepLive.has(b);
    });
    const m = (byOp.get(n.op) ?? []).find(fits);
    if (m) {
      used.add(m);
      n.outputs.forEach((o, k) => map.set(o, through(m.outputs[k])));
    } else if (live.length === 1 && n.op !== 'Gather' && map.has(live[0]) && n.inputs.length === 2) {
      // A mask the step applies elsewhere (its PositionMask, looked through above): the scores as they were.
      if (n.op === 'Add' || n.op === 'Where') map.set(n.outputs[0], map.get(live[0])!);
    } else if (n.op === 'Identity' && map.has(n.inputs[0])) {
      map.set(n.outputs[0], map.get(n.inputs[0])!);
    }
  }
  map.delete(passIds);
  return map;
}

/** The pass's tensors among `points` (the rest are observed by the steps). */
export function promptPoints(g: Graph, ids: string, points: string[]): Set<string> {
  const mine = downstreamOf(g, ids);
  return new Set(points.filter((p) => mine.has(p)));
}

/** Runs the prompt pass over the first P tokens of each window ([N, L] ids; shorter ones padded with 0), zero caches. */
export function runPrompts(g: Graph, windows: NDArray, read: (values: Map<string, NDArray>) => void): void {
  const [count, length] = windows.shape.length === 2 ? windows.shape : [1, windows.shape[windows.shape.length - 1]];
  for (let w = 0; w < count; w++) {
    const ids = Array.from(windows.data.subarray(w * length, (w + 1) * length));
    read(new DecoderSteps(g).prefill(ids).values!);
  }
}

/** The pass's observations with the shared tensors' taken from the step's. */
export function shareObservations(observed: Map<string, Observed>, shared: Map<string, string>): void {
  for (const [mine, step] of shared) {
    const o = observed.get(step);
    if (o && observed.has(mine)) observed.set(mine, o);
  }
}

/** The pass's next tokens on chip: ArgMax of its logits' last axis, [1, P]. */
export function appendPromptNext(g: Graph, logits: string): string {
  const name = freshTensorName(g, `${PROMPT_PREFIX}next_token`);
  g.tensors.set(name, { name, dtype: 'int32', shape: g.tensors.get(logits)!.shape.slice(0, -1) });
  g.nodes.push({ name: `${name}_argmax`, op: 'ArgMax', domain: '', inputs: [logits], outputs: [name], attrs: { axis: { kind: 'int', value: -1 }, keepdims: { kind: 'int', value: 0 } } });
  g.outputs.push(name);
  return name;
}

/**
 * One copy of each constant: the pass's integer weights equal the step's (the same float weights and grids), so
 * their initializers fold into the step's and the firmware holds each weight once.
 */
export function shareConstants(g: Graph): number {
  const byKey = new Map<string, string[]>();
  const keyOf = (d: NDArray): string => {
    let h = 0;
    for (let i = 0; i < d.data.length; i++) h = (Math.imul(h, 31) + (d.data[i] | 0)) | 0;
    return `${d.dtype}|${d.shape.join('x')}|${d.data.length}|${h}`;
  };
  const replace = new Map<string, string>();
  for (const t of g.tensors.values()) {
    if (!t.data || g.inputs.includes(t.name)) continue;
    const key = keyOf(t.data);
    const same = byKey.get(key) ?? [];
    const first = same.map((n) => g.tensors.get(n)!).find((u) => u.dtype === t.dtype && sameData(u.data!, t.data!));
    if (first && t.name.startsWith(PROMPT_PREFIX) && !first.name.startsWith(PROMPT_PREFIX)) replace.set(t.name, first.name);
    else byKey.set(key, [...same, t.name]);
  }
  for (const n of g.nodes) n.inputs = n.inputs.map((i) => replace.get(i) ?? i);
  for (const t of replace.keys()) g.tensors.delete(t);
  return replace.size;
}

/** The pass's products with rows of a position table take the table's int8 scale, the one the step's Gather gives it. */
export function tableScales(units: Unit[], tables: Map<string, string>, g: Graph, pow2: boolean): void {
  for (const u of units) {
    if (u.kind !== 'mulconst') continue;
    const table = tables.get(u.node.inputs.find((i) => i !== u.x) ?? '');
    const data = table ? g.tensors.get(table)?.data : undefined;
    if (data) u.cScale = scaleFor(data.data.reduce((m, v) => Math.max(m, Math.abs(v)), 0), WEIGHT_MAX, pow2);
  }
}
