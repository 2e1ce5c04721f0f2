import { attrInt, attrInts } from '../../ir/attrs.js';
import type { Node } from '../../ir/graph.js';
import { ndarray } from '../../ir/ndarray.js';
import { packetSum4 } from '../float32.js';
import { floatArray, isFloatType, modelError, need, rangeOfInfo, type OpSpec } from '../op-spec.js';
import { windowGeometry, windowOutputShape, type Window2D } from './window.js';

/*
 * MaxPool keeps the input's type and takes the maximum over the window positions inside the input (padding never
 * wins). AveragePool and GlobalAveragePool are float ops: float32 sums in ORT's order (float32.ts) divided by the
 * count, with count_include_pad counting the padded positions as ORT does.
 */

const f32 = Math.fround;

function poolGeometry(node: Node, x: readonly number[]): Window2D {
  const kernel = attrInts(node, 'kernel_shape');
  return windowGeometry(node, x, kernel, attrInt(node, 'ceil_mode', 0) !== 0);
}

/** The maximum over the window positions inside the input: padding never wins. */
function maxWindow(x: ArrayLike<number>, g: Window2D, plane: number, oh: number, ow: number): number {
  const { H, W, kh, kw, sh, sw, dh, dw, pt, pl } = g;
  let m = -Infinity;
  for (let i = 0; i < kh; i++) {
    const ih = oh * sh - pt + i * dh;
    if (ih < 0 || ih >= H) continue;
    for (let j = 0; j < kw; j++) {
      const iw = ow * sw - pl + j * dw;
      if (iw >= 0 && iw < W && x[(plane * H + ih) * W + iw] > m) m = x[(plane * H + ih) * W + iw];
    }
  }
  return m;
}

export const maxPoolOp: OpSpec = {
  ops: ['MaxPool'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    return [windowOutputShape(poolGeometry(node, x), x[1])];
  },
  range: (node, inputs) => [rangeOfInfo(inputs[0])],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    if (node.outputs.length > 1 && node.outputs[1]) throw modelError(node, 'MaxPool Indices output is not supported');
    const g = poolGeometry(node, x.shape);
    const out = ndarray(x.dtype, windowOutputShape(g, g.C));
    let k = 0;
    for (let plane = 0; plane < g.N * g.C; plane++) {
      for (let oh = 0; oh < g.Ho; oh++) {
        for (let ow = 0; ow < g.Wo; ow++) out.data[k++] = maxWindow(x.data, g, plane, oh, ow);
      }
    }
    return [out];
  },
};

/**
 * AveragePool in the order of MLAS's NCHW kernel: per window column a float32 sum down the rows, the columns added
 * left to right, then one division by the count.
 */
function averageWindow(x: ArrayLike<number>, g: Window2D, plane: number, oh: number, ow: number, includePad: boolean): number {
  const { H, W, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr } = g;
  let total = 0;
  let count = 0;
  for (let j = 0; j < kw; j++) {
    const iw = ow * sw - pl + j * dw;
    if (iw >= W + pr) continue; // beyond the padded extent (ceil_mode): not even padding
    let column = 0;
    for (let i = 0; i < kh; i++) {
      const ih = oh * sh - pt + i * dh;
      if (ih >= H + pb) continue;
      const inside = ih >= 0 && ih < H && iw >= 0 && iw < W;
      if (inside) column = f32(column + x[(plane * H + ih) * W + iw]);
      if (inside || includePad) count++;
    }
    if (iw >= 0 && iw < W) total = f32(total + column);
  }
  return f32(total / count);
}

export const averagePoolOp: OpSpec = {
  ops: ['AveragePool'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    return [windowOutputShape(poolGeometry(node, x), x[1])];
  },
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const g = poolGeometry(node, x.shape);
    const includePad = attrInt(node, 'count_include_pad', 0) !== 0;
    const out = floatArray(windowOutputShape(g, g.C));
    const xs = isFloatType(x.dtype) ? x.data.map(f32) : x.data;
    let k = 0;
    for (let plane = 0; plane < g.N * g.C; plane++) {
      for (let oh = 0; oh < g.Ho; oh++) {
        for (let ow = 0; ow < g.Wo; ow++) out.data[k++] = averageWindow(xs, g, plane, oh, ow, includePad);
      }
    }
    return [out];
  },
};

function globalShape(x: readonly number[]): number[] {
  return [x[0], x[1], ...x.slice(2).map(() => 1)];
}

export const globalAveragePoolOp: OpSpec = {
  ops: ['GlobalAveragePool'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    if (x.length < 3) throw modelError(node, 'GlobalAveragePool needs an (N, C, spatial...) input');
    return [globalShape(x)];
  },
  dtype: () => ['float32'],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const out = floatArray(globalShape(x.shape));
    const plane = x.shape.slice(2).reduce((a, d) => a * d, 1);
    const xs = isFloatType(x.dtype) ? x.data.map(f32) : x.data;
    for (let p = 0; p < out.data.length; p++) out.data[p] = f32(packetSum4(xs, p * plane, plane) / plane);
    return [out];
  },
};
