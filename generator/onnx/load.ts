import { basename } from 'node:path';
import { GenError } from '../errors.js';
import { decodeModel, type AttributeMsg, type GraphMsg, type ModelMsg, type ValueInfoMsg } from './decode.js';
import { readUserFile } from './read-file.js';
import type { AttrValue, Graph, Node, Tensor } from '../ir/graph.js';
import { checkStructure, type RawNode } from '../validate/structure.js';
import { checkAttributes } from '../validate/attributes.js';
import { decodeTensor, ONNX_TYPES, toNumber } from './tensor-proto.js';


/** AttributeProto.AttributeType codes. */
const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

/** Reads an ONNX file into the IR. Every failure is a GenError naming the file (and node or tensor). */
export function loadOnnxFile(path: string): Graph {
  const bytes = readUserFile(path, 'model');
  return loadOnnxBytes(bytes, path);
}

export function loadOnnxBytes(bytes: Uint8Array, source: string): Graph {
  let model: ModelMsg;
  try {
    model = decodeModel(bytes);
  } catch (e) {
    throw new GenError('input', `not a valid ONNX model (protobuf decoding failed: ${(e as Error).message})`, { file: source });
  }
  const g = model.graph;
  if (!g || (g.node?.length ?? 0) === 0 || !model.irVersion) {
    throw new GenError('input', 'not a valid ONNX model (no graph, no nodes or no IR version)', { file: source });
  }
  try {
    return buildGraph(g, source);
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file: source });
    throw new GenError('model', (e as Error).message, { file: source });
  }
}

function buildGraph(g: GraphMsg, source: string): Graph {
  const tensors = new Map<string, Tensor>();
  const declare = (vi: ValueInfoMsg): void => {
    const name = vi.name ?? '';
    const tt = vi.type?.tensorType;
    const shape = (tt?.shape?.dim ?? []).map((d) => (d.dimValue !== undefined && d.dimValue !== null ? toNumber(d.dimValue) : -1));
    const dtype = ONNX_TYPES[tt?.elemType ?? 1] ?? 'float32';
    if (!tensors.has(name)) tensors.set(name, { name, shape, dtype });
  };

  for (const init of g.initializer ?? []) {
    const name = init.name ?? '';
    let data;
    try {
      data = decodeTensor(init);
    } catch (e) {
      throw new GenError('model', (e as Error).message, { tensor: name });
    }
    tensors.set(name, { name, shape: [...data.shape], dtype: data.dtype, data });
  }
  for (const vi of g.input ?? []) declare(vi);
  for (const vi of g.output ?? []) declare(vi);
  for (const vi of g.valueInfo ?? []) declare(vi);

  const inputs = (g.input ?? []).map((i) => i.name ?? '').filter((n) => !tensors.get(n)?.data);
  const outputs = (g.output ?? []).map((o) => o.name ?? '');

  const usedNames = new Set<string>();
  const named: RawNode[] = (g.node ?? []).map((n, index) => {
    const op = n.opType ?? '';
    let name = n.name && !usedNames.has(n.name) ? n.name : `${op}_${index}`;
    while (usedNames.has(name)) name = `${name}_`;
    usedNames.add(name);
    return { name, op, inputs: n.input ?? [], outputs: n.output ?? [] };
  });
  checkStructure({
    inputs: (g.input ?? []).map((i) => i.name ?? ''), outputs, initializers: (g.initializer ?? []).map((i) => i.name ?? ''), nodes: named,
  });

  const nodes: Node[] = [];
  (g.node ?? []).forEach((n, index) => {
    const { name, op } = named[index];
    const attrs: Record<string, AttrValue> = {};
    for (const a of n.attribute ?? []) {
      try {
        attrs[a.name ?? ''] = decodeAttr(a);
      } catch (e) {
        throw new GenError('model', `attribute '${a.name}': ${(e as Error).message}`, { node: name, op });
      }
    }
    const node: Node = { name, op, domain: n.domain ?? '', inputs: [...(n.input ?? [])], outputs: [...(n.output ?? [])], attrs };
    if (op === 'Constant') {
      const v = attrs.value;
      if (!v || v.kind !== 'tensor') throw new GenError('unsupported', 'Constant without a tensor value', { node: name, op });
      const out = node.outputs[0];
      tensors.set(out, { name: out, shape: [...v.value.shape], dtype: v.value.dtype, data: v.value });
      return;
    }
    nodes.push(node);
    for (const o of node.outputs) if (!tensors.has(o)) tensors.set(o, { name: o, shape: [], dtype: 'float32' });
  });

  const graph: Graph = {
    name: g.name || basename(source).replace(/\.onnx$/, ''),
    source,
    tensors,
    nodes: topologicalOrder(nodes, tensors),
    inputs,
    outputs,
  };
  checkAttributes(graph);
  return graph;
}

function decodeAttr(a: AttributeMsg): AttrValue {
  switch (a.type) {
    case ATTR.FLOAT: return { kind: 'float', value: a.f ?? 0 };
    case ATTR.INT: return { kind: 'int', value: toNumber(a.i) };
    case ATTR.STRING: return { kind: 'string', value: new TextDecoder().decode(a.s ?? new Uint8Array()) };
    case ATTR.TENSOR: return { kind: 'tensor', value: decodeTensor(a.t ?? { dataType: 0 }) };
    case ATTR.FLOATS: return { kind: 'floats', value: [...(a.floats ?? [])] };
    case ATTR.INTS: return { kind: 'ints', value: (a.ints ?? []).map(toNumber) };
    case ATTR.STRINGS: return { kind: 'strings', value: (a.strings ?? []).map((s) => new TextDecoder().decode(s)) };
    default: throw new Error(`unsupported attribute type ${a.type}`);
  }
}

/** ONNX files are not always sorted: order nodes so every input is produced before it is read. */
function topologicalOrder(nodes: Node[], tensors: Map<string, Tensor>): Node[] {
  const producer = new Map<string, Node>();
  for (const n of nodes) for (const o of n.outputs) producer.set(o, n);
  const done = new Set<Node>();
  const visiting = new Set<Node>();
  const order: Node[] = [];
  const visit = (n: Node): void => {
    if (done.has(n)) return;
    if (visiting.has(n)) throw new GenError('model', 'the graph has a cycle', { node: n.name, op: n.op });
    visiting.add(n);
    for (const i of n.inputs) {
      const p = i ? producer.get(i) : undefined;
      if (p && !tensors.get(i)?.data) visit(p);
    }
    visiting.delete(n);
    done.add(n);
    order.push(n);
  };
  for (const n of nodes) visit(n);
  return order;
}
