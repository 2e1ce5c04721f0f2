import { attrInt, attrInts, hasAttr } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, ndarray, sizeOf, stridesOf, type NDArray } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import { constValues, modelError, need, rangeOfInfo, type OpSpec, type Operands, type TensorInfo } from '../op-spec.js';

/*
 * Ops that only reinterpret or permute: Reshape, Flatten, Squeeze, Unsqueeze, Identity share the input's values
 * (row-major order is unchanged; nothing in the reference mutates an array after it is produced), Transpose copies.
 */

function view(x: NDArray, shape: number[]): NDArray {
  return { dtype: x.dtype, shape, data: x.data };
}

const keepRange = (_node: Node, inputs: Operands<TensorInfo>) => [rangeOfInfo(inputs[0])];

export function reshapeTarget(node: Node, x: readonly number[], target: readonly number[]): number[] {
  const allowZero = attrInt(node, 'allowzero', 0) !== 0;
  const out = target.map((d, i) => (d === 0 && !allowZero ? x[i] : d));
  const known = out.filter((d) => d !== -1).reduce((a, d) => a * d, 1);
  const holes = out.filter((d) => d === -1).length;
  const total = sizeOf(x);
  if (holes > 1 || out.some((d) => d === undefined || d < -1)) throw modelError(node, `invalid Reshape target ${formatShape(target)}`);
  if (holes === 1) {
    if (known === 0 || total % known !== 0) throw modelError(node, `cannot reshape ${formatShape(x)} to ${formatShape(target)}`);
    out[out.indexOf(-1)] = total / known;
  }
  if (sizeOf(out) !== total) throw modelError(node, `cannot reshape ${formatShape(x)} to ${formatShape(target)}`);
  return out;
}

export const reshapeOp: OpSpec = {
  ops: ['Reshape'],
  shape: (node, inputs) => [reshapeTarget(node, need(node, inputs, 0).shape, constValues(node, inputs[1], 'Reshape shape'))],
  range: keepRange,
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    return [view(x, reshapeTarget(node, x.shape, Array.from(need(node, inputs, 1, 'shape').data)))];
  },
};

function flattenShape(node: Node, x: readonly number[]): number[] {
  let axis = attrInt(node, 'axis', 1);
  if (axis < 0) axis += x.length;
  if (axis < 0 || axis > x.length) throw modelError(node, `Flatten axis out of range for ${formatShape(x)}`);
  return [sizeOf(x.slice(0, axis)), sizeOf(x.slice(axis))];
}

export const flattenOp: OpSpec = {
  ops: ['Flatten'],
  shape: (node, inputs) => [flattenShape(node, need(node, inputs, 0).shape)],
  range: keepRange,
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    return [view(x, flattenShape(node, x.shape))];
  },
};

/** Axes from the attribute (opset < 13) or the second input (opset 13+). */
function axesOperand(node: Node, input: ArrayLike<number> | undefined): number[] | undefined {
  if (input) return Array.from(input);
  return hasAttr(node, 'axes') ? attrInts(node, 'axes') : undefined;
}

function squeezeShape(node: Node, x: readonly number[], axes: number[] | undefined): number[] {
  if (!axes) return x.filter((d) => d !== 1);
  const drop = new Set(axes.map((a) => normAxis(a, x.length)));
  for (const a of drop) if (x[a] !== 1) throw modelError(node, `cannot squeeze axis ${a} of ${formatShape(x)}`);
  return x.filter((_, i) => !drop.has(i));
}

function unsqueezeShape(node: Node, x: readonly number[], axes: number[] | undefined): number[] {
  if (!axes) throw modelError(node, 'Unsqueeze needs axes');
  const rank = x.length + axes.length;
  const ins = new Set(axes.map((a) => normAxis(a, rank)));
  if (ins.size !== axes.length) throw modelError(node, 'repeated Unsqueeze axes');
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < rank; i++) out.push(ins.has(i) ? 1 : x[j++]);
  return out;
}

export const squeezeOp: OpSpec = {
  ops: ['Squeeze'],
  shape: (node, inputs) => [squeezeShape(node, need(node, inputs, 0).shape,
    axesOperand(node, inputs[1] ? constValues(node, inputs[1], 'Squeeze axes') : undefined))],
  range: keepRange,
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    return [view(x, squeezeShape(node, x.shape, axesOperand(node, inputs[1]?.data)))];
  },
};

export const unsqueezeOp: OpSpec = {
  ops: ['Unsqueeze'],
  shape: (node, inputs) => [unsqueezeShape(node, need(node, inputs, 0).shape,
    axesOperand(node, inputs[1] ? constValues(node, inputs[1], 'Unsqueeze axes') : undefined))],
  range: keepRange,
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    return [view(x, unsqueezeShape(node, x.shape, axesOperand(node, inputs[1]?.data)))];
  },
};

/** Identity, and firmgen's L3Load/L3Store (midend/l3.ts): the same values in another memory. */
export const identityOp: OpSpec = {
  ops: ['Identity', 'L3Load', 'L3Store'],
  shape: (node, inputs) => [[...need(node, inputs, 0).shape]],
  range: keepRange,
  evaluate: (node, inputs) => [need(node, inputs, 0)],
};

function permOf(node: Node, rank: number): number[] {
  const perm = hasAttr(node, 'perm') ? attrInts(node, 'perm') : Array.from({ length: rank }, (_, i) => rank - 1 - i);
  if (perm.length !== rank || new Set(perm.map((p) => normAxis(p, rank))).size !== rank) {
    throw modelError(node, `invalid perm [${perm.join(', ')}] for rank ${rank}`);
  }
  return perm.map((p) => normAxis(p, rank));
}

export const transposeOp: OpSpec = {
  ops: ['Transpose'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    return [permOf(node, x.length).map((p) => x[p])];
  },
  range: keepRange,
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const perm = permOf(node, x.shape.length);
    const shape = perm.map((p) => x.shape[p]);
    const out = ndarray(x.dtype, shape);
    const inStrides = stridesOf(x.shape);
    const strides = perm.map((p) => inStrides[p]); // input stride of each output axis
    const rank = shape.length;
    const idx = new Array<number>(rank).fill(0);
    let off = 0;
    for (let f = 0; f < out.data.length; f++) {
      out.data[f] = x.data[off];
      for (let d = rank - 1; d >= 0; d--) {
        idx[d]++;
        off += strides[d];
        if (idx[d] < shape[d]) break;
        off -= strides[d] * idx[d];
        idx[d] = 0;
      }
    }
    return [out];
  },
};
