import { attrInt, attrInts, attrNumber, attrString, hasAttr } from '../../ir/attrs.js';
import { isIntType, narrowestType, rangeOf, unionRange, type DType } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, ndarray, sizeOf, stridesOf, type NDArray } from '../../ir/ndarray.js';
import { normAxis } from '../broadcast.js';
import {
  constValues, isFloatType, modelError, need, rangeOfInfo, unsupported, type OpSpec, type Operands, type TensorInfo,
} from '../op-spec.js';

/*
 * Pad, Concat, Slice and Gather: exact data movement, the output keeps the input's element type. Operands that
 * shape the output (pads, starts/ends/axes/steps) are read from constant inputs or, in old opsets, attributes.
 */

/**
 * out[i0, i1, ...] = x[maps[0][i0], maps[1][i1], ...], or `fill` where some map entry is -1. One per-axis index
 * table each, so Pad and Slice share one copy loop.
 */
function remap(x: NDArray, outShape: number[], maps: Int32Array[], fill: number): NDArray {
  const out = ndarray(x.dtype, outShape);
  const n = out.data.length;
  const rank = outShape.length;
  const strides = stridesOf(x.shape);
  const idx = new Array<number>(rank).fill(0);
  for (let f = 0; f < n; f++) {
    let off = 0;
    let inside = true;
    for (let d = 0; d < rank; d++) {
      const m = maps[d][idx[d]];
      if (m < 0) {
        inside = false;
        break;
      }
      off += m * strides[d];
    }
    out.data[f] = inside ? x.data[off] : fill;
    for (let d = rank - 1; d >= 0; d--) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// ---------------------------------------------------------------- Pad

export interface PadSpec { begin: number[]; end: number[]; value: number }

/** A constant operand's values by input index, undefined where the node has no such input. */
export type OperandValues = (i: number) => number[] | undefined;

function padSpec(node: Node, x: readonly number[], pads: number[] | undefined, value: number | undefined, axes: number[] | undefined): PadSpec {
  const mode = hasAttr(node, 'mode') ? attrString(node, 'mode') : 'constant';
  if (mode !== 'constant') throw unsupported(node, `Pad mode '${mode}' (only constant)`);
  const p = pads ?? attrInts(node, 'pads');
  const ax = (axes ?? x.map((_, i) => i)).map((a) => normAxis(a, x.length));
  if (p.length !== 2 * ax.length) throw modelError(node, `${p.length} pads for ${ax.length} axes`);
  const begin = new Array<number>(x.length).fill(0);
  const end = new Array<number>(x.length).fill(0);
  ax.forEach((a, i) => {
    begin[a] = p[i];
    end[a] = p[i + ax.length];
  });
  const v = value ?? (hasAttr(node, 'value') ? attrNumber(node, 'value') : 0);
  return { begin, end, value: v };
}

function padShape(x: readonly number[], s: PadSpec): number[] {
  return x.map((d, i) => d + s.begin[i] + s.end[i]);
}

/**
 * A Pad's pads, value and axes: from its constant inputs when present (opset 11+), else its attributes (opset 1..10).
 * The movement kernel reads them here too (kernels/movement.ts), so the firmware pads as the reference does: a fuzz
 * mutation gave an opset-13 Pad a `value` attribute of -Infinity beside its value input, which the reference ignored
 * and the kernel took (spinnaker2: "internal error ... -Infinity").
 */
export function padSpecOf(node: Node, x: readonly number[], operand: OperandValues): PadSpec {
  return padSpec(node, x, operand(1), operand(2)?.[0], operand(3));
}

/** An OpSpec's operands as OperandValues. */
function operandValues<T>(inputs: Operands<T>, values: (t: T) => number[]): OperandValues {
  return (i) => (inputs[i] !== undefined ? values(inputs[i]!) : undefined);
}

export const padOp: OpSpec = {
  ops: ['Pad'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    return [padShape(x, padSpecOf(node, x, operandValues(inputs, (t) => constValues(node, t, 'Pad operand'))))];
  },
  range(node, inputs) {
    const x = need(node, inputs, 0);
    const s = padSpecOf(node, x.shape, operandValues(inputs, (t) => constValues(node, t, 'Pad operand')));
    const r = rangeOfInfo(x);
    const padded = s.begin.some((b, i) => b > 0 || s.end[i] > 0);
    return [padded ? { min: Math.min(r.min, s.value), max: Math.max(r.max, s.value) } : r];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const s = padSpecOf(node, x.shape, operandValues(inputs, (t) => Array.from(t.data)));
    const shape = padShape(x.shape, s);
    const maps = shape.map((d, a) => Int32Array.from({ length: d }, (_, i) => {
      const j = i - s.begin[a];
      return j >= 0 && j < x.shape[a] ? j : -1;
    }));
    const out = remap(x, shape, maps, isFloatType(x.dtype) ? Math.fround(s.value) : s.value);
    // A pad value beyond the input's integer type widens the result (as the range above says, and as the firmware
    // types it): the label must hold the values, or whoever stores them as that type would cut them.
    if (isIntType(x.dtype) && !isFloatType(x.dtype)) {
      const r = rangeOf(x.dtype);
      if (s.value < r.min || s.value > r.max) return [{ ...out, dtype: narrowestType(unionRange(r, { min: s.value, max: s.value })) }];
    }
    return [out];
  },
};

// ---------------------------------------------------------------- Slice

export interface SliceAxis { start: number; step: number; count: number }

/** ONNX Slice clamping: negative indices count from the end, then clamp to the axis (INT64_MAX ends included). */
function sliceAxes(node: Node, x: readonly number[], starts: number[], ends: number[], axes?: number[], steps?: number[]): SliceAxis[] {
  const res: SliceAxis[] = x.map((d) => ({ start: 0, step: 1, count: d }));
  const ax = axes ?? starts.map((_, i) => i);
  if (ends.length !== starts.length || ax.length !== starts.length || (steps && steps.length !== starts.length)) {
    throw modelError(node, 'starts, ends, axes and steps must have the same length');
  }
  ax.forEach((a0, i) => {
    const a = normAxis(a0, x.length);
    const dim = x[a];
    const step = steps ? steps[i] : 1;
    if (step === 0) throw modelError(node, 'Slice step 0');
    let s = starts[i] < 0 ? starts[i] + dim : starts[i];
    let e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (step > 0) {
      s = Math.min(Math.max(s, 0), dim);
      e = Math.min(Math.max(e, 0), dim);
    } else {
      s = Math.min(Math.max(s, 0), dim - 1);
      e = Math.min(Math.max(e, -1), dim - 1);
    }
    res[a] = { start: s, step, count: Math.max(0, Math.ceil((e - s) / step)) };
  });
  return res;
}

/**
 * Every axis's start, step and count of a Slice, its operands from constant inputs (opset 10+) or attributes (opset
 * 1). The movement kernel's view reads them here too (kernels/movement.ts): a fuzz mutation gave an opset-13 Slice an
 * `axes` attribute beside its axes input, which the reference ignored and a copy of this in the kernel took.
 */
export function sliceAxesOf(node: Node, x: readonly number[], operand: OperandValues): SliceAxis[] {
  const get = (i: number, attr: string): number[] | undefined => operand(i) ?? (hasAttr(node, attr) ? attrInts(node, attr) : undefined);
  const starts = get(1, 'starts');
  const ends = get(2, 'ends');
  if (!starts || !ends) throw modelError(node, 'Slice needs starts and ends');
  return sliceAxes(node, x, starts, ends, get(3, 'axes'), get(4, 'steps'));
}

export const sliceOp: OpSpec = {
  ops: ['Slice'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    return [sliceAxesOf(node, x, operandValues(inputs, (t) => constValues(node, t, 'Slice operand'))).map((s) => s.count)];
  },
  range: (node, inputs) => [rangeOfInfo(inputs[0])],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const spec = sliceAxesOf(node, x.shape, operandValues(inputs, (t) => Array.from(t.data)));
    const maps = spec.map((s) => Int32Array.from({ length: s.count }, (_, i) => s.start + i * s.step));
    return [remap(x, spec.map((s) => s.count), maps, 0)];
  },
};

// ---------------------------------------------------------------- Concat

function concatDType(arrays: readonly NDArray[]): DType {
  if (arrays.some((a) => isFloatType(a.dtype))) return 'float32';
  return arrays.every((a) => a.dtype === arrays[0].dtype) ? arrays[0].dtype : 'int64';
}

function concatShape(node: Node, shapes: readonly (readonly number[])[]): { shape: number[]; axis: number } {
  if (shapes.length === 0) throw modelError(node, 'Concat without inputs');
  const rank = shapes[0].length;
  const axis = normAxis(attrInt(node, 'axis'), rank);
  const shape = [...shapes[0]];
  shape[axis] = 0;
  for (const s of shapes) {
    if (s.length !== rank || s.some((d, i) => i !== axis && d !== shapes[0][i])) {
      throw modelError(node, `cannot concatenate ${shapes.map(formatShape).join(', ')} along axis ${axis}`);
    }
    shape[axis] += s[axis];
  }
  return { shape, axis };
}

export const concatOp: OpSpec = {
  ops: ['Concat'],
  shape: (node, inputs) => [concatShape(node, inputs.filter((i): i is TensorInfo => !!i).map((i) => i.shape)).shape],
  range(node, inputs) {
    const rs = inputs.filter((i): i is TensorInfo => !!i).map(rangeOfInfo);
    return [{ min: Math.min(...rs.map((r) => r.min)), max: Math.max(...rs.map((r) => r.max)) }];
  },
  evaluate(node, inputs) {
    const arrays = inputs.filter((i): i is NDArray => !!i);
    const { shape, axis } = concatShape(node, arrays.map((a) => a.shape));
    const out = ndarray(concatDType(arrays), shape);
    // Copy contiguous blocks: everything after `axis` is one block per outer index.
    const outer = sizeOf(shape.slice(0, axis));
    const inner = sizeOf(shape.slice(axis + 1));
    let off = 0;
    for (let o = 0; o < outer; o++) {
      for (const a of arrays) {
        const len = a.shape[axis] * inner;
        out.data.set(a.data.subarray(o * len, (o + 1) * len), off);
        off += len;
      }
    }
    return [out];
  },
};

// ---------------------------------------------------------------- Gather

function gatherShape(node: Node, data: readonly number[], indices: readonly number[]): { shape: number[]; axis: number } {
  const axis = normAxis(attrInt(node, 'axis', 0), data.length);
  return { shape: [...data.slice(0, axis), ...indices, ...data.slice(axis + 1)], axis };
}

export const gatherOp: OpSpec = {
  ops: ['Gather'],
  shape: (node, inputs) => [gatherShape(node, need(node, inputs, 0).shape, need(node, inputs, 1).shape).shape],
  range: (node, inputs) => [rangeOfInfo(inputs[0])],
  evaluate(node, inputs) {
    const data = need(node, inputs, 0);
    const indices = need(node, inputs, 1);
    const { shape, axis } = gatherShape(node, data.shape, indices.shape);
    const out = ndarray(data.dtype, shape);
    const dim = data.shape[axis];
    const outer = sizeOf(data.shape.slice(0, axis));
    const inner = sizeOf(data.shape.slice(axis + 1));
    const ni = indices.data.length;
    for (let o = 0; o < outer; o++) {
      for (let j = 0; j < ni; j++) {
        let k = indices.data[j];
        if (k < 0) k += dim;
        if (!(k >= 0 && k < dim)) throw modelError(node, `index ${indices.data[j]} out of range for axis of size ${dim}`);
        const src = (o * dim + k) * inner;
        out.data.set(data.data.subarray(src, src + inner), (o * ni + j) * inner);
      }
    }
    return [out];
  },
};
