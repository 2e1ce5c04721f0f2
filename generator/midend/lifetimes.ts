import type { Graph } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { bytesOf } from '../ir/dtype.js';
import { tensorOf } from '../ir/graph.js';

/** Ops whose output is the input's bytes reinterpreted: they share the input's buffer instead of copying. */
export const ALIAS_OPS = new Set(['Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Identity']);

export interface BufferUse {
  /** Tensor that owns the buffer (the root of its alias group). */
  root: string;
  members: string[];
  bytes: number;
  /** First and last execution step that touches the buffer (inclusive); constants span everything. */
  first: number;
  last: number;
  /** The steps that read or write it (a constant's lifetime spans more: it is loaded before the run). */
  steps: Set<number>;
  kind: 'const' | 'input' | 'output' | 'activation';
}

/**
 * Buffers and their lifetimes over the execution order. Steps: 0 = before the first layer (inputs arrive),
 * layer i runs at step i + 1, the last step reads outputs.
 */
export function bufferUses(g: Graph, isAliased: (nodeIndex: number) => boolean, groups: ReadonlyArray<[number, number]> = []): Map<string, BufferUse> {
  const rootOf = new Map<string, string>();
  const root = (t: string): string => rootOf.get(t) ?? t;
  g.nodes.forEach((n, i) => {
    if (isAliased(i)) rootOf.set(n.outputs[0], root(n.inputs[0]));
  });
  const end = g.nodes.length + 1;
  const uses = new Map<string, BufferUse>();
  const touch = (t: string, step: number): void => {
    if (!t) return;
    const r = root(t);
    const tensor = tensorOf(g, r);
    let u = uses.get(r);
    if (!u) {
      const isConst = tensor.data !== undefined;
      u = {
        root: r,
        members: [],
        bytes: sizeOf(tensor.shape) * bytesOf(tensor.dtype),
        first: isConst ? 0 : step,
        last: isConst ? end : step,
        steps: new Set(),
        kind: isConst ? 'const' : 'activation',
      };
      uses.set(r, u);
    }
    if (!u.members.includes(t)) u.members.push(t);
    u.steps.add(step);
    u.first = Math.min(u.first, step);
    u.last = Math.max(u.last, step);
  };
  for (const i of g.inputs) {
    touch(i, 0);
    uses.get(root(i))!.kind = 'input';
  }
  // A group of layers run as one step touches its tensors over all of its steps.
  const span = g.nodes.map((_, i): [number, number] => [i + 1, i + 1]);
  for (const [a, b] of groups) for (let i = a; i <= b; i++) span[i] = [a + 1, b + 1];
  g.nodes.forEach((n, i) => {
    const [s0, s1] = span[i];
    const touchAll = (t: string): void => {
      for (let s = s0; s <= s1; s++) touch(t, s);
    };
    for (const t of [...n.inputs, ...n.outputs]) touchAll(t);
    if (n.requant) {
      touchAll(n.requant.mul);
      touchAll(n.requant.add);
    }
  });
  for (const o of g.outputs) {
    touch(o, end);
    const u = uses.get(root(o))!;
    if (u.kind !== 'input') u.kind = 'output';
  }
  return uses;
}

/** A buffer's size and the steps (inclusive) it is live: what offset planning needs of it. */
export type Interval = Pick<BufferUse, 'bytes' | 'first' | 'last'>;

export function overlaps(a: Interval, b: Interval): boolean {
  return a.first <= b.last && b.first <= a.last;
}

/** The largest sum of live buffer bytes at any step: no allocation can do better. */
export function liveSetLowerBound(uses: Iterable<Interval>, align: number): number {
  const list = [...uses];
  const steps = Math.max(0, ...list.map((u) => u.last));
  let best = 0;
  for (let s = 0; s <= steps; s++) {
    let live = 0;
    for (const u of list) if (u.first <= s && s <= u.last) live += alignUp(u.bytes, align);
    best = Math.max(best, live);
  }
  return best;
}

export function alignUp(v: number, a: number): number {
  return Math.ceil(v / a) * a;
}
