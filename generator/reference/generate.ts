import { GenError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';
import { phaseGraphs, stepRoles, type StepRoles } from '../ir/state.js';
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

/**
 * A decoder step graph run one step at a time: its caches start as zeros and each step's presents become the next
 * step's caches (the control block, unused by a step, stays zero). `inputs` gives a step's input arrays (for a run
 * elsewhere, the host C say), `advance` takes that step's outputs; `run` does both in the reference interpreter.
 */
export class DecoderSteps {
  readonly roles: StepRoles;
  private readonly state = new Map<string, NDArray>();
  private readonly phases: { step: Graph; prompt?: Graph };

  constructor(private readonly g: Graph) {
    const roles = stepRoles(g);
    if (!roles) throw new GenError('input', 'not a decoder step graph with caches', { file: g.source });
    this.roles = roles;
    this.phases = phaseGraphs(g);
    for (const p of roles.state) this.state.set(p.input, ndarray(g.tensors.get(p.input)!.dtype, this.shape(p.input)));
  }

  private shape(t: string): number[] {
    return this.g.tensors.get(t)!.shape;
  }

  inputs(token: number, position: number): NDArray[] {
    return this.g.inputs.map((name) => {
      if (name === this.roles.ids) return ndarray('int32', this.shape(name), [token]);
      if (name === this.roles.position) return ndarray('int32', this.shape(name), [position]);
      return this.state.get(name) ?? ndarray('int32', this.shape(name)); // the control block: unused by a step
    });
  }

  /**
   * The inputs of one run of a firmware's own loop (the control block, ir/state.ts: [steps, prompt length, tokens...])
   * that generates `tokens` after `prompt`, from this object's caches (zeros unless advanced).
   */
  loopInputs(prompt: readonly number[], tokens: number): NDArray[] {
    const control = this.roles.control;
    if (!control) throw new GenError('input', 'the step graph has no control block (no generation loop)', { file: this.g.source });
    const inputs = this.inputs(0, 0);
    const ctl = inputs[this.g.inputs.indexOf(control)];
    ctl.data[0] = generationSteps(prompt.length, tokens);
    ctl.data[1] = prompt.length;
    prompt.forEach((t, i) => (ctl.data[2 + i] = t));
    return inputs;
  }

  /** The `tokens` that such a run appended after the prompt, from its outputs in graph order. */
  loopTokens(outputs: readonly NDArray[], prompt: readonly number[], tokens: number): number[] {
    const back = outputs[this.g.outputs.indexOf(this.roles.control!)].data;
    return Array.from(back.subarray(2 + prompt.length, 2 + prompt.length + tokens));
  }

  advance(values: Map<string, NDArray>): void {
    for (const p of this.roles.state) this.state.set(p.input, values.get(p.output)!);
  }

  run(token: number, position: number): Map<string, NDArray> {
    const all = this.inputs(token, position);
    const values = runReference(this.phases.step, this.phases.step.inputs.map((name) => all[this.g.inputs.indexOf(name)]));
    this.advance(values);
    return values;
  }

  /**
   * The prompt pass (ir/state.ts PromptRoles), when the graph has one: the first min(prompt, P) tokens at positions
   * 0.. in parallel, padded with token 0 (rows past the prompt are overwritten by the steps before they are read).
   * Returns how many tokens it took (0 without a pass) and the logits row of the last of them.
   */
  prefill(prompt: readonly number[]): { count: number; logits?: Float64Array; values?: Map<string, NDArray> } {
    const pass = this.roles.prompt;
    if (!pass || !this.phases.prompt) return { count: 0 };
    const count = Math.min(prompt.length, pass.length);
    const ids = ndarray('int32', this.shape(pass.ids), Array.from({ length: pass.length }, (_, i) => (i < count ? prompt[i] : 0)));
    const values = runReference(this.phases.prompt, this.phases.prompt.inputs.map((name) => (name === pass.ids ? ids : this.state.get(name)!)));
    for (const p of pass.state) this.state.set(p.input, values.get(p.output)!);
    const logits = values.get(pass.logits)!.data;
    const width = logits.length / pass.length;
    return { count, logits: logits.subarray((count - 1) * width, count * width), values };
  }
}

/** `choose` picks the next token from a step's logits (default: the argmax; reference/sample.ts for sampling). */
export function generateReference(g: Graph, prompt: readonly number[], tokens: number, choose: Choose = (l) => argmax(l)): number[] {
  const steps = new DecoderSteps(g);
  if (prompt.length === 0 || tokens < 1) throw new GenError('input', 'generation needs a prompt of at least one token and one token to generate');
  const count = generationSteps(prompt.length, tokens);
  if (count > steps.roles.context) throw new GenError('input', `${prompt.length} prompt tokens + ${tokens} new exceed the context of ${steps.roles.context}`);
  const out: number[] = [];
  const pre = steps.prefill(prompt);
  if (pre.count === prompt.length) out.push(choose(pre.logits!));
  for (let t = pre.count; t < count; t++) {
    const values = steps.run(t < prompt.length ? prompt[t] : out[t - prompt.length], t);
    if (t >= prompt.length - 1) out.push(choose(values.get(steps.roles.logits)!.data));
  }
  return out;
}
