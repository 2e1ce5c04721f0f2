import { GenError } from '../errors.js';
import { isIntType } from '../ir/dtype.js';
import { producerOf, type Graph, type Node } from '../ir/graph.js';
import { formatShape, type NDArray } from '../ir/ndarray.js';
import { isFloatType, type OpSpec } from './op-spec.js';
import { foldIntoRequant } from './ops/true-integer-div.js';
import { opSpec } from './registry.js';
import { floatTensors, isIntegral, normalizeArray } from './value-kind.js';

/*
 * The reference interpreter: runs a graph on concrete inputs with the semantics of SEMANTICS.md, bit-exact for
 * integers and float32 (as ONNX Runtime) for floats. It is the specification the firmware is compared against.
 */

/** Values of every tensor (constants and inputs included), by name. `inputs` match graph.inputs in order. */
export function runReference(graph: Graph, inputs: NDArray[]): Map<string, NDArray> {
  const values = new Map<string, NDArray>();
  const floats = floatTensors(graph);
  setConstants(graph, values, floats);
  graph.inputs.forEach((name, i) => {
    const a = inputs[i];
    if (!a) throw new GenError('input', `no array given for graph input '${name}' (${inputs.length} given)`, { tensor: name, file: graph.source });
    checkInputShape(graph, name, a);
    // Integer samples of an input the graph reads as float are still floats; non-integer samples are floats anyway.
    values.set(name, normalizeArray(a, floats.has(name) || !isIntegral(a.data)));
  });

  evaluateNodes(graph, values, 0, graph.nodes.length);
  return values;
}

/** The graph's constants (or those named in `only`) into `values`, as the interpreter reads them: floats as float32. */
export function setConstants(graph: Graph, values: Map<string, NDArray>, floats = floatTensors(graph), only?: ReadonlySet<string>): void {
  for (const t of graph.tensors.values()) {
    if (t.data && (!only || only.has(t.name))) values.set(t.name, normalizeArray(t.data, floats.has(t.name)));
  }
}

/**
 * Evaluates graph.nodes[from, to) on the values already in `values` (constants, inputs and every earlier node's
 * outputs that these nodes read), adding their outputs: a run continued, or redone from a node on (the quantizer's
 * bias correction, which changes one layer's bias at a time, redoes only what follows it).
 */
export function evaluateNodes(graph: Graph, values: Map<string, NDArray>, from: number, to: number): void {
  const producers = producerOf(graph);
  for (const node of graph.nodes.slice(from, to)) {
    const spec = opSpec(node.op);
    if (!spec) {
      throw new GenError('unsupported', `op ${node.domain ? `${node.domain}.` : ''}${node.op} has no reference semantics`, { node: node.name, op: node.op });
    }
    const operands = node.inputs.map((n) => {
      if (!n) return undefined;
      const v = values.get(n);
      if (!v) throw new GenError('internal', `tensor '${n}' has no value yet`, { node: node.name, op: node.op });
      return v;
    });
    const outs = evaluateNode(spec, node, operands, producers);
    node.outputs.forEach((o, i) => {
      if (o) values.set(o, outs[i]);
    });
  }
}

function checkInputShape(graph: Graph, name: string, a: NDArray): void {
  const declared = graph.tensors.get(name)?.shape ?? [];
  // A declared rank of 0 may just mean "no shape in the file"; unknown dimensions are -1.
  if (declared.length === 0 && a.shape.length > 0) return;
  if (declared.length !== a.shape.length || declared.some((d, i) => d >= 0 && d !== a.shape[i])) {
    throw new GenError('input', `input '${name}' has shape ${formatShape(a.shape)}, the model expects ${formatShape(declared)}`, {
      tensor: name, file: graph.source,
    });
  }
}

function evaluateNode(spec: OpSpec, node: Node, operands: (NDArray | undefined)[], producers: Map<string, Node>): NDArray[] {
  let target = node;
  // A RequantShift that reads a TrueIntegerDiv runs with the folded (mul, div) (SEMANTICS.md section 1).
  const source = node.op === 'RequantShift' ? producers.get(node.inputs[0]) : undefined;
  let outs: NDArray[];
  try {
    if (source?.op === 'TrueIntegerDiv' && operands[1]) {
      const folded = foldIntoRequant(node, source, operands[1]);
      target = folded.node;
      operands = [operands[0], folded.mul, ...operands.slice(2)];
    }
    outs = spec.evaluate(target, operands);
  } catch (e) {
    if (e instanceof GenError) throw e;
    throw new GenError('model', (e as Error).message, { node: node.name, op: node.op });
  }
  if (outs.length < node.outputs.filter((o) => o).length) {
    throw new GenError('internal', `produced ${outs.length} outputs for ${node.outputs.length}`, { node: node.name, op: node.op });
  }
  for (const out of outs) checkExact(node, out);
  return outs;
}

/** Integers past 2^53 would have been rounded by the float64 tensor storage: refuse rather than be wrong. */
function checkExact(node: Node, a: NDArray): void {
  if (isFloatType(a.dtype) || !isIntType(a.dtype)) return;
  const d = a.data;
  for (let i = 0; i < d.length; i++) {
    if (!(Math.abs(d[i]) <= Number.MAX_SAFE_INTEGER)) {
      throw new GenError('unsupported', `integer result ${d[i]} is beyond 2^53 and cannot be represented exactly`, {
        node: node.name, op: node.op,
      });
    }
  }
}
