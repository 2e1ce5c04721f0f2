import { GenError } from '../errors.js';
import type { Graph, Node } from './graph.js';

/*
 * A decoder step graph's state (quantize/stateful.ts makes it): graph inputs that a CacheWrite updates into graph
 * outputs. A generation loop feeds each output back as the next step's input; firmware keeps both in one buffer.
 */

export interface StatePair {
  input: string;
  output: string;
}

/** The tensor that an Identity chain ending in t copies: t itself when no Identity makes it. */
export function tensorThroughIdentity(g: Graph, t: string): string {
  for (;;) {
    const n = g.nodes.find((m) => m.outputs.includes(t));
    if (!n || n.op !== 'Identity') return t;
    t = n.inputs[0];
  }
}

/** The producer of a tensor, looking through Identity nodes. */
export function producerThroughIdentity(g: Graph, t: string): Node | undefined {
  const source = tensorThroughIdentity(g, t);
  return g.nodes.find((m) => m.outputs.includes(source));
}

/**
 * Graph outputs that a CacheWrite of a graph input makes: at a run-time position (a graph input: the step's state)
 * or at a constant one (the prompt pass, prompt-pass.ts, writing rows 0..P-1 of the same caches).
 */
function cachePairs(g: Graph, atRunTime: boolean): StatePair[] {
  const pairs: StatePair[] = [];
  for (const o of g.outputs) {
    const c = producerThroughIdentity(g, o);
    if (c?.op === 'CacheWrite' && g.inputs.includes(c.inputs[0]) && g.inputs.includes(c.inputs[2]) === atRunTime) pairs.push({ input: c.inputs[0], output: o });
  }
  return pairs;
}

export function statePairs(g: Graph): StatePair[] {
  return cachePairs(g, true);
}

/** The step graph's roles: token ids, position, logits (the first other output), caches. Undefined: not a step graph. */
export interface StepRoles {
  ids: string;
  position: string;
  logits: string;
  /** The next token as the chip chooses it (ArgMax of the logits), when the graph has it. */
  next?: string;
  /**
   * The generation loop's control block, when the graph has one (an int32 input that is also an output and that no
   * node reads): [steps, prompt length, tokens...]. steps 0: one step on the inputs as written.
   */
  control?: string;
  /**
   * The generation loop's sampling block, when the firmware samples (`gen firmware --sampling`, addSamplingBlock):
   * the second such input, int32 [2 + 256]: [on, PRNG state, weights] (reference/sample.ts). on 0: the argmax.
   */
  sampling?: string;
  /** The prompt pass, when the graph has one (`gen quantize --prompt-graph`, quantize/prompt-pass.ts). */
  prompt?: PromptRoles;
  state: StatePair[];
  context: number;
}

/**
 * A prompt pass: P token ids in parallel at positions 0..P-1 (the exporter's prompt graph), writing rows 0..P-1 of
 * the step's caches; its logits [1, P, V] and ArgMax [1, P]. A shorter prompt is padded: rows past it are garbage
 * that the steps overwrite before any step reads them (a step at position t writes row t, then attends to 0..t).
 */
export interface PromptRoles {
  ids: string;
  logits: string;
  /** The pass's ArgMax of its logits (the integer model has it; the float one not yet). */
  next?: string;
  length: number;
  /** Each cache input and the prompt pass's output of it (the cache with rows 0..P-1 written). */
  state: StatePair[];
}

export function stepRoles(g: Graph): StepRoles | undefined {
  const state = statePairs(g);
  const write = g.nodes.find((n) => n.op === 'CacheWrite' && g.inputs.includes(n.inputs[2]));
  if (state.length === 0 || !write) return undefined;
  const position = write.inputs[2];
  const blocks = g.inputs.filter((i) => g.outputs.includes(i) && !g.nodes.some((n) => n.inputs.includes(i)));
  const [control, sampling] = blocks;
  const prompt = promptPhase(g, state, [position, ...blocks]);
  const inPrompt = (t: string): boolean => prompt?.tensors.has(t) === true;
  const ids = g.inputs.find((i) => i !== position && !blocks.includes(i) && !state.some((p) => p.input === i) && !inPrompt(i));
  const chosen = (o: string): boolean => producerThroughIdentity(g, o)?.op === 'ArgMax';
  const logits = g.outputs.find((o) => !state.some((p) => p.output === o) && !chosen(o) && !blocks.includes(o) && !inPrompt(o));
  const next = g.outputs.find((o) => chosen(o) && producerThroughIdentity(g, o)!.inputs[0] === logits);
  if (!ids || !logits || blocks.length > 2 || g.inputs.length !== state.length + 2 + blocks.length + (prompt ? 1 : 0)) return undefined;
  const axis = write.attrs.axis?.kind === 'int' ? write.attrs.axis.value : 0;
  const cache = g.tensors.get(write.inputs[0])?.shape ?? [];
  return {
    ids, position, logits, ...(next ? { next } : {}), ...(control ? { control } : {}), ...(sampling ? { sampling } : {}),
    ...(prompt ? { prompt: prompt.roles } : {}), state, context: cache[axis < 0 ? axis + cache.length : axis] ?? 0,
  };
}

/**
 * The graph inputs that a decoder step's generation loop writes at run time: the token ids, the position, the control
 * and sampling blocks, the prompt pass's ids and the caches (a graph with caches but no loop: its caches). None for
 * other graphs.
 */
export function loopInputs(g: Graph): string[] {
  const roles = stepRoles(g);
  const caches = (roles?.state ?? statePairs(g)).map((p) => p.input);
  if (!roles) return caches;
  const blocks = [roles.control, roles.sampling, roles.prompt?.ids].filter((n): n is string => n !== undefined);
  return [roles.ids, roles.position, ...blocks, ...caches];
}

/**
 * The prompt pass that firmware runs as a phase of its own: only with the generation loop (control block and ArgMax)
 * that runs the pass and then the steps. Without the loop a graph runs as one dataflow (the reference's order).
 */
export function loopPromptPass(g: Graph): PromptRoles | undefined {
  const roles = stepRoles(g);
  return roles?.control && roles.next ? roles.prompt : undefined;
}

/** The tensors computed from `from` (itself included), through every node that reads one of them. */
export function downstreamOf(g: Graph, from: string): Set<string> {
  const reached = new Set([from]);
  for (const n of g.nodes) if (n.inputs.some((i) => reached.has(i))) for (const o of n.outputs) reached.add(o);
  return reached;
}

/**
 * The prompt pass of a step graph that has one (quantize/prompt-pass.ts): the one other integer input, whose
 * tensors end in CacheWrites of the step's caches at a constant position (rows 0..P-1), the pass's logits
 * [1, P, V] and their ArgMax [1, P]. Its tensors are the pass's phase: firmware runs them once before the steps.
 */
function promptPhase(g: Graph, state: StatePair[], others: string[]): { roles: PromptRoles; tensors: Set<string> } | undefined {
  const writes = cachePairs(g, false);
  if (writes.length === 0) return undefined;
  const candidates = g.inputs.filter((i) => !others.includes(i) && !state.some((p) => p.input === i));
  for (const ids of candidates) {
    const tensors = downstreamOf(g, ids);
    if (!writes.every((w) => tensors.has(w.output))) continue;
    const chosen = (o: string): boolean => producerThroughIdentity(g, o)?.op === 'ArgMax';
    const mine = g.outputs.filter((o) => tensors.has(o) && !writes.some((w) => w.output === o));
    const logits = mine.filter((o) => !chosen(o));
    const next = mine.filter((o) => chosen(o) && producerThroughIdentity(g, o)!.inputs[0] === logits[0]);
    if (logits.length !== 1 || mine.length !== 1 + next.length || next.length > 1) return undefined;
    const length = g.tensors.get(ids)?.shape.reduce((a, b) => a * b, 1) ?? 0;
    return { roles: { ids, logits: logits[0], ...(next.length ? { next: next[0] } : {}), length, state: writes }, tensors };
  }
  return undefined;
}

/** The two phases as graphs of their own (the reference runs them apart): the prompt pass's nodes and the rest. */
export function phaseGraphs(g: Graph): { step: Graph; prompt?: Graph } {
  const roles = stepRoles(g);
  if (!roles?.prompt) return { step: g };
  const p = roles.prompt;
  const tensors = downstreamOf(g, p.ids);
  const promptNodes = new Set(g.nodes.filter((n) => n.outputs.some((o) => tensors.has(o))));
  const promptOutputs = [p.logits, ...(p.next ? [p.next] : []), ...p.state.map((s) => s.output)];
  return {
    step: { ...g, nodes: g.nodes.filter((n) => !promptNodes.has(n)), inputs: g.inputs.filter((i) => i !== p.ids), outputs: g.outputs.filter((o) => !promptOutputs.includes(o)) },
    prompt: { ...g, nodes: [...promptNodes], inputs: [p.ids, ...p.state.map((s) => s.input)], outputs: g.outputs.filter((o) => promptOutputs.includes(o)) },
  };
}

/**
 * `gen firmware --sampling`: a decoder step graph with the generation loop (control block and ArgMax) gets the
 * sampling block, an int32 input [2 + 256] the firmware also returns (its PRNG state after the run), which the loop
 * reads after each step: [on, state, W[0..255]] (reference/sample.ts). A graph without it generates as before.
 */
export function addSamplingBlock(g: Graph, table: number, maxVocab: number): void {
  const roles = stepRoles(g);
  if (!roles?.control || !roles.next) {
    throw new GenError('input', '--sampling takes a decoder step graph with the generation loop (quantized with --context)', { file: g.source });
  }
  if (roles.sampling) return;
  const logits = g.tensors.get(roles.logits)!;
  const vocab = logits.shape.reduce((a, b) => a * b, 1);
  if (vocab !== logits.shape[logits.shape.length - 1] || vocab > maxVocab) {
    throw new GenError('input', `--sampling: the logits ${JSON.stringify(logits.shape)} must be one row of at most ${maxVocab} tokens`, { file: g.source });
  }
  let name = 'sampling';
  for (let k = 1; g.tensors.has(name); k++) name = `sampling_${k}`;
  g.tensors.set(name, { name, dtype: 'int32', shape: [2 + table] });
  g.inputs.push(name);
  g.outputs.push(name);
}
