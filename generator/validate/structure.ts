import { GenError, quoted } from '../errors.js';
import { opSpec } from '../reference/registry.js';

/*
 * Graph well-formedness, checked on the lists the model file holds, before any map merges duplicates or the
 * topological sort runs: every tensor has a name and exactly one source (a graph input, an initializer or one node),
 * every graph output and every node input has a source. A duplicate would otherwise be resolved silently (the last
 * initializer wins) or reported as something it is not (two writers of one tensor look like a cycle).
 */

export interface RawNode {
  /** The name the loader gave the node (unique). */
  name: string;
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
}

export interface RawGraph {
  inputs: readonly string[];
  outputs: readonly string[];
  initializers: readonly string[];
  /** Every node in file order, Constant nodes included. */
  nodes: readonly RawNode[];
}

/**
 * Input positions ONNX lets a node omit (an empty name), by op; everywhere else an operand is required (a kernel
 * would look for a tensor named ''). Zero points of the QOperator ops default to 0. Ops firmgen does not know are
 * left to the 'not supported' error of inference.
 */
const OPTIONAL_INPUTS: Record<string, number[]> = {
  Conv: [2], ConvInteger: [2, 3], QLinearConv: [2, 5, 7, 8], Gemm: [2], MatMulInteger: [2, 3], QLinearMatMul: [2, 5, 7],
  QGemm: [2, 5, 6, 7, 8], QLinearAdd: [2, 5, 7], QLinearMul: [2, 5, 7], QuantizeLinear: [2], DequantizeLinear: [2],
  Pad: [1, 2, 3], Slice: [3, 4], Clip: [1, 2], ReduceSum: [1], ReduceMean: [1], Squeeze: [1], Unsqueeze: [1],
};

/**
 * The most inputs each ONNX op takes (ONNX operator spec; Concat is variadic). An extra operand would reach a kernel
 * or the tiler as a tensor the op never reads. firmgen's own dialect ops are left to their kernels.
 */
const MAX_INPUTS: Record<string, number> = {
  Add: 2, Sub: 2, Mul: 2, Div: 2, AveragePool: 1, GlobalAveragePool: 1, MaxPool: 1, Clip: 3, Conv: 3, ConvInteger: 4,
  QuantizeLinear: 3, DequantizeLinear: 3, Flatten: 1, Gather: 2, Gemm: 3, Identity: 1, MatMul: 2, MatMulInteger: 4,
  Pad: 4, QGemm: 9, QLinearAdd: 8, QLinearMul: 8, QLinearConv: 9, QLinearMatMul: 8, ReduceMean: 2, ReduceSum: 2,
  Relu: 1, Reshape: 2, Round: 1, Slice: 5, Softmax: 1, Squeeze: 2, Unsqueeze: 2, Transpose: 1,
};

/** Inputs of firmgen's integer dialect ops (SEMANTICS.md section 1); all of them are needed. */
const DIALECT_INPUTS: Record<string, number> = {
  RequantShift: 3, iRMSNorm: 2, iLayerNorm: 3, iNoNorm: 3, IntegerDiv: 2, iSoftmax: 1, ITAMax: 1, ITAPartialMax: 1,
  iGELU: 1, iHardswish: 1, TrueIntegerDiv: 1, IntegerMean: 1, CacheWrite: 3, PositionMask: 2, TableSoftmax: 2, QLayerNorm: 3,
};

/** Dialect ops with an optional last operand: iSoftmax's position of a decoder's cache (quantize/stateful.ts). */
const DIALECT_OPTIONAL_LAST: Record<string, number> = { iSoftmax: 2 };

/** The fewest inputs a node of `op` can have: up to its last position that is not optional (a missing needed
 * operand would reach a kernel as a tensor with no name). */
function fewestInputs(op: string): number | undefined {
  if (DIALECT_INPUTS[op] !== undefined) return DIALECT_INPUTS[op];
  const most = MAX_INPUTS[op];
  if (most === undefined) return undefined;
  const optional = OPTIONAL_INPUTS[op] ?? [];
  let fewest = 0;
  for (let k = 0; k < most; k++) if (!optional.includes(k)) fewest = k + 1;
  return fewest;
}

function modelError(reason: string, node?: RawNode): GenError {
  return new GenError('model', reason, node ? { node: node.name, op: node.op } : {});
}

/** Throws a GenError (kind 'model') naming the first defect found. */
export function checkStructure(g: RawGraph): void {
  const source = new Map<string, string>();
  const claim = (name: string, what: string, node?: RawNode): void => {
    const before = source.get(name);
    if (before !== undefined) throw modelError(`tensor ${quoted(name)} is ${what}, but it is already ${before}: a tensor has one source`, node);
    source.set(name, what);
  };
  for (const name of g.initializers) {
    if (name === '') throw modelError('an initializer has no name');
    claim(name, 'an initializer');
  }
  const seenInputs = new Set<string>();
  for (const name of g.inputs) {
    if (name === '') throw modelError('a graph input has no name');
    if (seenInputs.has(name)) throw modelError(`graph input ${quoted(name)} is declared twice`);
    seenInputs.add(name);
    // ONNX lets an initializer also be listed as a graph input (a default value): the initializer is its source.
    if (!source.has(name)) source.set(name, 'a graph input');
  }
  for (const n of g.nodes) {
    if (n.outputs.length === 0 || n.outputs.every((o) => o === '')) throw modelError('the node has no output', n);
    n.outputs.forEach((o) => {
      // '' marks an omitted optional output.
      if (o !== '') claim(o, `written by node ${quoted(n.name)}`, n);
    });
  }
  for (const n of g.nodes) {
    const most = MAX_INPUTS[n.op];
    if (most !== undefined && n.inputs.length > most) throw modelError(`${n.inputs.length} inputs: ${n.op} takes at most ${most}`, n);
    const fewest = fewestInputs(n.op);
    if (fewest !== undefined && n.inputs.length < fewest) {
      throw modelError(`${n.inputs.length} input${n.inputs.length === 1 ? '' : 's'}: ${n.op} needs ${fewest}`, n);
    }
    const exact = DIALECT_OPTIONAL_LAST[n.op] ?? DIALECT_INPUTS[n.op];
    if (exact !== undefined && n.inputs.length > exact) throw modelError(`${n.inputs.length} inputs: ${n.op} takes ${exact}`, n);
    // Every op firmgen computes has one output (MaxPool's optional indices are not computed).
    if (opSpec(n.op) && n.outputs.filter((o) => o !== '').length > 1) {
      throw modelError(`${n.outputs.length} outputs: firmgen computes only the first output of ${n.op}`, n);
    }
    n.inputs.forEach((i, k) => {
      if (i === '' && opSpec(n.op) && !(OPTIONAL_INPUTS[n.op] ?? []).includes(k)) throw modelError(`input ${k} has no name: ${n.op} needs it`, n);
    });
    for (const i of n.inputs) {
      if (i !== '' && !source.has(i)) throw modelError(`input ${quoted(i)} is produced by no node and is not a graph input or initializer`, n);
    }
  }
  const seenOutputs = new Set<string>();
  for (const name of g.outputs) {
    if (name === '') throw modelError('a graph output has no name');
    if (seenOutputs.has(name)) throw modelError(`graph output ${quoted(name)} is declared twice`);
    seenOutputs.add(name);
    if (!source.has(name)) throw modelError(`graph output ${quoted(name)} is produced by no node and is not a graph input or initializer`);
    // The firmware computes its outputs into the arena; a constant is not computed (its value is in the model file).
    if (source.get(name) === 'an initializer') {
      throw new GenError('unsupported', `graph output ${quoted(name)} is a constant (an initializer): no layer computes it; read its value from the model, or output it through an Identity`);
    }
  }
}
