import { GenError } from '../errors.js';
import type { Node } from './graph.js';

/*
 * Attribute accessors. The integer dialect stores scalars variously as INT, FLOAT or 1-element TENSOR
 * attributes (SEMANTICS.md section 1): every accessor accepts all three and checks integrality where it matters.
 */

function missing(node: Node, name: string): GenError {
  return new GenError('model', `missing attribute '${name}'`, { node: node.name, op: node.op });
}

export function hasAttr(node: Node, name: string): boolean {
  return node.attrs[name] !== undefined;
}

export function attrNumber(node: Node, name: string, fallback?: number): number {
  const a = node.attrs[name];
  if (a === undefined) {
    if (fallback === undefined) throw missing(node, name);
    return fallback;
  }
  switch (a.kind) {
    case 'int': case 'float': return a.value;
    case 'ints': case 'floats': if (a.value.length >= 1) return a.value[0]; break;
    case 'tensor': if (a.value.data.length >= 1) return a.value.data[0]; break;
  }
  throw new GenError('model', `attribute '${name}' is not a number`, { node: node.name, op: node.op });
}

export function attrInt(node: Node, name: string, fallback?: number): number {
  const v = attrNumber(node, name, fallback);
  if (!Number.isInteger(v)) {
    throw new GenError('model', `attribute '${name}' = ${v} must be an integer`, { node: node.name, op: node.op });
  }
  return v;
}

export function attrInts(node: Node, name: string, fallback?: number[]): number[] {
  const a = node.attrs[name];
  if (a === undefined) {
    if (fallback === undefined) throw missing(node, name);
    return fallback;
  }
  let values: number[];
  switch (a.kind) {
    case 'int': case 'float': values = [a.value]; break;
    case 'ints': case 'floats': values = [...a.value]; break;
    case 'tensor': values = Array.from(a.value.data, Number); break;
    default: throw new GenError('model', `attribute '${name}' is not a list of numbers`, { node: node.name, op: node.op });
  }
  // Axes, pads, strides, shapes: a fraction (a FLOAT attribute can hold one) would reach index arithmetic.
  const bad = values.find((v) => !Number.isSafeInteger(v));
  if (bad !== undefined) throw new GenError('model', `attribute '${name}' holds ${bad}: it must hold integers`, { node: node.name, op: node.op });
  return values;
}

export function attrString(node: Node, name: string, fallback?: string): string {
  const a = node.attrs[name];
  if (a === undefined) {
    if (fallback === undefined) throw missing(node, name);
    return fallback;
  }
  if (a.kind !== 'string') throw new GenError('model', `attribute '${name}' is not a string`, { node: node.name, op: node.op });
  return a.value;
}

/** log2 of a power-of-two attribute (div, D): a clear error when it is not one. */
export function attrLog2(node: Node, name: string): number {
  const v = attrNumber(node, name);
  const s = Math.round(Math.log2(v));
  // At least 1: below it the count would be negative, a shift C leaves undefined (D = 0.5 gave `>> -1`).
  if (!(v >= 1) || 2 ** s !== v) {
    throw new GenError('model', `attribute '${name}' = ${v} must be a power of two of at least 1`, { node: node.name, op: node.op });
  }
  return s;
}
