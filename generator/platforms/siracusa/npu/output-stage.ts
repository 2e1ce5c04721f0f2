// Maps a fused requantization (SEMANTICS.md section 1, RequantShift: clip((acc*mul + add + 2^(s-1)) >> s)) onto the
// N-EUREKA output stage (section 3: t = acc*scale; t = sat32(wrap32(t) + bias); relu; t >> shift; saturate).
// The two agree when scale = mul >= 0, bias = add + rounding (+ conv bias * mul), the clip range is exactly int8 or
// uint8 (uint8 needs the ReLU), and acc*scale + bias provably stays inside int32 for every input (so neither the
// wrap nor the saturation of the engine ever acts). Otherwise the engine writes int32 and the cores requantize.

import type { IntRange } from '../../../ir/dtype.js';
import type { NpuOutputStage } from './registers.js';

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

export interface StageInput {
  requant?: { mul: number[]; add: number[]; shift: number; min: number; max: number };
  /** Conv/GEMM bias per output channel (added to the accumulator before the requantization). */
  bias?: number[];
  /** Range of the raw accumulator (without bias) per output channel. */
  acc: IntRange[];
}

export type StageChoice =
  | { kind: 'npu'; stage: NpuOutputStage; scale: number[]; bias: number[] }
  | { kind: 'int32'; why: string };

const at = (v: number[], c: number): number => (v.length === 1 ? v[0] : v[c]);

export function mapOutputStage(s: StageInput): StageChoice {
  const channels = s.acc.length;
  const rq = s.requant;
  if (!rq) {
    if (s.bias) return { kind: 'int32', why: 'a bias without requantization needs the cores' };
    return { kind: 'npu', stage: { normQuant: false, scale32: false, bias: false, relu: false, shift: 0 }, scale: [], bias: [] };
  }
  const relu = rq.min === 0 && rq.max === 255;
  if (!relu && !(rq.min === -128 && rq.max === 127)) return { kind: 'int32', why: `clip range [${rq.min}, ${rq.max}] is not int8 or uint8` };
  if (rq.shift > 31) return { kind: 'int32', why: `shift ${rq.shift} exceeds the engine's 5 bits` };
  const scale: number[] = [];
  const bias: number[] = [];
  const round = rq.shift > 0 ? 2 ** (rq.shift - 1) : 0;
  for (let c = 0; c < channels; c++) {
    const m = at(rq.mul, c);
    if (m < 0 || !Number.isInteger(m) || m > 0xffffffff) return { kind: 'int32', why: `multiplier ${m} is not an unsigned 32-bit scale` };
    const b = (s.bias ? at(s.bias, c) * m : 0) + at(rq.add, c) + round;
    const lo = Math.min(s.acc[c].min * m, s.acc[c].max * m) + b;
    const hi = Math.max(s.acc[c].min * m, s.acc[c].max * m) + b;
    if (b < I32_MIN || b > I32_MAX || lo < I32_MIN || hi > I32_MAX) {
      return { kind: 'int32', why: 'acc*mul + add may leave int32 (the engine would wrap): requantized on the cores' };
    }
    scale.push(m);
    bias.push(b);
  }
  const scale32 = scale.some((m) => m > 255);
  return { kind: 'npu', stage: { normQuant: true, scale32, bias: true, relu, shift: rq.shift }, scale, bias };
}

/** Exact range of sum_i w_i * x_i for x in [xr.min, xr.max], per output channel. */
export function accRanges(weights: (co: number) => ArrayLike<number>, channels: number, xr: IntRange): IntRange[] {
  const out: IntRange[] = [];
  for (let c = 0; c < channels; c++) {
    const w = weights(c);
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < w.length; i++) {
      const a = w[i] * xr.min;
      const b = w[i] * xr.max;
      lo += Math.min(a, b);
      hi += Math.max(a, b);
    }
    out.push({ min: lo, max: hi });
  }
  return out;
}
