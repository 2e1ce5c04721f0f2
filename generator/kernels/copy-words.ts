import type { DType, IntType } from '../ir/dtype.js';
import { bytesOf, isIntType, rangeOf } from '../ir/dtype.js';
import { tensorOf, type Graph, type Node } from '../ir/graph.js';
import { collapse } from './loops.js';
import { MOVEMENT_OPS, partsOf } from './movement.js';
import type { PartSpec } from './parts.js';

/**
 * Data movement in words. A copy whose every operand runs contiguously along its innermost loop, in runs of a whole
 * number of words that start on word boundaries (a head transpose [P, H, 4] -> [H, P, 4] of int8: runs of 4 bytes,
 * a Concat or Slice along an outer axis, a constant Gather's rows), moves the same bytes as int32 elements: one load
 * and one store a word instead of four (the C's loop and the AS's charge both count elements, MOVE_ELEM each). The
 * tensors' buffers start on word boundaries (midend/plan.ts ALIGN, the tile buffers' 4-byte rounding), so word
 * offsets are word addresses; a misaligned word access would trap on the emulator's RV32 core (a named fault).
 */
const WORD: { bytes: number; dtype: IntType }[] = [{ bytes: 4, dtype: 'int32' }, { bytes: 2, dtype: 'int16' }];

/** The parts as copies of `dtype` elements (the same bytes), or undefined when some part cannot move in them. */
export function inWords(parts: PartSpec[]): { parts: PartSpec[]; dtype: DType } | undefined {
  if (parts.length === 0) return undefined;
  const dtype = parts[0].out.dtype;
  const operandsAll = parts.flatMap((p) => [...p.leaves, p.out]);
  if (operandsAll.some((o) => o.dtype !== dtype)) return undefined;
  const b = bytesOf(dtype);
  for (const w of WORD) {
    if (w.bytes <= b) continue;
    const widened = parts.map((p) => widen(p, b, w.bytes, w.dtype));
    if (widened.every((p) => p !== undefined)) return { parts: widened as PartSpec[], dtype: w.dtype };
  }
  return undefined;
}

/** One part in elements of `w` bytes (`b` bytes each now), or undefined. Identity copies and constant fills only. */
function widen(p: PartSpec, b: number, w: number, dtype: IntType): PartSpec | undefined {
  const fill = p.expr.k === 'const' && p.leaves.length === 0;
  const copy = p.expr.k === 'in' && p.expr.i === 0 && p.leaves.length === 1;
  if (!fill && !copy) return undefined;
  const n = collapse({ dims: p.dims, strides: [...p.leaves.map((l) => l.strides), p.out.strides] });
  const last = n.dims.length - 1;
  if (last < 0) return undefined;
  const k = w / b; // elements a word
  const offsets = [...p.leaves.map((l) => l.offset), p.out.offset];
  if (n.dims[last] % k !== 0 || n.strides.some((s) => s[last] !== 1)) return undefined;
  if (offsets.some((o) => o % k !== 0) || n.strides.some((s) => s.slice(0, last).some((x) => x % k !== 0))) return undefined;
  let dims = n.dims.map((d, i) => (i === last ? d / k : d));
  let strides = n.strides.map((s) => s.map((x, i) => (i === last ? 1 : x / k)));
  if (dims[last] === 1 && last > 0) {
    // The runs were one word each: every loop left strides, so the longest goes inside (one run's set-up, ~30 cycles
    // on the scalar core, per run: EEGFormer's head transpose of byte pairs ran 8-word runs at 1.7x its charge).
    const j = dims.slice(0, last).reduce((best, d, i) => (d >= dims[best] ? i : best), 0);
    const order = [...dims.keys()].filter((i) => i !== j && i !== last).concat([j]);
    dims = order.map((i) => dims[i]);
    strides = strides.map((s) => order.map((i) => s[i]));
  }
  const leaves = p.leaves.map((l, j) => ({ ...l, dtype, strides: strides[j], offset: l.offset / k, range: rangeOf(dtype) }));
  const out = { ...p.out, dtype, strides: strides[p.leaves.length], offset: p.out.offset / k };
  const expr = fill && p.expr.k === 'const' ? { k: 'const' as const, v: replicate(p.expr.v, b, w) } : p.expr;
  return { dims, leaves, out, expr };
}

/** A constant of `b` bytes repeated across a word of `w` bytes, as the signed value of the word's type. */
export function replicate(v: number, b: number, w: number): number {
  const unit = BigInt.asUintN(8 * b, BigInt(v));
  let word = 0n;
  for (let i = 0; i < w / b; i++) word = (word << BigInt(8 * b)) | unit;
  return Number(BigInt.asIntN(8 * w, word));
}

/** Elements of the node's type a moved element holds: 4 or 2 where its parts move in words, else 1. */
export function wordsPerElement(node: Node, graph: Graph): number {
  const y = tensorOf(graph, node.outputs[0]);
  const words = MOVEMENT_OPS.has(node.op) && isIntType(y.dtype) ? inWords(partsOf(node, graph)) : undefined;
  return words ? bytesOf(words.dtype) / bytesOf(y.dtype) : 1;
}
