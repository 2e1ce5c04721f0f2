import { GenError } from '../errors.js';
import type { Node } from '../ir/graph.js';

/** A rejected model: kind 'model', naming the node and its op (the message sanitises the name). */
export function rejectNode(node: Node, reason: string): GenError {
  return new GenError('model', reason, { node: node.name, op: node.op });
}

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

/** An integer in int32's range (-0 included): exactly the numbers ToInt32 (`v | 0`) gives back unchanged. */
export function isInt32(v: number): boolean {
  // (One comparison: checkTypes runs this on every element of every constant, ~12 ms for an 8-layer decoder before.)
  return (v | 0) === v;
}

/** A number for a message: exact integers as they are, others (0.5, Infinity, NaN) as JavaScript prints them. */
export function shown(v: number): string {
  return Number.isSafeInteger(v) || !Number.isInteger(v) ? String(v) : `${BigInt(v)}`;
}
