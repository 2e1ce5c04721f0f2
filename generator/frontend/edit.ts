import { GenError } from '../errors.js';
import { rangeOfValues, type DType } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { ndarray } from '../ir/ndarray.js';
import { consumersOf } from '../ir/graph.js';

/** The small editing API passes use: replace a group of nodes by one, keeping a valid execution order. */
export function replaceNodes(g: Graph, remove: readonly Node[], add: Node): Graph {
  return replaceGroups(g, [{ remove, add }]);
}

/** One group of nodes a pass replaces by one node. */
export interface Replacement {
  remove: readonly Node[];
  add: Node;
}

/**
 * Several disjoint groups replaced at once, in one walk of the graph: the same graph as replaceNodes applied to each
 * group in turn (each new node where the last of its group was, the tensors no node reads or writes any more
 * dropped), for a pass whose matches do not depend on one another. Found one by one with the graph rebuilt after
 * each, they cost time quadratic in the graph (an 8-layer decoder: tens of ms).
 */
export function replaceGroups(g: Graph, groups: readonly Replacement[]): Graph {
  if (groups.length === 0) return g;
  const groupOf = new Map<Node, Replacement>();
  for (const r of groups) {
    for (const n of r.remove) {
      if (groupOf.has(n)) throw new GenError('internal', 'replaceGroups: a node in two groups', { node: n.name, op: n.op });
      groupOf.set(n, r);
    }
  }
  const index = new Map(g.nodes.map((n, i) => [n, i]));
  const lastOf = new Map<number, Node>();
  for (const r of groups) lastOf.set(Math.max(...r.remove.map((n) => index.get(n) ?? -1)), r.add);
  const nodes: Node[] = [];
  g.nodes.forEach((n, i) => {
    const add = lastOf.get(i);
    if (add) nodes.push(add);
    if (!groupOf.has(n)) nodes.push(n);
  });
  return { ...g, nodes, tensors: referencedTensors(g, nodes) };
}

/** The graph's tensors that its inputs, outputs or these nodes (their requantization parameters too) name, in order. */
export function referencedTensors(g: Graph, nodes: readonly Node[]): Map<string, Tensor> {
  const keep = new Set<string>([...g.inputs, ...g.outputs]);
  for (const n of nodes) for (const t of [...n.inputs, ...n.outputs]) keep.add(t);
  for (const n of nodes) {
    if (n.requant) keep.add(n.requant.mul).add(n.requant.add);
  }
  return new Map([...g.tensors].filter(([name]) => keep.has(name)));
}

/** The single consumer of a tensor that is not a graph output, or undefined. */
export function soleConsumer(g: Graph, tensor: string, consumers = consumersOf(g)): Node | undefined {
  if (g.outputs.includes(tensor)) return undefined;
  const list = consumers.get(tensor) ?? [];
  return list.length === 1 ? list[0] : undefined;
}

export function fusedNames(...nodes: Node[]): string[] {
  return nodes.flatMap((n) => n.fusedFrom ?? [n.name]);
}

/** `base`, or `base_1`, `base_2`, ...: the first name no tensor of the graph has. */
export function freshTensorName(g: Graph, base: string): string {
  let name = base;
  for (let k = 1; g.tensors.has(name); k++) name = `${base}_${k}`;
  return name;
}

/** Adding tensors to a pass's copy of the tensor map: fresh names, activations, constants with their range. */
export interface TensorBuilder {
  /** `base`, or `base_1`, `base_2`, ...: the first name the map does not have. */
  fresh(base: string): string;
  add(t: Tensor): string;
  constant(base: string, dtype: DType, shape: number[], values: ArrayLike<number>): string;
}

export function tensorBuilder(tensors: Map<string, Tensor>): TensorBuilder {
  const fresh = (base: string): string => {
    let name = base;
    for (let i = 1; tensors.has(name); i++) name = `${base}_${i}`;
    return name;
  };
  const add = (t: Tensor): string => {
    tensors.set(t.name, t);
    return t.name;
  };
  const constant = (base: string, dtype: DType, shape: number[], values: ArrayLike<number>): string => {
    const data = ndarray(dtype, shape, values);
    return add({ name: fresh(base), dtype, shape, data, range: rangeOfValues(data.data) });
  };
  return { fresh, add, constant };
}
