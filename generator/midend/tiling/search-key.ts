import type { Graph, Node } from '../../ir/graph.js';

/*
 * Layers that are the same problem for the tile search: a decoder's eight layers, a MobileNet's five 128-channel
 * blocks. The key is everything the search reads from a layer, with its tensors' names replaced by their order of
 * appearance: the op, domain, attributes, fused requantization and expression, the kernel, every operand's shape,
 * type and whether it is a constant, and the search's own inputs. Values of constants are not part of it: the
 * search and its cost model read shapes, types and attributes only (a kernel with its own tile model, tileCycles,
 * reads the tile and is never keyed).
 */
export function searchKey(node: Node, graph: Graph, kernel: string, extra: Record<string, unknown>): string {
  const names = new Map<string, string>();
  const tensors: unknown[] = [];
  const canon = (t: string): string => {
    let k = names.get(t);
    if (k === undefined) {
      k = `#${names.size}`;
      names.set(t, k);
      const info = graph.tensors.get(t);
      tensors.push(info ? [info.shape, info.dtype, info.data !== undefined] : null);
    }
    return k;
  };
  for (const t of [...node.inputs, ...node.outputs]) if (t) canon(t);
  if (node.requant) [node.requant.mul, node.requant.add].forEach(canon);
  const { name: _name, fusedFrom: _fused, ...rest } = node;
  const shape = JSON.stringify(rest, (_, v: unknown) => (typeof v === 'string' && names.has(v) ? names.get(v) : v));
  return JSON.stringify([kernel, shape, tensors, extra]);
}
