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

/** The producer of a tensor, looking through Identity nodes. */
export function producerThroughIdentity(g: Graph, t: string): Node | undefined {
  for (;;) {
    const n = g.nodes.find((m) => m.outputs.includes(t));
    if (!n || n.op !== 'Identity') return n;
    t = n.inputs[0];
  }
}

export function statePairs(g: Graph): StatePair[] {
  const pairs: StatePair[] = [];
  for (const o of g.outputs) {
    const c = producerThroughIdentity(g, o);
    if (c?.op === 'CacheWrite' && g.inputs.includes(c.inputs[0])) pairs.push({ input: c.inputs[0], output: o });
  }
  return pairs;
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
  state: StatePair[];
  context: number;
}

export function stepRoles(g: Graph): StepRoles | undefined {
  const state = statePairs(g);
  const write = g.nodes.find((n) => n.op === 'CacheWrite');
  if (state.length === 0 || !write) return undefined;
  const position = write.inputs[2];
  const blocks = g.inputs.filter((i) => g.outputs.includes(i) && !g.nodes.some((n) => n.inputs.includes(i)));
  const [control, sampling] = blocks;
  const ids = g.inputs.find((i) => i !== position && !blocks.includes(i) && !state.some((p) => p.input === i));
  const chosen = (o: string): boolean => producerThroughIdentity(g, o)?.op === 'ArgMax';
  const logits = g.outputs.find((o) => !state.some((p) => p.output === o) && !chosen(o) && !blocks.includes(o));
  const next = g.outputs.find((o) => chosen(o) && producerThroughIdentity(g, o)!.inputs[0] === logits);
  if (!ids || !logits || blocks.length > 2 || g.inputs.length !== state.length + 2 + blocks.length) return undefined;
  const axis = write.attrs.axis?.kind === 'int' ? write.attrs.axis.value : 0;
  const cache = g.tensors.get(write.inputs[0])?.shape ?? [];
  return { ids, position, logits, ...(next ? { next } : {}), ...(control ? { control } : {}), ...(sampling ? { sampling } : {}), state, context: cache[axis < 0 ? axis + cache.length : axis] ?? 0 };
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
