import { GenError } from '../errors.js';
import { isIntType, rangeOf, type DType, type IntRange } from '../ir/dtype.js';
import type { Node } from '../ir/graph.js';
import { ndarray, type NDArray } from '../ir/ndarray.js';

/** What shape and type inference knows about a tensor. */
export interface TensorInfo {
  shape: number[];
  dtype: DType;
  /** Value range of an integer tensor. */
  range?: IntRange;
  /** Values, when the tensor is a constant (or folded from constants). */
  data?: NDArray;
}

/** Operands of a node in input order; undefined marks an omitted optional input (ONNX '' names). */
export type Operands<T> = ReadonlyArray<T | undefined>;

/**
 * The semantics of one op (or a family of close ops), shared by the reference interpreter and inference.
 * Every function may throw; callers attach the node to plain errors.
 */
export interface OpSpec {
  ops: string[];
  /** Shape of every output. */
  shape(node: Node, inputs: Operands<TensorInfo>): number[][];
  /**
   * Element type of every output when the op fixes it (float32, or the zero point's type of a quantizing op);
   * undefined entries are integers typed by their range. Absent: float32 when any input is float, else integer.
   */
  dtype?(node: Node, inputs: Operands<TensorInfo>): (DType | undefined)[];
  /** Value range of every integer output; absent: unknowable, int32. */
  range?(node: Node, inputs: Operands<TensorInfo>): IntRange[];
  evaluate(node: Node, inputs: Operands<NDArray>): NDArray[];
  /**
   * Operands read at run time as a position (a decoder's step): each value must lie in [0, limit). The reference
   * refuses any other; the firmware would clamp it, so sample and run inputs are checked against it first
   * (validate/positions.ts).
   */
  positions?(node: Node, inputs: Operands<TensorInfo>): { operand: number; limit: number }[];
}

export const INT32_RANGE: IntRange = rangeOf('int32');

export function isFloatType(t: DType): boolean {
  return t === 'float32' || t === 'float64';
}

/** Integer results of the reference are exact, whatever their width: int64 means "exact integer" here. */
export function intArray(shape: readonly number[]): NDArray {
  return ndarray('int64', shape);
}

export function floatArray(shape: readonly number[]): NDArray {
  return ndarray('float32', shape);
}

/** The length of a tensor's last axis (a row). */
export const lastDim = (shape: readonly number[]): number => shape[shape.length - 1];

export function modelError(node: Node, reason: string): GenError {
  return new GenError('model', reason, { node: node.name, op: node.op });
}

export function unsupported(node: Node, reason: string): GenError {
  return new GenError('unsupported', reason, { node: node.name, op: node.op });
}

/** A required operand. */
export function need<T>(node: Node, inputs: Operands<T>, i: number, what = `input ${i}`): T {
  const v = inputs[i];
  if (v === undefined) throw modelError(node, `missing ${what}`);
  return v;
}

/** Values of a constant operand that drives shapes (pads, axes, a Reshape target). */
export function constValues(node: Node, info: TensorInfo | undefined, what: string): number[] {
  if (!info) throw modelError(node, `missing ${what}`);
  if (!info.data) throw unsupported(node, `${what} must be a constant`);
  return Array.from(info.data.data);
}

/** The range a tensor's values lie in: its inferred range, its integer type's, or int32. */
export function rangeOfInfo(info: TensorInfo | undefined): IntRange {
  if (info?.range) return info.range;
  if (info && isIntType(info.dtype) && info.dtype !== 'int64') return rangeOf(info.dtype);
  return INT32_RANGE;
}

/** Interval product: the range of a*b for a, b in the given ranges. */
export function mulRange(a: IntRange, b: IntRange): IntRange {
  const c = [a.min * b.min, a.min * b.max, a.max * b.min, a.max * b.max];
  return { min: Math.min(...c), max: Math.max(...c) };
}

export function addRange(a: IntRange, b: IntRange): IntRange {
  return { min: a.min + b.min, max: a.max + b.max };
}

export function scaleRange(a: IntRange, k: number): IntRange {
  return k >= 0 ? { min: a.min * k, max: a.max * k } : { min: a.max * k, max: a.min * k };
}
