import { writeFileSync } from 'node:fs';
import type onnxProto from 'onnx-proto';
import { GenError } from '../errors.js';
import { onnx } from './proto.js';
import { bytesOf, type DType } from '../ir/dtype.js';
import { toInt64, writeElements } from '../ir/elements.js';
import type { AttrValue, Graph, Node, Tensor } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { ONNX_TYPE_CODES } from './tensor-proto.js';


/*
 * ONNX writer: the inverse of load.ts, for tests (models built in code and run by onnxruntime-node) and for passes
 * that want to hand a rewritten graph to other tools. Constants are written as initializers with raw data.
 */

export interface EncodeOptions {
  /** Version of the default ONNX domain (13 unless given). */
  opset?: number;
  /** Versions of other domains; a domain used by a node and not listed gets version 1. */
  opsets?: Record<string, number>;
  irVersion?: number;
  producer?: string;
  /** Also write value_info for intermediate tensors whose shape is known (their dtype must be ONNX's). */
  valueInfo?: boolean;
}

const ATTR = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

function typeCode(t: DType, what: string): number {
  const code = ONNX_TYPE_CODES[t];
  if (code === undefined) throw new GenError('internal', `cannot write type ${t} to ONNX`, { tensor: what });
  return code;
}

/** An int64 field value protobufjs accepts: a number when exact, else a decimal string (it parses those as Long). */
function int64Field(v: number): number {
  return Number.isSafeInteger(v) ? v : (toInt64(v).toString() as unknown as number);
}

function rawBytes(a: NDArray): Uint8Array {
  const width = bytesOf(a.dtype);
  const out = new Uint8Array(a.data.length * width);
  writeElements(out, 0, a.dtype, a.data);
  return out;
}

export function encodeTensor(name: string, a: NDArray): onnxProto.onnx.ITensorProto {
  return { name, dims: a.shape.map(int64Field), dataType: typeCode(a.dtype, name), rawData: rawBytes(a) };
}

function valueInfo(t: Tensor): onnxProto.onnx.IValueInfoProto {
  return {
    name: t.name,
    type: {
      tensorType: {
        elemType: typeCode(t.dtype, t.name),
        shape: { dim: t.shape.map((d) => (d >= 0 ? { dimValue: d } : { dimParam: `${t.name}_dim` })) },
      },
    },
  };
}

function encodeAttr(name: string, a: AttrValue): onnxProto.onnx.IAttributeProto {
  const enc = new TextEncoder();
  switch (a.kind) {
    case 'int': return { name, type: ATTR.INT, i: int64Field(a.value) };
    case 'float': return { name, type: ATTR.FLOAT, f: a.value };
    case 'string': return { name, type: ATTR.STRING, s: enc.encode(a.value) };
    case 'ints': return { name, type: ATTR.INTS, ints: a.value.map(int64Field) };
    case 'floats': return { name, type: ATTR.FLOATS, floats: a.value };
    case 'strings': return { name, type: ATTR.STRINGS, strings: a.value.map((s) => enc.encode(s)) };
    case 'tensor': return { name, type: ATTR.TENSOR, t: encodeTensor('', a.value) };
  }
}

function encodeNode(n: Node): onnxProto.onnx.INodeProto {
  return {
    name: n.name,
    opType: n.op,
    domain: n.domain,
    input: n.inputs,
    output: n.outputs,
    attribute: Object.entries(n.attrs).map(([k, v]) => encodeAttr(k, v)),
  };
}

export function encodeModel(graph: Graph, options: EncodeOptions = {}): Uint8Array {
  const tensor = (name: string): Tensor => {
    const t = graph.tensors.get(name);
    if (!t) throw new GenError('internal', 'graph names a tensor it does not hold', { tensor: name });
    return t;
  };
  const constants = [...graph.tensors.values()].filter((t) => t.data);
  const boundary = new Set([...graph.inputs, ...graph.outputs]);
  const inner = options.valueInfo
    ? [...graph.tensors.values()].filter((t) => !t.data && !boundary.has(t.name) && t.shape.length > 0 && t.shape.every((d) => d >= 0))
    : [];
  const domains = new Map<string, number>([['', options.opset ?? 13]]);
  for (const n of graph.nodes) if (n.domain && !domains.has(n.domain)) domains.set(n.domain, 1);
  for (const [d, v] of Object.entries(options.opsets ?? {})) domains.set(d, v);
  const model = onnx().ModelProto.create({
    irVersion: options.irVersion ?? 8,
    producerName: options.producer ?? 'firmgen',
    opsetImport: [...domains].map(([domain, version]) => ({ domain, version })),
    graph: {
      name: graph.name,
      node: graph.nodes.map(encodeNode),
      initializer: constants.map((t) => encodeTensor(t.name, t.data as NDArray)),
      input: graph.inputs.map((n) => valueInfo(tensor(n))),
      output: graph.outputs.map((n) => valueInfo(tensor(n))),
      valueInfo: inner.map(valueInfo),
    },
  });
  return onnx().ModelProto.encode(model).finish();
}

export function saveOnnx(path: string, graph: Graph, options: EncodeOptions = {}): void {
  try {
    writeFileSync(path, encodeModel(graph, options));
  } catch (e) {
    if (e instanceof GenError) throw e.withSite({ file: path });
    throw new GenError('input', `cannot write model: ${(e as Error).message}`, { file: path });
  }
}
