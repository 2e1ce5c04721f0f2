import { OnnxBuilder } from './onnx-builder.js';
import { Rng } from './random.js';

/*
 * A float Llama-style decoder written node by node the way torch.onnx.export (opset 17) writes one: Gather embedding,
 * RMSNorm as Pow/ReduceMean/Add/Sqrt/Reciprocal/Mul/Mul, linears as MatMul with constant [in, out] weights, rotary
 * embeddings in rotate-half form (Slice/Neg/Concat, Mul by constant cos/sin tables), attention scores Div by
 * sqrt(head_dim) plus a constant causal mask, Softmax, SwiGLU with SiLU as Sigmoid*Mul, an untied output head.
 * Random weights (seeded), so tests of the quantizer need no trained model; the prompt graph's outputs are the logits
 * and each layer's present key and value.
 */

export interface LlamaShape {
  vocab: number;
  hidden: number;
  heads: number;
  ffn: number;
  layers: number;
  /** Sequence length of the prompt graph (static). */
  seq: number;
}

export const SMALL_LLAMA: LlamaShape = { vocab: 24, hidden: 16, heads: 4, ffn: 32, layers: 2, seq: 8 };

/**
 * The prompt graph (ids [1, seq] -> logits, presents), or with `step` the exporter's step graph: ids [1, 1] and the
 * position [1] -> logits [1, 1, V] and present.* = Concat(past.*, new) over a dynamic past length; rotary tables of
 * `seq` positions read by Gather at the position; no mask (the step sees every cached row). Same weights either way.
 */
export function floatLlama(s: LlamaShape = SMALL_LLAMA, seed = 7, step = false, promptLength = s.seq): OnnxBuilder {
  const rng = new Rng(seed);
  const hd = s.hidden / s.heads;
  const n = step ? 1 : promptLength;
  const rows = step ? s.seq : n;
  const b = new OnnxBuilder('llama').input('input_ids', 'int64', [1, n]);
  if (step) {
    b.input('position', 'int64', [1]);
    for (let l = 0; l < s.layers; l++) for (const kv of ['key', 'value']) b.input(`past.${l}.${kv}`, 'float32', [1, s.heads, -1, hd]);
  }
  let uid = 0;
  const t = (what: string): string => `${what}_${uid++}`;
  const weight = (name: string, shape: number[], scale: number): string => {
    const n = shape.reduce((a, d) => a * d, 1);
    b.initializer(name, 'float32', shape, rng.floats(n, -scale, scale));
    return name;
  };
  const constant = (name: string, dtype: 'float32' | 'int64', shape: number[], values: number[]): string => {
    b.initializer(name, dtype, shape, values);
    return name;
  };
  const node = (op: string, inputs: string[], attrs: Record<string, unknown> = {}): string => {
    const out = t(op.toLowerCase());
    b.node(op, inputs, [out], attrs as never);
    return out;
  };
  const two = constant('two', 'float32', [], [2]);
  const eps = constant('eps', 'float32', [], [1e-5]);
  const rmsNorm = (x: string, name: string): string => {
    const g = constant(`${name}.weight`, 'float32', [s.hidden], rng.floats(s.hidden, 0.5, 1.5));
    const sq = node('Pow', [x, two]);
    const mean = node('ReduceMean', [sq], { axes: [-1], keepdims: 1 });
    const inv = node('Reciprocal', [node('Sqrt', [node('Add', [mean, eps])])]);
    return node('Mul', [g, node('Mul', [x, inv])]);
  };
  const linear = (x: string, name: string, inF: number, outF: number): string =>
    node('MatMul', [x, weight(`${name}.weight`, [inF, outF], 1 / Math.sqrt(inF))]);

  // Rotary tables for positions 0..seq-1 (theta 10000), [seq, hd] in rotate-half layout (the prompt's P rows of them).
  const cos: number[] = [];
  const sin: number[] = [];
  for (let p = 0; p < rows; p++) {
    for (let i = 0; i < hd; i++) {
      const freq = 1 / 10000 ** ((2 * (i % (hd / 2))) / hd);
      cos.push(Math.cos(p * freq));
      sin.push(Math.sin(p * freq));
    }
  }
  constant('rope.cos', 'float32', [rows, hd], cos);
  constant('rope.sin', 'float32', [rows, hd], sin);
  const half = hd / 2;
  constant('half.lo.starts', 'int64', [1], [0]);
  constant('half.lo.ends', 'int64', [1], [half]);
  constant('half.hi.starts', 'int64', [1], [half]);
  constant('half.hi.ends', 'int64', [1], [hd]);
  constant('last.axis', 'int64', [1], [-1]);
  const [cosT, sinT] = step ? ['rope.cos', 'rope.sin'].map((t) => node('Gather', [t, 'position'], { axis: 0 })) : ['rope.cos', 'rope.sin'];
  const rotary = (x: string): string => {
    const lo = node('Slice', [x, 'half.lo.starts', 'half.lo.ends', 'last.axis']);
    const hi = node('Slice', [x, 'half.hi.starts', 'half.hi.ends', 'last.axis']);
    const rot = node('Concat', [node('Neg', [hi]), lo], { axis: -1 });
    return node('Add', [node('Mul', [x, cosT]), node('Mul', [rot, sinT])]);
  };
  const mask: number[] = [];
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) mask.push(j > i ? -Infinity : 0);
  constant('causal.mask', 'float32', [n, n], mask);
  constant('heads.shape', 'int64', [4], [1, n, s.heads, hd]);
  constant('hidden.shape', 'int64', [3], [1, n, s.hidden]);
  constant('score.scale', 'float32', [], [Math.sqrt(hd)]);

  let h = node('Gather', [weight('embed.weight', [s.vocab, s.hidden], 1), 'input_ids'], { axis: 0 });
  const presents: string[] = [];
  for (let l = 0; l < s.layers; l++) {
    const x = rmsNorm(h, `layers.${l}.attn_norm`);
    const split = (w: string): string => node('Transpose', [node('Reshape', [linear(x, `layers.${l}.${w}`, s.hidden, s.hidden), 'heads.shape'])], { perm: [0, 2, 1, 3] });
    const q = rotary(split('q_proj'));
    let k = rotary(split('k_proj'));
    let v = split('v_proj');
    if (step) {
      k = node('Concat', [`past.${l}.key`, k], { axis: 2 });
      v = node('Concat', [`past.${l}.value`, v], { axis: 2 });
    }
    presents.push(k, v);
    const raw = node('Div', [node('MatMul', [q, node('Transpose', [k], { perm: [0, 1, 3, 2] })]), 'score.scale']);
    const scores = step ? raw : node('Add', [raw, 'causal.mask']);
    const attn = node('MatMul', [node('Softmax', [scores], { axis: -1 }), v]);
    const merged = node('Reshape', [node('Transpose', [attn], { perm: [0, 2, 1, 3] }), 'hidden.shape']);
    h = node('Add', [h, linear(merged, `layers.${l}.o_proj`, s.hidden, s.hidden)]);
    const y = rmsNorm(h, `layers.${l}.ffn_norm`);
    const gate = linear(y, `layers.${l}.gate_proj`, s.hidden, s.ffn);
    const silu = node('Mul', [gate, node('Sigmoid', [gate])]);
    const ff = linear(node('Mul', [silu, linear(y, `layers.${l}.up_proj`, s.hidden, s.ffn)]), `layers.${l}.down_proj`, s.ffn, s.hidden);
    h = node('Add', [h, ff]);
  }
  const logits = linear(rmsNorm(h, 'norm'), 'lm_head', s.hidden, s.vocab);
  b.node('Identity', [logits], ['logits']);
  b.output('logits', 'float32', [1, n, s.vocab]);
  presents.forEach((p, i) => {
    const name = `present.${Math.floor(i / 2)}.${i % 2 === 0 ? 'key' : 'value'}`;
    b.node('Identity', [p], [name]);
    b.output(name, 'float32', [1, s.heads, step ? -1 : n, hd]);
  });
  return b;
}
