import type { DType } from '../../generator/ir/dtype.js';
import type { AttrValue, Graph, Node, Tensor } from '../../generator/ir/graph.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { encodeModel, type EncodeOptions } from '../../generator/onnx/save.js';

/**
 * A small ONNX model builder for tests: declare inputs, initializers, nodes and outputs, get the bytes.
 * Attributes given as plain values map to INT (integer numbers), FLOAT (other numbers), INTS/FLOATS (arrays),
 * STRING and TENSOR; pass an AttrValue such as `float(1)` where ONNX wants a FLOAT holding an integer.
 */
export type AttrInput = number | number[] | string | NDArray | AttrValue;

export const float = (value: number): AttrValue => ({ kind: 'float', value });
export const floats = (value: number[]): AttrValue => ({ kind: 'floats', value });

function toAttr(v: AttrInput): AttrValue {
  if (typeof v === 'number') return Number.isInteger(v) ? { kind: 'int', value: v } : { kind: 'float', value: v };
  if (typeof v === 'string') return { kind: 'string', value: v };
  if (Array.isArray(v)) return v.every(Number.isInteger) ? { kind: 'ints', value: v } : { kind: 'floats', value: v };
  if ('kind' in v) return v;
  return { kind: 'tensor', value: v };
}

export class OnnxBuilder {
  private readonly tensors = new Map<string, Tensor>();
  private readonly nodes: Node[] = [];
  private readonly inputs: string[] = [];
  private readonly outputs: string[] = [];
  /** Outputs declared without a shape: filled in by inference when the model is built. */
  private readonly unshaped = new Set<string>();

  constructor(private readonly name = 'test', private readonly options: EncodeOptions = {}) {}

  input(name: string, dtype: DType, shape: number[]): this {
    this.tensors.set(name, { name, dtype, shape: [...shape] });
    this.inputs.push(name);
    return this;
  }

  initializer(name: string, dtype: DType, shape: number[], values: ArrayLike<number>): this {
    const data = ndarray(dtype, shape, values);
    this.tensors.set(name, { name, dtype, shape: [...shape], data });
    return this;
  }

  node(op: string, inputs: string[], outputs: string[], attrs: Record<string, AttrInput> = {}, domain = ''): this {
    const name = `${op}_${this.nodes.length}`;
    this.nodes.push({ name, op, domain, inputs, outputs, attrs: Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, toAttr(v)])) });
    for (const o of outputs) if (!this.tensors.has(o)) this.tensors.set(o, { name: o, dtype: 'float32', shape: [] });
    return this;
  }

  /** A graph output with its ONNX element type; without a shape, the shape inference computes it. */
  output(name: string, dtype: DType, shape?: number[]): this {
    const t = this.tensors.get(name);
    this.tensors.set(name, { ...(t ?? { name }), name, dtype, shape: shape ? [...shape] : [] });
    if (!shape) this.unshaped.add(name);
    this.outputs.push(name);
    return this;
  }

  graph(): Graph {
    const g: Graph = {
      name: this.name, source: `${this.name}.onnx`, tensors: new Map([...this.tensors].map(([k, t]) => [k, { ...t }])),
      nodes: this.nodes.map((n) => ({ ...n })), inputs: [...this.inputs], outputs: [...this.outputs],
    };
    if (this.unshaped.size > 0) {
      const inferred = inferGraph(g);
      for (const o of this.unshaped) (g.tensors.get(o) as Tensor).shape = [...(inferred.tensors.get(o) as Tensor).shape];
    }
    return g;
  }

  bytes(): Uint8Array {
    return encodeModel(this.graph(), this.options);
  }
}
