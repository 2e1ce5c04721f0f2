import { GenError, quoted } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import { downstreamOf, loopPromptPass } from '../ir/state.js';

/*
 * A step graph with a prompt pass (ir/state.ts PromptRoles) runs as two functions: the pass once, then the step
 * per token. A layer belongs to the pass when it writes a tensor computed from the pass's token ids, or when only
 * pass layers read what it writes (a weight's load from L3 for the pass, say). Both functions keep the plan's order
 * within them; the memory plan, made for the graph's one order, stays valid: two tensors of one phase are live at
 * once exactly when they were in that order, and tensors of different phases never are.
 */

export interface PhaseLayer {
  reads: string[];
  writes: string[];
}

/** The layers in run order (the pass's first) and how many belong to the pass; 0 without a pass. */
export function splitPhases<L extends PhaseLayer>(graph: Graph, layers: L[]): { ordered: L[]; promptCount: number } {
  const pass = loopPromptPass(graph);
  if (!pass) return { ordered: layers, promptCount: 0 };
  const computed = downstreamOf(graph, pass.ids);
  const inPass = new Set(layers.filter((l) => l.writes.some((t) => computed.has(t))));
  for (let i = layers.length - 1; i >= 0; i--) {
    const l = layers[i];
    if (inPass.has(l) || l.writes.some((t) => graph.outputs.includes(t))) continue;
    const readers = layers.filter((r) => r !== l && r.reads.some((t) => l.writes.includes(t)));
    if (readers.length > 0 && readers.every((r) => inPass.has(r))) inPass.add(l);
  }
  const prompt = layers.filter((l) => inPass.has(l));
  const step = layers.filter((l) => !inPass.has(l));
  for (const l of prompt) {
    const early = step.find((s) => s.writes.some((t) => l.reads.includes(t)));
    if (early) throw new GenError('unsupported', `the prompt pass reads ${quoted(early.writes[0])}, which a layer of the step writes: the pass runs first`);
  }
  return { ordered: [...prompt, ...step], promptCount: prompt.length };
}
