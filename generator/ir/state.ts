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
  state: StatePair[];
  context: number;
}

export function stepRoles(g: Graph): StepRoles | undefined {
  const state = statePairs(g);
  const write = g.nodes.find((n) => n.op === 'CacheWrite');
  if (state.length === 0 || !write) return undefined;
  const position = write.inputs[2];
  const control = g.inputs.find((i) => g.outputs.includes(i) && !g.nodes.some((n) => n.inputs.includes(i)));
  const ids = g.inputs.find((i) => i !== position && i !== control && !state.some((p) => p.input === i));
  const chosen = (o: string): boolean => producerThroughIdentity(g, o)?.op === 'ArgMax';
  const logits = g.outputs.find((o) => !state.some((p) => p.output === o) && !chosen(o) && o !== control);
  const next = g.outputs.find((o) => chosen(o) && producerThroughIdentity(g, o)!.inputs[0] === logits);
  if (!ids || !logits || g.inputs.length !== state.length + 2 + (control ? 1 : 0)) return undefined;
  const axis = write.attrs.axis?.kind === 'int' ? write.attrs.axis.value : 0;
  const cache = g.tensors.get(write.inputs[0])?.shape ?? [];
  return { ids, position, logits, ...(next ? { next } : {}), ...(control ? { control } : {}), state, context: cache[axis < 0 ? axis + cache.length : axis] ?? 0 };
}
