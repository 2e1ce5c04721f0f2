import { rangeOfValues, type DType } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { ndarray } from '../ir/ndarray.js';
import { consumersOf } from '../ir/graph.js';

/** The small editing API passes use: replace a group of nodes by one, keeping a valid execution order. */
export function replaceNodes(g: Graph, remove: readonly Node[], add: Node): Graph {
  const gone = new Set(remove);
  const lastIndex = Math.max(...remove.map((n) => g.nodes.indexOf(n)));
  const nodes: Node[] = [];
  g.nodes.forEach((n, i) => {
    if (i === lastIndex) nodes.push(add);
    if (!gone.has(n)) nodes.push(n);
  });
  const keep = new Set<string>([...g.inputs, ...g.outputs]);
  for (const n of nodes) for (const t of [...n.inputs, ...n.outputs]) keep.add(t);
  for (const n of nodes) {
    if (n.requant) keep.add(n.requant.mul).add(n.requant.add);
  }
  const tensors = new Map([...g.tensors].filter(([name]) => keep.has(name)));
  return { ...g, nodes, tensors };
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
