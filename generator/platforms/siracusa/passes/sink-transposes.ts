import { attrInts } from '../../../ir/attrs.js';
import type { Graph, Node } from '../../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../../ir/graph.js';
import { sizeOf } from '../../../ir/ndarray.js';

/*
 * Removes the layout changes engine selection leaves between NPU layers: a Transpose read only by the inverse
 * Transpose cancels (its readers read the original tensor), and a Transpose feeding an elementwise node whose other
 * operands are scalars (or the same Transpose of other tensors) moves behind that node, so it can meet its inverse.
 * Both rewrites move no value: outputs stay bit-identical.
 */
export function sinkTransposes(g: Graph): Graph {
  let out = g;
  for (let guard = 0; guard < 10 * g.nodes.length + 10; guard++) {
    const next = cancelPair(out) ?? sinkThrough(out);
    if (!next) return out;
    out = next;
  }
  return out;
}

const permOf = (n: Node, rank: number): number[] => attrInts(n, 'perm', Array.from({ length: rank }, (_, i) => rank - 1 - i));

function composeIsIdentity(first: number[], second: number[]): boolean {
  return second.every((p, i) => first[p] === i);
}

function renameInput(nodes: Node[], from: string, to: string): Node[] {
  return nodes.map((n) => (n.inputs.includes(from) ? { ...n, inputs: n.inputs.map((i) => (i === from ? to : i)) } : n));
}

function dropUnused(g: Graph, nodes: Node[]): Graph {
  // A node whose outputs nobody reads (and that is no graph output) goes, with tensors nobody names.
  let list = nodes;
  for (;;) {
    const read = new Set<string>(g.outputs);
    for (const n of list) for (const i of n.inputs) read.add(i);
    const kept = list.filter((n) => n.outputs.some((o) => read.has(o)));
    if (kept.length === list.length) break;
    list = kept;
  }
  const named = new Set<string>([...g.inputs, ...g.outputs]);
  for (const n of list) {
    for (const t of [...n.inputs, ...n.outputs]) named.add(t);
    if (n.requant) named.add(n.requant.mul).add(n.requant.add);
  }
  return { ...g, nodes: list, tensors: new Map([...g.tensors].filter(([k]) => named.has(k))) };
}

/** Transpose B reading Transpose A's output, B after A = identity: B's readers read A's input. */
function cancelPair(g: Graph): Graph | undefined {
  const producers = producerOf(g);
  for (const b of g.nodes) {
    if (b.op !== 'Transpose' || g.outputs.includes(b.outputs[0])) continue;
    const a = producers.get(b.inputs[0]);
    if (!a || a.op !== 'Transpose') continue;
    const rank = tensorOf(g, a.inputs[0]).shape.length;
    if (!composeIsIdentity(permOf(a, rank), permOf(b, rank))) continue;
    const src = a.inputs[0];
    if (tensorOf(g, src).dtype !== tensorOf(g, b.outputs[0]).dtype) continue;
    const nodes = renameInput(g.nodes.filter((n) => n !== b), b.outputs[0], src);
    return dropUnused(g, nodes);
  }
  return undefined;
}

/** Elementwise E(T(u1), T(u2), scalars) = T(E(u1, u2, scalars)) for one permutation T. */
function sinkThrough(g: Graph): Graph | undefined {
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  for (const e of g.nodes) {
    if (e.op !== 'Elementwise') continue;
    let perm: number[] | undefined;
    const sources: string[] = [];
    let ok = true;
    for (const i of e.inputs) {
      const t = tensorOf(g, i);
      if (t.data && sizeOf(t.shape) === 1) {
        sources.push(i);
        continue;
      }
      const p = producers.get(i);
      if (!p || p.op !== 'Transpose') {
        ok = false;
        break;
      }
      const rank = tensorOf(g, p.inputs[0]).shape.length;
      const pp = permOf(p, rank);
      if (perm && pp.join() !== perm.join()) {
        ok = false;
        break;
      }
      perm = pp;
      sources.push(p.inputs[0]);
    }
    if (!ok || !perm) continue;
    // Only where it pays: some Transpose behind E must meet an inverse, or E's operands are only used here.
    const y = tensorOf(g, e.outputs[0]);
    const readers = consumers.get(y.name) ?? [];
    const meets = readers.some((r) => r.op === 'Transpose' && composeIsIdentity(perm!, permOf(r, perm!.length)));
    if (!meets) continue;
    const inner = `${y.name}__pre_${perm.join('')}`;
    if (g.tensors.has(inner)) continue;
    const innerShape = perm.map(() => 0);
    perm.forEach((p, i) => (innerShape[p] = y.shape[i]));
    const tensors = new Map(g.tensors);
    tensors.set(inner, { ...y, name: inner, shape: innerShape });
    const moved: Node = { ...e, inputs: sources, outputs: [inner] };
    const transpose: Node = {
      name: `${e.name}__transpose`, op: 'Transpose', domain: '', inputs: [inner], outputs: [y.name],
      attrs: { perm: { kind: 'ints', value: perm } }, fusedFrom: e.fusedFrom ?? [e.name],
    };
    const nodes = g.nodes.flatMap((n) => (n === e ? [moved, transpose] : [n]));
    return dropUnused({ ...g, tensors }, nodes);
  }
  return undefined;
}
