import type { Expr } from '../../ir/graph.js';
import { shiftWithin } from '../../kernels/words.js';

/**
 * A fused elementwise expression (frontend/passes/fuse-elementwise.ts) as code for the fixed firmware's stack
 * machine: the firmware is the same for every model, so the expression travels in the DRAM image. Every value is
 * 64-bit on the stack: the expressions of SEMANTICS.md are exact in 64 bits (what the compiled kernels of the other
 * platforms get by choosing 32 or 64 bits per sub-expression). Words: an opcode in bits 0..7 and a small argument
 * in bits 8..31; CONST and CLIP are followed by 64-bit immediates as (low, high) word pairs.
 */
export const OP = {
  LEAF: 1, CONST: 2, ADD: 3, SUB: 4, MUL: 5, TDIV: 6, MIN: 7, MAX: 8, SHR: 9, CLIP: 10, ABS: 11, SIGN: 12, SIGNP: 13, WRAP8: 14,
} as const;

const BINARY: Record<string, number> = { add: OP.ADD, sub: OP.SUB, mul: OP.MUL, tdiv: OP.TDIV, min: OP.MIN, max: OP.MAX };
const UNARY: Record<string, number> = { abs: OP.ABS, sign: OP.SIGN, signp: OP.SIGNP, wrap8: OP.WRAP8 };

export interface Code {
  words: number[];
  /** Stack slots the code needs at most. */
  depth: number;
  /** Instructions executed per element (the firmware charges one ELEMENT each: fetch, dispatch, operate). */
  steps: number;
}

/** (low, high) words of a 64-bit two's complement integer. */
function imm64(v: number): number[] {
  const big = BigInt.asUintN(64, BigInt(v));
  return [Number(big & 0xffff_ffffn), Number(big >> 32n)];
}

export function compileExpr(e: Expr): Code {
  const words: number[] = [];
  let depth = 0;
  let steps = 0;
  const emit = (x: Expr, sp: number): void => {
    steps++;
    depth = Math.max(depth, sp + 1);
    switch (x.k) {
      case 'in': words.push(OP.LEAF | (x.i << 8)); return;
      case 'const': words.push(OP.CONST, ...imm64(x.v)); return;
      // The firmware shifts in 64 bits: a count of 64 or more is capped where every count gives the sign (shiftWithin).
      case 'shr': emit(x.a, sp); words.push(OP.SHR | (shiftWithin(x.s, true) << 8)); return;
      case 'clip': emit(x.a, sp); words.push(OP.CLIP, ...imm64(x.lo), ...imm64(x.hi)); return;
      case 'abs': case 'sign': case 'signp': case 'wrap8': emit(x.a, sp); words.push(UNARY[x.k]); return;
      default:
        emit(x.a, sp);
        emit(x.b, sp + 1);
        words.push(BINARY[x.k]);
    }
  };
  emit(e, 0);
  return { words, depth, steps };
}
