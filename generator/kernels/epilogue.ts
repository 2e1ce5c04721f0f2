import { emitExpr, fastestRequantExpr, requantExpr } from '../backend/expr.js';
import type { DType, IntRange } from '../ir/dtype.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { sizeOf } from '../ir/ndarray.js';
import { clampTestUnits, typeNames, valueRange } from './common.js';
import type { BufferArg } from './types.js';

/**
 * The output stage shared by conv and GEMM kernels: the int32 accumulator `acc` goes out as it is, or
 * requantized with parameters indexed by one output coordinate (channel, row or column).
 */
export interface Epilogue {
  args: BufferArg[];
  params: {
    requant: false | { clampTests: number; countsClips: boolean; mulAs: string; mulC: string; mulShift: number; addAs: string; addC: string; addShift: number; mulIdx: string; addIdx: string; wide: boolean; split: boolean; shiftedInt32: boolean };
    exprAs: string;
    exprC: string;
  };
}

/**
 * `indexOf` names the loop variable a parameter tensor is indexed by ('0' for a scalar): the kernel knows which
 * output axis a per-channel, per-row or per-column parameter follows. `branchyOut`, the output's type on a core whose
 * clamp branches (no p.clip): the AS counts the values the clamp changes (CLIP_TAKEN, charged by the kernel after its
 * loop) and each output's clamp test (CLIP_TEST), as the elementwise kernel does.
 */
export function epilogueOf(node: Node, g: Graph, acc: IntRange, indexOf: (param: Tensor) => string, branchyOut?: DType): Epilogue {
  const rq = node.requant;
  if (!rq) return { args: [], params: { requant: false, exprAs: 'acc', exprC: 'acc' } };
  const mul = tensorOf(g, rq.mul);
  const add = tensorOf(g, rq.add);
  const leaves = [{ name: 'acc', range: acc }, { name: 'm', range: valueRange(mul) }, { name: 'b', range: valueRange(add) }];
  const v = { k: 'in', i: 0 } as const;
  const m = { k: 'in', i: 1 } as const;
  const b = { k: 'in', i: 2 } as const;
  const wholeExpr = requantExpr(v, m, b, rq.shift, rq.min, rq.max);
  const countClips = branchyOut !== undefined;
  // A product past int32 split at bit 16 where its halves' steps fit int32 (backend/expr.ts fastestRequantExpr).
  const form = fastestRequantExpr(v, m, b, rq.shift, rq.min, rq.max, leaves, { countClips });
  const e = form.emitted;
  return {
    args: [
      { field: 'mul', tensor: mul.name, dtype: mul.dtype, write: false },
      { field: 'add', tensor: add.name, dtype: add.dtype, write: false },
    ],
    params: {
      requant: {
        clampTests: branchyOut ? clampTestUnits(e, branchyOut) : 0,
        countsClips: countClips,
        mulAs: typeNames(mul.dtype).as, mulC: typeNames(mul.dtype).c, mulShift: typeNames(mul.dtype).shift,
        addAs: typeNames(add.dtype).as, addC: typeNames(add.dtype).c, addShift: typeNames(add.dtype).shift,
        mulIdx: sizeOf(mul.shape) > 1 ? indexOf(mul) : '0',
        addIdx: sizeOf(add.shape) > 1 ? indexOf(add) : '0',
        // Some step needs 64 bits (the product acc * mul past int32): the AS charges REQUANT_WIDE on top of REQUANT;
        // or the product is split at bit 16 instead (two multiplies and three shifts): REQUANT_SPLIT.
        wide: e.used64,
        split: form.split,
        // The value before the clamp is int32 in the emitted code (a 64-bit product narrowed after its shift): the
        // emitter's own decision on the clamp's operand, which a hand-written output stage must follow.
        shiftedInt32: !e.used64 || !emitExpr(wholeExpr.k === 'clip' ? wholeExpr.a : wholeExpr, leaves).wide,
      },
      exprAs: e.wide ? `<i32>(${e.as})` : e.as,
      exprC: e.c,
    },
  };
}

export const I32_RANGE: IntRange = { min: -2147483648, max: 2147483647 };

/** Clamps a bound to int32: device accumulators are 32-bit (SEMANTICS.md: int32 results). */
export function accRange(bound: number): IntRange {
  const b = Math.min(bound, 2147483647);
  return { min: -b, max: b };
}
