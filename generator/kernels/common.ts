import type { DType, IntRange } from '../ir/dtype.js';
import { asType, bytesOf, isIntType, rangeOf } from '../ir/dtype.js';
import type { Graph, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { rangeOfValues } from '../ir/dtype.js';

/** The value range a kernel may assume for a tensor: its constant data, else its inferred range, else its type. */
export function valueRange(t: Tensor): IntRange {
  if (t.data) return rangeOfValues(t.data.data);
  if (t.range) return t.range;
  if (isIntType(t.dtype)) return rangeOf(t.dtype);
  throw new Error(`tensor ${t.name} is not an integer tensor`);
}

export function elementShift(t: DType): number {
  return Math.log2(bytesOf(t));
}

/** Per-type names templates use: AS load/store type, C element type, log2 of the element size. */
export function typeNames(t: DType): { as: string; c: string; shift: number } {
  return { as: asType(t), c: t === 'bool' ? 'uint8_t' : `${t}_t`, shift: elementShift(t) };
}

export function tensors(g: Graph, names: readonly string[]): Tensor[] {
  return names.map((n) => tensorOf(g, n));
}

/** Chunk of `total` work units that core `c` of `n` takes (the split every template uses). */
export function chunkOf(total: number, c: number, n: number): [number, number] {
  const chunk = Math.ceil(total / n);
  const start = Math.min(c * chunk, total);
  return [start, Math.min(start + chunk, total)];
}

/** int8 or uint8: the element types the AS kernels' SIMD paths widen to int16 (exactly) before multiplying. */
export function byteWide(t: DType): boolean {
  return t === 'int8' || t === 'uint8';
}

/** Suffix of the wasm SIMD widening op for a byte type: sign- or zero-extension. */
export function extOf(t: DType): 's' | 'u' {
  return t === 'uint8' ? 'u' : 's';
}

/**
 * Window taps inside an input of `L` along one axis, summed over the outputs from..to-1 (stride S, leading pad P, K
 * taps, dilation D): the taps the C kernels compute, which skip the padding (conv's window rows, a pool's rows and
 * columns).
 */
export function tapsInside(from: number, to: number, S: number, P: number, K: number, D: number, L: number): number {
  let n = 0;
  for (let o = from; o < to; o++) {
    for (let t = 0; t < K; t++) {
      const i = o * S - P + t * D;
      if (i >= 0 && i < L) n++;
    }
  }
  return n;
}

/** Instructions that narrow a clamped int32 to the output type on rv32 (sign extension by two shifts, or an and). */
const CAST_INSTRUCTIONS: Partial<Record<DType, number>> = { int8: 2, int16: 2, uint8: 1, uint16: 2 };

/**
 * CLIP_TEST units of one value of an emitted expression on a core whose clamp branches (no p.clip): the instructions
 * of its clamps' tests (backend/expr.ts: the offset by a non-zero lower bound, the unsigned compare-and-branch; none
 * for a clamp its ranges leave out) and, where the clamp is the stored value, its narrowing to the output type, which
 * gcc keeps for the out-of-line block (two shifts for a signed 8- or 16-bit output, an and for uint8; read in the rv32
 * ELF's disassembly).
 */
export function clampTestUnits(emitted: { clampTestInstructions: number; storedClamp: boolean }, out: DType): number {
  return emitted.clampTestInstructions + (emitted.storedClamp ? CAST_INSTRUCTIONS[out] ?? 0 : 0);
}
