import type { Node } from '../../../ir/graph.js';
import { unsupported, type LoweringContext, type Pending, type Value } from './context.js';
import { siteOf, type QTensor } from './emit.js';
import { realValues, type LayerNormPending } from './layernorm.js';

/*
 * torch's LayerNorm as exported at opset 13, between one DequantizeLinear and one QuantizeLinear (no Q after each op):
 *   m = ReduceMean(x); d = x - m; v = ReduceMean(Pow(d, 2) or d*d); s = Sqrt(v + eps); z = d / s; [z * gamma]; [+ beta]
 * Each float step stays pending (a stage of the chain, on the same dequantized x) until the Div completes it, which is
 * then LayerNormalization's pending form (layernorm.ts): the same QLayerNorm. A gain or a bias after it folds in.
 * A QuantizeLinear in the middle of the chain (quantizing d, v or s alone) is not lowered.
 */

export type Stage = 'centred' | 'square' | 'variance' | 'variance+eps' | 'deviation';
export interface ChainPending { kind: 'lnchain'; node: Node; stage: Stage; x: QTensor; eps: number }

/** A pending value without a clip after it. */
function pendingOf(v: Value | undefined): Pending | undefined {
  return v?.k === 'pend' && v.lo === -Infinity && v.hi === Infinity ? v.p : undefined;
}

function stageOf(v: Value | undefined, stage: Stage): ChainPending | undefined {
  const p = pendingOf(v);
  return p?.kind === 'lnchain' && p.stage === stage ? p : undefined;
}

/** A scalar float constant's value. */
function scalar(v: Value | undefined): number | undefined {
  return v?.k === 'const' && v.data.data.length === 1 ? Math.fround(Number(v.data.data[0])) : undefined;
}

/** Normalised axes of a ReduceMean: the last axis alone, kept. */
function lastAxisKept(ctx: LoweringContext, n: Node): boolean {
  const rank = ctx.shapeOf(n.inputs[0]).length;
  const axes = n.inputs[1] ? Array.from(ctx.constant(n, 1, 'the reduction axes')!.data) : n.attrs.axes?.kind === 'ints' ? n.attrs.axes.value : [];
  const keep = n.attrs.keepdims?.kind === 'int' ? n.attrs.keepdims.value !== 0 : true;
  return keep && axes.length === 1 && (axes[0] === rank - 1 || axes[0] === -1);
}

/** The chain's next stage (or the finished LayerNorm, or its gain or bias folded in) when `n` extends one. */
export function layerNormChainStep(ctx: LoweringContext, n: Node, ins: (Value | undefined)[]): Pending | undefined {
  const step = (from: ChainPending, stage: Stage, eps = from.eps): ChainPending => ({ kind: 'lnchain', node: n, stage, x: from.x, eps });
  switch (n.op) {
    case 'Sub': {
      const x = ins[0];
      const m = pendingOf(ins[1]);
      const rank = m?.kind === 'mean' ? m.shape.length : 0;
      if (x?.k !== 'fq' || m?.kind !== 'mean' || m.x.name !== x.t.name || !m.keep || m.axes.length !== 1 || m.axes[0] !== rank - 1) return undefined;
      return { kind: 'lnchain', node: n, stage: 'centred', x: x.t, eps: 0 };
    }
    case 'Pow': {
      const d = stageOf(ins[0], 'centred');
      return d && scalar(ins[1]) === 2 ? step(d, 'square') : undefined;
    }
    case 'Mul': {
      const [a, b] = [stageOf(ins[0], 'centred'), stageOf(ins[1], 'centred')];
      if (a && b && a.node === b.node) return step(a, 'square');
      return foldAffine(n, ins, 'gain');
    }
    case 'ReduceMean': {
      const s = stageOf(ins[0], 'square');
      return s && lastAxisKept(ctx, n) ? step(s, 'variance') : undefined;
    }
    case 'Add': {
      const k = [0, 1].find((j) => stageOf(ins[j], 'variance'));
      const eps = k === undefined ? undefined : scalar(ins[1 - k]);
      if (k !== undefined && eps !== undefined && eps >= 0) return step(stageOf(ins[k], 'variance')!, 'variance+eps', eps);
      return foldAffine(n, ins, 'bias');
    }
    case 'Sqrt': {
      const v = stageOf(ins[0], 'variance+eps');
      return v ? step(v, 'deviation') : undefined;
    }
    case 'Div': {
      const [d, s] = [stageOf(ins[0], 'centred'), stageOf(ins[1], 'deviation')];
      if (!d || !s || d.x.name !== s.x.name) return undefined;
      const N = ctx.shapeOf(n.inputs[0]).slice(-1)[0];
      const shape = ctx.shapeOf(n.inputs[0]);
      const ln: LayerNormPending = { kind: 'layernorm', node: n, x: d.x, shape, gamma: new Array<number>(N).fill(1), beta: new Array<number>(N).fill(0), eps: s.eps };
      return ln;
    }
    default:
      return undefined;
  }
}

/** A finished chain times a gain (before any bias) or plus a bias: folded into its per-column gains and biases. */
function foldAffine(n: Node, ins: (Value | undefined)[], what: 'gain' | 'bias'): LayerNormPending | undefined {
  const i = [0, 1].find((k) => pendingOf(ins[k])?.kind === 'layernorm');
  if (i === undefined) return undefined;
  const ln = pendingOf(ins[i]) as LayerNormPending;
  const N = ln.gamma.length;
  const c = ins[1 - i];
  if (c?.k !== 'const' && c?.k !== 'wq') return undefined;
  const values = realValues(n, c, N, what, what === 'gain' ? 1 : 0);
  if (what === 'gain') {
    if (ln.beta.some((b) => b !== 0)) throw unsupported(siteOf(n), 'a gain after the bias of a LayerNorm chain');
    return { ...ln, node: n, gamma: ln.gamma.map((g, j) => Math.fround(g * values[j])) };
  }
  return { ...ln, node: n, beta: ln.beta.map((b, j) => Math.fround(b + values[j])) };
}
