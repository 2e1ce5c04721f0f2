import { GenError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';
import { stepRoles } from '../ir/state.js';
import { runReference } from './interpreter.js';
import type { Choose } from './sample.js';

/*
 * Greedy generation with a decoder step graph (ir/state.ts) in the reference interpreter: the prompt's tokens go in
 * one per step (the caches filled as they go), then each step's argmax (the lowest index among equal logits) is the
 * next token, fed back at the next position. The firmware's generation loop must produce exactly these tokens.
 */

export function argmax(a: ArrayLike<number>, from = 0, count = a.length): number {
  let best = 0;
  for (let v = 1; v < count; v++) if (a[from + v] > a[from + best]) best = v;
  return best;
}

/** Steps needed for `tokens` new tokens after a prompt: the last new token is never fed back. */
export function generationSteps(prompt: number, tokens: number): number {
  return prompt + tokens - 1;
}

/** `choose` picks the next token from a step's logits (default: the argmax; reference/sample.ts for sampling). */
export function generateReference(g: Graph, prompt: readonly number[], tokens: number, choose: Choose = (l) => argmax(l)): number[] {
  const roles = stepRoles(g);
  if (!roles) throw new GenError('input', 'not a decoder step graph with caches', { file: g.source });
  if (prompt.length === 0 || tokens < 1) throw new GenError('input', 'generation needs a prompt of at least one token and one token to generate');
  const steps = generationSteps(prompt.length, tokens);
  if (steps > roles.context) throw new GenError('input', `${prompt.length} prompt tokens + ${tokens} new exceed the context of ${roles.context}`);
  const shape = (t: string): number[] => g.tensors.get(t)!.shape;
  const state = new Map<string, NDArray>(roles.state.map((p) => [p.input, ndarray(g.tensors.get(p.input)!.dtype, shape(p.input))]));
  const out: number[] = [];
  for (let t = 0; t < steps; t++) {
    const token = t < prompt.length ? prompt[t] : out[t - prompt.length];
    const values = runReference(g, g.inputs.map((name) => {
      if (name === roles.ids) return ndarray('int32', shape(name), [token]);
      if (name === roles.position) return ndarray('int32', shape(name), [t]);
      return state.get(name) ?? ndarray('int32', shape(name)); // the control block: unused by a step
    }));
    for (const p of roles.state) state.set(p.input, values.get(p.output)!);
    if (t >= prompt.length - 1) out.push(choose(values.get(roles.logits)!.data));
  }
  return out;
}
