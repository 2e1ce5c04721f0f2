import { GenError } from '../errors.js';
import type { Graph } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { runReference } from '../reference/interpreter.js';
import { inferGraph } from '../ir/infer.js';
import { integerSample } from './report.js';
import { runSequences } from './stateful.js';
import type { Plan } from './params.js';

/*
 * Perplexity of a language model on held-out token windows, float against integer: the quality figure users of a
 * quantized LM read (a logits SQNR says little about which token wins). A window of P token ids runs once; the
 * logits at position t predict token t+1, so a window scores P-1 tokens. The integer logits are dequantized with the
 * output's scale before the softmax. Both models run in the reference interpreter.
 */

export interface Perplexity {
  float: number;
  int8: number;
  windows: number;
  tokens: number;
}

/** The logits output: [1, P, V] for an id input [1, P]. */
function logitsOutput(g: Graph): { name: string; vocab: number; seq: number } {
  const ids = g.inputs.find((i) => g.tensors.get(i)?.dtype !== 'float32');
  const shape = ids ? g.tensors.get(ids)!.shape : [];
  const seq = shape[shape.length - 1];
  const name = g.outputs.find((o) => {
    const s = g.tensors.get(o)?.shape ?? [];
    return s.length === 3 && s[0] === 1 && s[1] === seq;
  });
  if (!ids || g.inputs.length !== 1 || !name) {
    throw new GenError('input', '--heldout needs a language model: one token-id input [1, P] and a logits output [1, P, V]', { file: g.source });
  }
  return { name, vocab: g.tensors.get(name)!.shape[2], seq };
}

/** Negative log-likelihood of token `target` under the logits at [at, at + vocab) (a log-softmax). */
function tokenNll(logits: ArrayLike<number>, at: number, vocab: number, target: number): number {
  let max = -Infinity;
  for (let v = 0; v < vocab; v++) max = Math.max(max, logits[at + v]);
  let sum = 0;
  for (let v = 0; v < vocab; v++) sum += Math.exp(logits[at + v] - max);
  return Math.log(sum) + max - logits[at + target];
}

/** Summed negative log-likelihood of the next tokens of one window, from logits [P, V] (row-major). */
function windowNll(logits: ArrayLike<number>, ids: ArrayLike<number>, seq: number, vocab: number): number {
  let nll = 0;
  for (let t = 0; t + 1 < seq; t++) nll += tokenNll(logits, t * vocab, vocab, ids[t + 1]);
  return nll;
}

export function perplexity(float: Graph, intGraph: Graph, plan: Plan, windows: NDArray[][]): Perplexity {
  const { name, vocab, seq } = logitsOutput(float);
  const scale = plan.act.get(name)!.scale;
  let nllF = 0;
  let nllQ = 0;
  for (const w of windows) {
    const ids = w[0].data;
    nllF += windowNll(runReference(float, w).get(name)!.data, ids, seq, vocab);
    const q = runReference(intGraph, integerSample(intGraph, plan, w)).get(name)!.data;
    nllQ += windowNll(Array.from(q, (v) => v * scale), ids, seq, vocab);
  }
  const tokens = windows.length * (seq - 1);
  return { float: Math.exp(nllF / tokens), int8: Math.exp(nllQ / tokens), windows: windows.length, tokens };
}

/**
 * The same for a step graph with caches (stateful.ts): each held-out window runs token by token, the caches fed back
 * (the integer graph's own integer caches: what the firmware does); the logits of step t predict token t+1.
 */
export function perplexitySequences(float: Graph, intGraph: Graph, plan: Plan, windows: NDArray): Perplexity {
  const inferred = inferGraph(float);
  const logits = float.outputs[0];
  const vocab = inferred.tensors.get(logits)!.shape.at(-1)!;
  const length = windows.shape[1];
  const scale = plan.act.get(logits)!.scale;
  const nllOf = (g: Graph, k: number): number => {
    let nll = 0;
    runSequences(g, windows, (values, w, t) => {
      if (t + 1 >= length) return;
      const row = Array.from(values.get(logits)!.data, (v) => v * k);
      nll += tokenNll(row, 0, vocab, windows.data[w * length + t + 1]);
    });
    return nll;
  };
  const tokens = windows.shape[0] * (length - 1);
  return {
    float: Math.exp(nllOf(inferred, 1) / tokens),
    int8: Math.exp(nllOf(inferGraph(intGraph), scale) / tokens),
    windows: windows.shape[0],
    tokens,
  };
}
