import { GenError } from '../errors.js';
import type { Node } from '../ir/graph.js';

/** A rejected model: kind 'model', naming the node and its op (the message sanitises the name). */
export function rejectNode(node: Node, reason: string): GenError {
  return new GenError('model', reason, { node: node.name, op: node.op });
}

export const INT32_MIN = -(2 ** 31);
export const INT32_MAX = 2 ** 31 - 1;

export function isInt32(v: number): boolean {
  return Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
}

/** A number for a message: exact integers as they are, others (0.5, Infinity, NaN) as JavaScript prints them. */
export function shown(v: number): string {
  return Number.isSafeInteger(v) || !Number.isInteger(v) ? String(v) : `${BigInt(v)}`;
}
