import { cloneGraph, consumersOf, type Graph } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import type { LinearUnit, Unit } from './types.js';

/*
 * Cross-layer equalisation (Nagel et al., "Data-Free Quantization", 2019). For two linear layers joined by ReLU
 * (and max pooling), relu(s x) = s relu(x) for s > 0, so output channel i of the first layer can be divided by s_i
 * and input channel i of the second multiplied by s_i without changing the float model. With r1_i, r2_i the
 * largest |weight| of those channels, s_i = sqrt(r1_i / r2_i) makes both sqrt(r1_i r2_i): channels with small
 * weights no longer waste the shared int8 grid of a per-tensor weight scale. Depthwise convs pass the scaling on
 * to the next pair. A few rounds over all pairs converge.
 */

const ROUNDS = 8;
/** Ops between two layers that commute with a positive per-channel scaling and keep the channel axis. */
const TRANSPARENT = new Set(['MaxPool', 'Identity']);

export interface EqualizedPair { first: string; second: string }

/** Channel index of element i of a tensor of `shape` along `axis`. */
function channelIndex(shape: readonly number[], axis: number): (i: number) => number {
  const inner = sizeOf(shape.slice(axis + 1));
  return (i) => Math.floor(i / inner) % shape[axis];
}

/** Largest |w| per channel along `axis`. */
function channelMax(w: ArrayLike<number>, shape: readonly number[], axis: number): Float64Array {
  const m = new Float64Array(shape[axis]);
  const c = channelIndex(shape, axis);
  for (let i = 0; i < w.length; i++) m[c(i)] = Math.max(m[c(i)], Math.abs(w[i]));
  return m;
}

function scaleAlong(data: Float64Array, shape: readonly number[], axis: number, f: (c: number) => number): void {
  const c = channelIndex(shape, axis);
  for (let i = 0; i < data.length; i++) data[i] *= f(c(i));
}

/** Pairs (u1, u2) with u1's output reaching u2's input only through ReLU and channel-preserving ops. */
function pairs(g: Graph, units: Unit[]): [LinearUnit, LinearUnit][] {
  const consumers = consumersOf(g);
  const byInput = new Map<string, Unit>();
  for (const u of units) if ('x' in u) byInput.set(u.x, u);
  const weightUses = new Map<string, number>();
  for (const u of units) if (u.kind === 'linear') weightUses.set(u.wTensor, (weightUses.get(u.wTensor) ?? 0) + 1);
  const ok = (u: LinearUnit): boolean => weightUses.get(u.wTensor) === 1
    && (!u.biasTensor || (g.tensors.get(u.biasTensor)?.data?.data.length ?? 0) === u.wShape[u.outAxis]);
  const out: [LinearUnit, LinearUnit][] = [];
  for (const u1 of units) {
    if (u1.kind !== 'linear' || u1.act.kind === 'clip' || !ok(u1) || u1.inAxis === -2) continue;
    let t = u1.out;
    for (;;) {
      if (g.outputs.includes(t) || (consumers.get(t) ?? []).length !== 1) break;
      const next = byInput.get(t);
      if (next?.kind === 'pass' && TRANSPARENT.has(next.node.op)) {
        t = next.out;
        continue;
      }
      if (next?.kind === 'linear' && ok(next) && next.inAxis !== -2 && next.wShape[next.inAxis === -1 ? next.outAxis : next.inAxis] === u1.wShape[u1.outAxis]) {
        out.push([u1, next]);
      }
      break;
    }
  }
  return out;
}

/** A copy of the float graph with equalised weights, and the pairs it equalised. */
export function equalize(g: Graph, units: Unit[]): { graph: Graph; pairs: EqualizedPair[] } {
  const out = cloneGraph(g);
  const found = pairs(g, units);
  // Work on private copies of the weight and bias data of the layers involved.
  const data = (name: string): Float64Array => {
    const t = out.tensors.get(name)!;
    const copy = { ...t.data!, data: Float64Array.from(t.data!.data) };
    out.tensors.set(name, { ...t, data: copy });
    return copy.data;
  };
  const touched = new Map<string, Float64Array>();
  const get = (name: string): Float64Array => touched.get(name) ?? touched.set(name, data(name)).get(name)!;
  for (let round = 0; round < ROUNDS; round++) {
    for (const [u1, u2] of found) {
      const w1 = get(u1.wTensor);
      const w2 = get(u2.wTensor);
      const in2 = u2.inAxis === -1 ? u2.outAxis : u2.inAxis; // depthwise: channel i reads input channel i
      const r1 = channelMax(w1, u1.wShape, u1.outAxis);
      const r2 = channelMax(w2, u2.wShape, in2);
      const s = r1.map((a, i) => (a > 0 && r2[i] > 0 ? Math.sqrt(a / r2[i]) : 1));
      scaleAlong(w1, u1.wShape, u1.outAxis, (c) => 1 / s[c]);
      if (u1.biasTensor) {
        const bt = out.tensors.get(u1.biasTensor)!;
        const axis = bt.shape.findIndex((d) => d === s.length && d > 1);
        scaleAlong(get(u1.biasTensor), bt.shape, Math.max(0, axis), (c) => 1 / s[c]);
      }
      scaleAlong(w2, u2.wShape, in2, (c) => s[c]);
    }
  }
  return { graph: out, pairs: found.map(([a, b]) => ({ first: a.name, second: b.name })) };
}
