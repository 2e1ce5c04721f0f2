import { roundHalfEven } from '../reference/exact.js';

/*
 * Scale arithmetic of the quantizer: symmetric int8 weight scales (per tensor, per channel, powers of two),
 * biases to int32, and real requantization multipliers to the integer (mul, shift) pairs of RequantShift
 * (SEMANTICS.md section 2: the firmware needs no floating point).
 * Scales are float32 values, because the QDQ model stores them as float32 and onnxruntime computes with those.
 */

const f32 = Math.fround;

/** Weights use [-127, 127]: a symmetric grid, so -w quantizes to -q (the -128 code is never used). */
export const WEIGHT_MAX = 127;
/** Largest requantization multiplier (exclusive): 15 bits keep the multiplier's relative error below 2^-14. */
export const MUL_LIMIT = 2 ** 15;
/** Largest shift (the accumulator product is computed in 64 bits when it needs them). */
export const MAX_SHIFT = 48;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The smallest power of two >= s (s > 0), as a float32. */
export function pow2Ceil(s: number): number {
  let e = Math.ceil(Math.log2(s));
  // log2 can be off by one ulp near exact powers: step to the tightest power that still covers s.
  if (2 ** (e - 1) >= s) e--;
  if (2 ** e < s) e++;
  return f32(2 ** e);
}

/** The scale that maps [-maxAbs, maxAbs] (or [0, maxAbs] unsigned) onto `levels` steps; 1 for an all-zero range. */
export function scaleFor(maxAbs: number, levels: number, pow2: boolean): number {
  if (!(maxAbs > 0)) return 1;
  const s = f32(maxAbs / levels);
  return pow2 ? pow2Ceil(s) : s;
}

export interface QuantizedWeights {
  /** Integer weights in [-127, 127], same layout as the float weights. */
  q: Float64Array;
  /** One scale per output channel (length 1 for per-tensor). */
  scales: number[];
}

/**
 * Symmetric int8 weights. `axis` is the output-channel axis of `shape`; `perChannel` gives every channel its own
 * scale.
 */
export function quantizeWeights(w: ArrayLike<number>, shape: readonly number[], axis: number, perChannel: boolean, pow2: boolean): QuantizedWeights {
  const channels = perChannel ? shape[axis] : 1;
  const inner = shape.slice(axis + 1).reduce((a, d) => a * d, 1);
  const channelOf = (i: number): number => (perChannel ? Math.floor(i / inner) % channels : 0);
  const maxAbs = new Array<number>(channels).fill(0);
  for (let i = 0; i < w.length; i++) maxAbs[channelOf(i)] = Math.max(maxAbs[channelOf(i)], Math.abs(w[i]));
  // An all-zero channel (a padded classifier row) takes the smallest scale of the others: any scale quantizes it to
  // zeros, and this one keeps its requantization multiplier from setting the layer's shift.
  const live = maxAbs.filter((m) => m > 0);
  const idle = live.length ? scaleFor(Math.min(...live), WEIGHT_MAX, pow2) : 1;
  const scales = maxAbs.map((m) => (m > 0 ? scaleFor(m, WEIGHT_MAX, pow2) : idle));
  const q = new Float64Array(w.length);
  for (let i = 0; i < w.length; i++) {
    const v = roundHalfEven(w[i] / scales[channelOf(i)]);
    q[i] = Math.max(-WEIGHT_MAX, Math.min(WEIGHT_MAX, v));
  }
  return { q, scales };
}

/** The int32 bias of one output channel: b / (s_x * s_w), the scale ONNX's QLinear ops give a bias. */
export function biasScale(inputScale: number, weightScale: number): number {
  return f32(inputScale * weightScale);
}

export function quantizeBias(b: number, scale: number): number {
  return Math.max(INT32_MIN, Math.min(INT32_MAX, roundHalfEven(b / scale)));
}

export interface MulShift {
  /** One multiplier per channel (length 1 when the multiplier is shared). */
  mul: number[];
  shift: number;
}

/**
 * Integer (mul, shift) for real multipliers M_j >= 0, one shared shift: mul_j = round(M_j * 2^shift) with the
 * largest shift that keeps every mul_j below 2^15, then common factors of two taken out of every mul_j and the
 * shift, so a power-of-two multiplier comes out as (1, k) and equal inputs always give equal pairs.
 * RequantShift then computes floor(x * mul / 2^shift + 1/2): x * M rounded half up.
 * `maxShift` lowers the shift's bound where the caller's add term (a zero point times 2^shift) must stay in int32.
 */
export function toMulShift(multipliers: readonly number[], maxShift = MAX_SHIFT, limit = MUL_LIMIT): MulShift {
  const top = Math.max(...multipliers);
  if (!(top > 0)) return { mul: multipliers.map(() => 0), shift: 0 };
  let shift = 0;
  while (shift < maxShift && Math.round(top * 2 ** (shift + 1)) < limit) shift++;
  let mul = multipliers.map((m) => Math.round(m * 2 ** shift));
  while (shift > 0 && mul.every((m) => m % 2 === 0)) {
    mul = mul.map((m) => m / 2);
    shift--;
  }
  return { mul, shift };
}

/*
 * Requantization multipliers held to 24 bits, the float32 mantissa onnxruntime multiplies with, where the shift
 * allows: the 15-bit pairs above leave up to 2^-16 of M, so a value within |y|·2^-16 of a rounding boundary came out
 * 1 LSB from onnxruntime, and a later product of two activations grew that to 2. RequantShift's acc·mul is its own
 * 64-bit product; the shift stays within what validate accepts (2^31). Both lowerings of standard layers use these
 * (quantize/lower.ts, frontend/passes/quantized/emit.ts), so `gen quantize --qdq`'s model lowers to its integer model.
 */
export const FINE_MUL_LIMIT = 2 ** 25;
export const FINE_MAX_SHIFT = 31;
const INT32_TOP = 2147483647;

/** (mul, shift) with up to 24-bit multipliers and a shift of at most min(maxShift, 31). */
export function fineMulShift(multipliers: readonly number[], maxShift = FINE_MAX_SHIFT): MulShift {
  return toMulShift(multipliers, Math.min(maxShift, FINE_MAX_SHIFT), FINE_MUL_LIMIT);
}

/**
 * The (mul_a, mul_b, shift) of an Add of two operands scaled to a common shift: the largest shift at which
 * |a|max·mul_a + |b|max·mul_b stays in int32 (the scaled operands and their sum are int32 Mul and Add results) and
 * `fits` accepts the pair (the caller's add term).
 */
export function addMulShift(ma: number, mb: number, aMax: number, bMax: number, maxShift = FINE_MAX_SHIFT,
  fits: (ms: MulShift) => boolean = () => true): MulShift {
  let ms = fineMulShift([ma, mb], maxShift);
  while (ms.shift > 0 && !(aMax * ms.mul[0] + bMax * ms.mul[1] <= INT32_TOP && fits(ms))) ms = fineMulShift([ma, mb], ms.shift - 1);
  return ms;
}

/** The real multiplier a (mul, shift) pair stands for. */
export function realOf(mul: number, shift: number): number {
  return mul / 2 ** shift;
}
