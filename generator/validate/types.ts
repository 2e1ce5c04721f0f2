import { GenError, quoted } from '../errors.js';
import type { IntRange } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { isFloatType, type TensorInfo } from '../reference/op-spec.js';
import { padSpecOf } from '../reference/ops/data-movement.js';
import { opSpec } from '../reference/registry.js';
import { constantIsFloat, normalizeArray } from '../reference/value-kind.js';
import { checkSizes } from './sizes.js';
import { checkPoolWindows } from './windows.js';
import { INT32_MAX, INT32_MIN, isInt32, rejectNode, shown } from './site.js';

/*
 * The half of model validation that needs inferred shapes, types and ranges (after ir/infer.ts, before any platform
 * pass, so every platform fails the same way):
 * - every tensor fits the largest memory of any platform (sizes.ts);
 * - every integer result lies in int32: the device computes and stores integers in at most 32 bits (SEMANTICS.md:
 *   int32 results) while the reference is exact, so a result interval beyond int32 (int64 weights of 2^40, an Add
 *   of two full-range int32 tensors) would make the firmware silently disagree. Inference caps ranges at int32;
 *   the op's own interval over its inferred operands is recomputed here uncapped;
 * - a constant a kernel reads is an int32 (int64 constants only as shapes, axes and indices, which the generator
 *   evaluates itself);
 * - a Pad value is an integer of the padded tensor's range (a fraction cannot be emitted into an integer tensor);
 * - every MaxPool window sees an input element (windows.ts).
 */

/** Operands the generator evaluates at generation time (shapes, axes, pads, indices): any exact integer goes. */
const GENERATION_TIME: Record<string, number[]> = {
  Reshape: [1], Slice: [1, 2, 3, 4], Pad: [1, 3], Squeeze: [1], Unsqueeze: [1], ReduceSum: [1], ReduceMean: [1], Gather: [1],
};

function infoOf(t: Tensor): TensorInfo {
  if (t.data) {
    const float = constantIsFloat(t.data);
    return { shape: t.shape, dtype: t.dtype, range: t.range, data: normalizeArray(t.data, float) };
  }
  return { shape: t.shape, dtype: t.dtype, range: t.range };
}

function isIntegerTensor(t: Tensor | undefined): t is Tensor {
  return t !== undefined && !isFloatType(t.dtype);
}

function checkConstants(g: Graph, node: Node): void {
  const skip = GENERATION_TIME[node.op] ?? [];
  node.inputs.forEach((name, i) => {
    const t = name ? g.tensors.get(name) : undefined;
    if (!t?.data || skip.includes(i) || constantIsFloat(t.data)) return;
    const v = t.data.data;
    for (let k = 0; k < v.length; k++) {
      if (!isInt32(v[k])) {
        throw rejectNode(node, `constant ${quoted(t.name)} (input ${i}) holds ${shown(v[k])} at ${k}: kernels compute with int32 operands (${INT32_MIN}..${INT32_MAX})`);
      }
    }
  });
}

function uncappedRanges(g: Graph, node: Node): IntRange[] | undefined {
  const spec = opSpec(node.op);
  if (!spec?.range) return undefined;
  const inputs = node.inputs.map((n) => {
    const t = n ? g.tensors.get(n) : undefined;
    return t ? infoOf(t) : undefined;
  });
  try {
    return spec.range(node, inputs);
  } catch {
    return undefined; // inference already ran this function on the same operands; nothing new to learn
  }
}

function checkResults(g: Graph, node: Node): void {
  const ranges = uncappedRanges(g, node);
  if (!ranges) return;
  node.outputs.forEach((o, i) => {
    const t = o ? g.tensors.get(o) : undefined;
    const r = ranges[i];
    if (!isIntegerTensor(t) || !r) return;
    if (r.min < INT32_MIN || r.max > INT32_MAX) {
      throw rejectNode(node, `its result can reach ${shown(r.min < INT32_MIN ? r.min : r.max)}, beyond int32 (the device's widest integer) for operands in their inferred ranges`);
    }
  });
}

function checkPadValue(g: Graph, node: Node): void {
  if (node.op !== 'Pad') return;
  const x = g.tensors.get(node.inputs[0] ?? '');
  if (!isIntegerTensor(x)) return;
  // The value as the reference and the movement kernel read it (padSpecOf: the input before the attribute).
  const { value } = padSpecOf(node, x.shape, (i) => {
    const d = g.tensors.get(node.inputs[i] ?? '')?.data;
    return d ? Array.from(d.data) : undefined;
  });
  if (!isInt32(value)) throw rejectNode(node, `pad value ${shown(value)}: the padded tensor holds integers, the value must be an int32`);
}

/** Integer-dialect ops and the operands they compute on, which must hold integers (the reference refuses a float
 * there; a float constant with fractions, e.g. a bias, makes the tensor downstream float). */
const INTEGER_OPERANDS: Record<string, number[]> = {
  RequantShift: [0], iRMSNorm: [0], iLayerNorm: [0], iNoNorm: [0], IntegerDiv: [0, 1], iSoftmax: [0], ITAMax: [0],
  ITAPartialMax: [0], iGELU: [0], iHardswish: [0], TrueIntegerDiv: [0], IntegerMean: [0], TableSoftmax: [0, 1], QLayerNorm: [0, 1, 2],
};

function checkIntegerOperands(g: Graph, node: Node): void {
  for (const i of INTEGER_OPERANDS[node.op] ?? []) {
    const t = node.inputs[i] ? g.tensors.get(node.inputs[i]) : undefined;
    if (t && isFloatType(t.dtype)) throw rejectNode(node, `${node.op} needs an integer input: ${quoted(t.name)} holds fractions`);
  }
}

export function checkTypes(g: Graph): void {
  checkSizes(g);
  for (const node of g.nodes) {
    try {
      checkConstants(g, node);
      checkIntegerOperands(g, node);
      checkPadValue(g, node);
      checkPoolWindows(g, node);
      checkResults(g, node);
    } catch (e) {
      if (e instanceof GenError) throw e;
      throw new GenError('model', (e as Error).message, { node: node.name, op: node.op });
    }
  }
}
