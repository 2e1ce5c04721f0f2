import type { DType } from '../ir/dtype.js';
import type { AttrValue, Graph, Node, Tensor } from '../ir/graph.js';
import { ndarray } from '../ir/ndarray.js';

/** A small graph writer for the quantizer's two outputs: tensors and nodes appended in a fixed order. */
export class GraphBuilder {
  readonly tensors = new Map<string, Tensor>();
  readonly nodes: Node[] = [];

  constructor(private readonly name: string, private readonly source: string) {}

  tensor(name: string, dtype: DType, shape: readonly number[]): string {
    if (!this.tensors.has(name)) this.tensors.set(name, { name, dtype, shape: [...shape] });
    return name;
  }

  constant(name: string, dtype: DType, shape: readonly number[], values: ArrayLike<number>): string {
    this.tensors.set(name, { name, dtype, shape: [...shape], data: ndarray(dtype, shape, values) });
    return name;
  }

  /** A copy of another graph's tensor (constants keep their data). */
  copy(t: Tensor): string {
    if (!this.tensors.has(t.name)) this.tensors.set(t.name, { ...t, shape: [...t.shape] });
    return t.name;
  }

  node(op: string, name: string, inputs: string[], outputs: string[], attrs: Record<string, AttrValue> = {}): void {
    this.nodes.push({ name, op, domain: '', inputs, outputs, attrs });
  }

  graph(inputs: string[], outputs: string[]): Graph {
    return { name: this.name, source: this.source, tensors: this.tensors, nodes: this.nodes, inputs, outputs };
  }
}

export const int = (value: number): AttrValue => ({ kind: 'int', value });
export const ints = (value: number[]): AttrValue => ({ kind: 'ints', value });
export const float = (value: number): AttrValue => ({ kind: 'float', value });

/** The device type of a quantized tensor. */
export function quantDType(signed: boolean, bits: 8 | 16 | 32): DType {
  if (bits === 32) return signed ? 'int32' : 'uint32';
  return bits === 16 ? (signed ? 'int16' : 'uint16') : signed ? 'int8' : 'uint8';
}
