import { GenError } from '../errors.js';
import type { DType } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { valueRange } from './common.js';

/*
 * Shared by the row kernels (pools, reductions, softmaxes, norms): which device types they read and write, and
 * the machine word of each intermediate. A word is int32 where the bound proves 32-bit arithmetic exact, int64
 * otherwise (SEMANTICS.md: products that can exceed 32 bits are computed in 64), so the common int8 case stays
 * 32-bit on a 32-bit core. Bounds are bigints: they may pass 2^53 before we know they fit 64 bits.
 */

export interface Word {
  c: string;
  as: string;
  wide: boolean;
}

export const I32_WORD: Word = { c: 'int32_t', as: 'i32', wide: false };
const I64_WORD: Word = { c: 'int64_t', as: 'i64', wide: true };
const MAX32 = 2n ** 31n - 1n;
const MAX64 = 2n ** 63n - 1n;

export type Site = { node: string; op: string };

export function siteOf(node: Node): Site {
  return { node: node.name, op: node.op };
}

/** The word holding every value of magnitude <= `maxAbs`; beyond 64 bits the kernel cannot be exact. */
export function wordFor(maxAbs: bigint, what: string, site: Site): Word {
  if (maxAbs <= MAX32) return I32_WORD;
  if (maxAbs <= MAX64) return I64_WORD;
  throw new GenError('unsupported', `${what} can reach ${maxAbs}, beyond 64-bit arithmetic`, site);
}

/**
 * The count to shift a value held in a word by, for an arithmetic shift right by s (floor division by 2^s): from the
 * word's width - 1 on, every such shift gives the value's sign (0 or -1), which a shift by width - 1 gives too; C
 * leaves a shift by the width or more undefined and wasm takes its count modulo the width (a fuzz mutation, iRMSNorm's
 * D = 2^36: the firmware shifted by 4 where the reference floor-divided by 2^36).
 */
export function shiftWithin(s: number, wide: boolean): number {
  return Math.min(s, wide ? 63 : 31);
}

export function maxAbs(...vals: bigint[]): bigint {
  return vals.reduce((m, v) => (v < 0n ? (-v > m ? -v : m) : v > m ? v : m), 0n);
}

/** Integer range of a tensor as bigints. */
export function bigRange(t: Tensor): { lo: bigint; hi: bigint; abs: bigint } {
  const r = valueRange(t);
  const lo = BigInt(r.min);
  const hi = BigInt(r.max);
  return { lo, hi, abs: maxAbs(lo, hi) };
}

/** Types a row kernel's buffers may have: the device types (int8, uint8, int16, int32). */
const DEVICE = new Set<DType>(['int8', 'uint8', 'int16', 'int32']);

/** null when every named tensor has a device type, else the reason for accepts(). */
export function deviceTypesReason(g: Graph, names: readonly string[]): string | null {
  for (const n of names) {
    if (!n) continue;
    const t = tensorOf(g, n);
    if (!DEVICE.has(t.dtype)) return `tensor '${t.name}' is ${t.dtype}, not int8/uint8/int16/int32`;
  }
  return null;
}

/** The common refusals of a row kernel's accepts(): wrong op, fused requantization, non-device types. */
export function rowAccepts(node: Node, g: Graph, ops: readonly string[], what: string, data = [...node.inputs, ...node.outputs]): string | null {
  if (!ops.includes(node.op)) return `not ${what}`;
  if (node.requant) return 'a fused requantization is not supported';
  return deviceTypesReason(g, data);
}

/** A row kernel's operands: rows of the last axis of x, written to y of the same shape. */
export function rowsOf(node: Node, g: Graph): { x: Tensor; y: Tensor; L: number; rows: number } {
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  if (x.shape.length === 0) throw new GenError('model', `${node.op} needs an input of rank >= 1`, siteOf(node));
  const L = x.shape[x.shape.length - 1];
  return { x, y, L, rows: L === 0 ? 0 : sizeOf(x.shape) / L };
}
