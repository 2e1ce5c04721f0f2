import { rangeOfValues, type IntRange } from '../../ir/dtype.js';
import type { Node } from '../../ir/graph.js';
import { formatShape, sizeOf, type NDArray } from '../../ir/ndarray.js';
import { exactDotBounds } from '../dot-bounds.js';
import { convStrideK, SgemmDot } from '../float32.js';
import {
  floatArray, intArray, isFloatType, modelError, need, rangeOfInfo, type OpSpec, type Operands,
  type TensorInfo,
} from '../op-spec.js';
import { groupOf, hasPadding, windowGeometry, windowOutputShape, type Window2D } from './window.js';

/*
 * Convolution (1-D/2-D, groups, pads, strides, dilations, optional bias). Integer operands give the exact integer
 * convolution; float operands give ORT's im2col + SGEMM arithmetic: per output, the MLAS-order float32 dot product
 * (float32.ts) over (input channel, kernel row, kernel column), padding taps included, then the bias.
 */

const f32 = Math.fround;
const LIMIT = 2 ** 53;

export function convGeometry(node: Node, x: readonly number[], w: readonly number[]): { g: Window2D; O: number; group: number } {
  const group = groupOf(node);
  if (w.length !== x.length) throw modelError(node, `weights ${formatShape(w)} do not match input ${formatShape(x)}`);
  const g = windowGeometry(node, x, w.slice(2));
  const O = w[0];
  if (g.C !== w[1] * group || O % group !== 0) {
    throw modelError(node, `input ${formatShape(x)}, weights ${formatShape(w)} and group ${group} do not agree`);
  }
  return { g, O, group };
}

function maxAbs(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]));
  return m;
}

/**
 * The convolution of x (N, C, H, W) with w (O, C/group, kh, kw) and zero padding. Integer mode switches to BigInt
 * accumulation when the worst-case sum could pass 2^53.
 */
export function convolve(
  geo: { g: Window2D; O: number; group: number }, x: ArrayLike<number>, w: ArrayLike<number>,
  bias: ArrayLike<number> | undefined, float: boolean, out: Float64Array,
): void {
  const { g, O, group } = geo;
  const { C, H, W, kh, kw, sh, sw, dh, dw, pt, pl, Ho, Wo } = g;
  const Cg = C / group;
  const Og = O / group;
  const big = !float && maxAbs(x) * maxAbs(w) * Cg * kh * kw + (bias ? maxAbs(bias) : 0) >= LIMIT;
  const dot = new SgemmDot();
  const strideK = convStrideK(Ho * Wo, Cg * kh * kw);
  let idx = 0;
  for (let n = 0; n < g.N; n++) {
    for (let o = 0; o < O; o++) {
      const cBase = Math.floor(o / Og) * Cg;
      const wBase = o * Cg * kh * kw;
      const b = bias ? bias[o] : 0;
      for (let oh = 0; oh < Ho; oh++) {
        for (let ow = 0; ow < Wo; ow++) {
          let acc = 0;
          let accBig = 0n;
          dot.reset(1, undefined, strideK);
          for (let c = 0; c < Cg; c++) {
            const xc = (n * C + cBase + c) * H * W;
            const wc = wBase + c * kh * kw;
            for (let i = 0; i < kh; i++) {
              const ih = oh * sh - pt + i * dh;
              const rowInside = ih >= 0 && ih < H;
              const xr = xc + ih * W;
              const wr = wc + i * kw;
              for (let j = 0; j < kw; j++) {
                const iw = ow * sw - pl + j * dw;
                const inside = rowInside && iw >= 0 && iw < W;
                // Padding taps still count in SGEMM's blocks of k; in integer sums they add nothing.
                if (float) dot.add(inside ? x[xr + iw] : 0, w[wr + j]);
                else if (!inside) continue;
                else if (big) accBig += BigInt(x[xr + iw]) * BigInt(w[wr + j]);
                else acc += x[xr + iw] * w[wr + j];
              }
            }
          }
          out[idx++] = float ? f32(dot.result() + b) : big ? Number(accBig + BigInt(b)) : acc + b;
        }
      }
    }
  }
}

export const convOp: OpSpec = {
  ops: ['Conv'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    const geo = convGeometry(node, x, need(node, inputs, 1).shape);
    // Checked with the shapes, so the generator refuses what evaluation would (kernels read O bias values).
    const b = inputs[2];
    if (b && sizeOf(b.shape) !== geo.O) throw modelError(node, `bias ${formatShape(b.shape)} does not match ${geo.O} output channels`);
    return [windowOutputShape(geo.g, geo.O)];
  },
  range(node, inputs) {
    return [convRange(node, inputs)];
  },
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const w = need(node, inputs, 1);
    const b = inputs[2];
    const geo = convGeometry(node, x.shape, w.shape);
    if (b && b.data.length !== geo.O) throw modelError(node, `bias ${formatShape(b.shape)} does not match ${geo.O} output channels`);
    const float = isFloatType(x.dtype) || isFloatType(w.dtype) || (b !== undefined && isFloatType(b.dtype));
    const shape = windowOutputShape(geo.g, geo.O);
    const out = float ? floatArray(shape) : intArray(shape);
    const fx = float ? x.data.map(f32) : x.data;
    const fw = float ? w.data.map(f32) : w.data;
    convolve(geo, fx, fw, b ? (float ? b.data.map(f32) : b.data) : undefined, float, out.data);
    return [out];
  },
};

/**
 * Range of an integer convolution: with constant weights, per output channel the sum over its weights of the
 * extreme products with the input range (zero joins the input range where padding is read; dot-bounds.ts sums it
 * by sign where that is exact); otherwise the worst case |x|max * |w|max * taps.
 */
export function convRange(node: Node, inputs: Operands<TensorInfo>): IntRange {
  const x = need(node, inputs, 0);
  const w = need(node, inputs, 1);
  const bias = inputs[2];
  const geo = convGeometry(node, x.shape, w.shape);
  let xr = rangeOfInfo(x);
  if (hasPadding(geo.g)) xr = { min: Math.min(xr.min, 0), max: Math.max(xr.max, 0) };
  const taps = w.shape.slice(1).reduce((a, d) => a * d, 1);
  // The bias of channel o: its value when constant, else its range.
  const biasOf = (o: number): IntRange => {
    if (!bias) return { min: 0, max: 0 };
    if (bias.data) return { min: bias.data.data[o], max: bias.data.data[o] };
    return rangeOfInfo(bias);
  };
  if (!w.data) {
    const wr = rangeOfInfo(w);
    const m = Math.max(Math.abs(xr.min), Math.abs(xr.max)) * Math.max(Math.abs(wr.min), Math.abs(wr.max)) * taps;
    const b = bias?.data ? rangeOfValues(bias.data.data) : bias ? rangeOfInfo(bias) : { min: 0, max: 0 };
    return { min: -m + b.min, max: m + b.max };
  }
  let min = Infinity;
  let max = -Infinity;
  const fold = (o: number, lo: number, hi: number): void => {
    const b = biasOf(o);
    min = Math.min(min, lo + b.min);
    max = Math.max(max, hi + b.max);
  };
  if (exactDotBounds(w.data.data, geo.O, taps, { rows: true }, xr, fold)) return { min, max };
  for (let o = 0; o < geo.O; o++) {
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < taps; k++) {
      const wv = w.data.data[o * taps + k];
      lo += Math.min(wv * xr.min, wv * xr.max);
      hi += Math.max(wv * xr.min, wv * xr.max);
    }
    fold(o, lo, hi);
  }
  return { min, max };
}
