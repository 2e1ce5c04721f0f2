import { GenError, type ErrorSite } from '../../../errors.js';
import { attrInt } from '../../../ir/attrs.js';
import type { IntType } from '../../../ir/dtype.js';
import type { AttrValue, Graph, Node } from '../../../ir/graph.js';
import type { NDArray } from '../../../ir/ndarray.js';
import { quantType } from '../../../reference/ops/quantize.js';
import { opSpec } from '../../../reference/registry.js';
import { IntegerWriter, siteOf, typeRange, type QConst, type QParams, type QTensor } from './emit.js';
import type { ChainPending } from './layernorm-chain.js';
import type { LayerNormPending } from './layernorm.js';

/*
 * The state of one lowering walk (lower-quantized.ts): what each tensor of the original graph is in the lowered
 * graph, the writer of the lowered graph, and the operand readers the QDQ and QOperator lowerings share.
 */

const f32 = Math.fround;

/** A float computation on dequantized values, written as integer ops once a QuantizeLinear names its output. */
export type Pending =
  | { kind: 'linear'; node: Node; op: 'Conv' | 'Gemm' | 'MatMul'; x: QTensor; w: QConst; outAxis: number; bias?: Value; alpha: number; beta: number; attrs: Record<string, AttrValue> }
  | { kind: 'matmul' | 'add' | 'sub' | 'mul' | 'div'; node: Node; a: QTensor; b: QTensor }
  | { kind: 'gap' | 'avgpool'; node: Node; x: QTensor; shape: number[] }
  /** ReduceMean over `axes` (normalised), kept or not. */
  | { kind: 'mean'; node: Node; x: QTensor; shape: number[]; axes: number[]; keep: boolean }
  | { kind: 'concat'; node: Node; parts: QTensor[] }
  | { kind: 'rescale'; node: Node; x: QTensor }
  /** Softmax along the last axis (softmax.ts). */
  | { kind: 'softmax'; node: Node; x: QTensor }
  /** LayerNormalization along the last axis (layernorm.ts): real gains and biases per column. */
  | LayerNormPending
  /** A stage of torch's decomposed LayerNorm between one DQ and one Q (layernorm-chain.ts). */
  | ChainPending
  /** Float arithmetic of one 8-bit tensor alone, its dequantized value to the result (table.ts). */
  | { kind: 'table'; node: Node; x: QTensor; fn: (v: number) => number; what: string };

/** What an original tensor is in the lowered graph. */
export type Value =
  /** A float graph input (the firmware takes its QuantizeLinear's output instead). */
  | { k: 'input' }
  /** An integer tensor (q known when a quantizing op wrote it). */
  | { k: 'int'; name: string; q?: QParams }
  /** A float tensor equal to DequantizeLinear of an integer tensor. */
  | { k: 'fq'; t: QTensor }
  | { k: 'const'; data: NDArray }
  /** DequantizeLinear of a constant: weights, biases. */
  | { k: 'wq'; w: QConst }
  /** A pending float result, with the real interval a Relu/Clip after it keeps. */
  | { k: 'pend'; p: Pending; lo: number; hi: number };

export function unsupported(site: ErrorSite, reason: string): GenError {
  return new GenError('unsupported', reason, site);
}

/** Weights of Gemm/MatMul: a 2-D constant. */
export function checkMatrix(n: Node, w: QConst): void {
  if (w.data.shape.length !== 2) throw unsupported(siteOf(n), `weights of rank ${w.data.shape.length} (2-D weights are lowered)`);
}

export class LoweringContext {
  readonly values = new Map<string, Value>();
  readonly w: IntegerWriter;

  constructor(readonly g: Graph) {
    this.w = new IntegerWriter(g.name, g.source, [...g.tensors.keys(), ...g.nodes.map((n) => n.name)]);
    for (const t of g.tensors.values()) if (t.data) this.values.set(t.name, { k: 'const', data: t.data });
  }

  shapeOf(t: string): number[] {
    return this.g.tensors.get(t)?.shape ?? [];
  }

  valueOf(name: string): Value | undefined {
    return name ? this.values.get(name) : undefined;
  }

  /** K of a MatMul: the last dimension of its first operand. */
  innerDim(n: Node): number {
    const s = this.shapeOf(n.inputs[0]);
    return s[s.length - 1];
  }

  /** A constant operand (scale, zero point, weights) as an array, undefined when omitted. */
  constant(n: Node, i: number, what: string): NDArray | undefined {
    const name = n.inputs[i];
    if (!name) return undefined;
    const v = this.values.get(name);
    if (v?.k !== 'const') throw unsupported(siteOf(n), `${what} must be a constant`);
    return v.data;
  }

  /** Per-tensor activation parameters from a node's (scale, zero point) operands. */
  actParams(n: Node, si: number, zi: number): QParams {
    const s = this.constant(n, si, 'the scale');
    const z = this.constant(n, zi, 'the zero point');
    if (!s || s.data.length !== 1 || (z && z.data.length !== 1)) {
      throw unsupported(siteOf(n), 'per-axis quantization of an activation (only weights may have per-channel scales)');
    }
    // Opset 21: blocked scales and a type named by attribute instead of a zero point are not lowered (the type
    // would otherwise be read as uint8).
    if (attrInt(n, 'block_size', 0) !== 0) throw unsupported(siteOf(n), 'blocked quantization (block_size)');
    if (!z && n.attrs.output_dtype) throw unsupported(siteOf(n), 'a quantized type given by output_dtype without a zero point');
    const dtype = quantType(z);
    if (dtype !== 'int8' && dtype !== 'uint8') throw unsupported(siteOf(n), `quantized type ${dtype} (int8 and uint8 are lowered)`);
    if (!(s.data[0] > 0)) throw unsupported(siteOf(n), `scale ${s.data[0]} (scales must be positive)`);
    return { scale: f32(s.data[0]), zp: z ? z.data[0] : 0, dtype };
  }

  /** An integer activation operand with the parameters its reader gives it. */
  intOperand(n: Node, i: number, q: QParams): QTensor {
    const v = this.valueOf(n.inputs[i]);
    if (v?.k === 'int') return { name: v.name, ...q };
    if (v?.k === 'const') return { name: this.materialize(n, v.data, q.dtype), ...q };
    throw unsupported(siteOf(n), `input ${i} is not an integer tensor`);
  }

  /** A quantized constant operand of a QOperator op: integer data with the node's scale and zero point. */
  weightOperand(n: Node, di: number, si: number, zi: number, axis: number): QConst {
    const data = this.constant(n, di, 'the weight')!;
    const s = this.constant(n, si, 'the weight scale')!;
    const z = this.constant(n, zi, 'the weight zero point');
    return { data, scales: Array.from(s.data, f32), zps: z ? Array.from(z.data) : [0], axis };
  }

  /** An integer constant as a tensor of the lowered graph, checked against its type. */
  materialize(n: Node, data: NDArray, dtype: IntType): string {
    const [lo, hi] = typeRange(dtype);
    if (Array.from(data.data).some((v) => !Number.isInteger(v) || v < lo || v > hi)) {
      throw unsupported(siteOf(n), `a constant operand outside ${dtype}`);
    }
    return this.w.constant(`${n.name}_const`, dtype, data.shape, data.data);
  }

  /** A node on constants only (shape arithmetic, QuantizeLinear of float weights): evaluated now. */
  fold(n: Node): void {
    const spec = opSpec(n.op);
    if (!spec) throw unsupported(siteOf(n), `op ${n.op} is not supported`);
    const res = spec.evaluate(n, n.inputs.map((i) => {
      const v = this.valueOf(i);
      return v?.k === 'const' ? v.data : undefined;
    }));
    n.outputs.forEach((o, i) => this.values.set(o, { k: 'const', data: res[i] }));
  }

  /** A constant of the original graph (or folded from it) in the lowered graph, under its own name. */
  copyConstant(name: string): string {
    const v = this.values.get(name);
    if (v?.k !== 'const') throw new GenError('internal', `'${name}' is not a constant`);
    return this.w.b.tensors.has(name) ? name : this.w.b.constant(name, v.data.dtype, v.data.shape, v.data.data);
  }

  /** Marks `out` as the integer tensor of that name with quantization q. */
  setInt(out: string, q: QParams): QTensor {
    this.values.set(out, { k: 'int', name: out, q });
    return { name: out, ...q };
  }
}
