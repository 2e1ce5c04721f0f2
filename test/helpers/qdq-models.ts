import type { DType } from '../../generator/ir/dtype.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { OnnxBuilder } from './onnx-builder.js';
import type { Rng } from './random.js';

/*
 * Standard quantized ONNX models as onnxruntime's quantization tools write them, built directly (no Python): QDQ
 * (QuantizeLinear/DequantizeLinear around float ops, int8/uint8 weights and int32 biases through DequantizeLinear)
 * and QOperator (QLinearConv, QGemm, ...). Seeded: shapes, scales, zero points and weights come from an Rng.
 */

const f32 = Math.fround;
export type ActType = 'int8' | 'uint8';

export interface Variant {
  act: ActType;
  /** Non-zero activation zero points (asymmetric), or all zero. */
  zeroPoints: boolean;
  perChannel: boolean;
}

/** The four activation variants the network tests run: uint8/int8, with and without zero points, per-channel or not. */
export const VARIANTS: Variant[] = [
  { act: 'uint8', zeroPoints: true, perChannel: true },
  { act: 'int8', zeroPoints: false, perChannel: false },
  { act: 'int8', zeroPoints: true, perChannel: false },
  { act: 'uint8', zeroPoints: false, perChannel: true },
];

export const variantLabel = (v: Variant): string =>
  `${v.act}, zero points ${v.zeroPoints ? 'non-zero' : '0'}, ${v.perChannel ? 'per-channel' : 'per-tensor'}`;

export interface QModel {
  builder: OnnxBuilder;
  /** Float inputs, one batch-1 sample each. */
  inputs: NDArray[];
}

export interface QP { scale: number; zp: number; type: ActType }

/** Activation parameters for values roughly in [-range, range] (or [0, range] when `positive`). */
export function act(rng: Rng, v: Variant, range: number, positive = false): QP {
  const scale = f32((positive ? range : 2 * range) / 255 * rng.float(0.8, 1.2));
  if (!v.zeroPoints) return { scale, zp: 0, type: v.act };
  const mid = v.act === 'uint8' ? (positive ? 0 : 128) : positive ? -128 : 0;
  const zp = Math.max(v.act === 'uint8' ? 0 : -128, Math.min(v.act === 'uint8' ? 255 : 127, mid + rng.int(-20, 20)));
  return { scale, zp, type: v.act };
}

export class QdqWriter {
  private k = 0;
  constructor(readonly b: OnnxBuilder) {}

  params(base: string, q: QP): [string, string] {
    this.b.initializer(`${base}_s`, 'float32', [], [q.scale]).initializer(`${base}_z`, q.type, [], [q.zp]);
    return [`${base}_s`, `${base}_z`];
  }

  q(x: string, y: string, q: QP): string {
    const [s, z] = this.params(`${y}_q${this.k++}`, q);
    this.b.node('QuantizeLinear', [x, s, z], [y]);
    return y;
  }

  dq(x: string, y: string, q: QP): string {
    const [s, z] = this.params(`${y}_dq${this.k++}`, q);
    this.b.node('DequantizeLinear', [x, s, z], [y]);
    return y;
  }

  /** Q then DQ: the float tensor `y` on q's grid. */
  qdq(x: string, y: string, q: QP): string {
    return this.dq(this.q(x, `${y}_int`, q), y, q);
  }

  /** An integer constant read through DequantizeLinear (per-axis when scales has more than one value). */
  constDq(name: string, dtype: DType, shape: number[], values: number[], scales: number[], zps: number[], axis: number): string {
    this.b.initializer(`${name}_q`, dtype, shape, values);
    this.b.initializer(`${name}_s`, 'float32', scales.length > 1 ? [scales.length] : [], scales);
    this.b.initializer(`${name}_z`, dtype, zps.length > 1 ? [zps.length] : [], zps);
    this.b.node('DequantizeLinear', [`${name}_q`, `${name}_s`, `${name}_z`], [name], scales.length > 1 ? { axis } : {});
    return name;
  }
}

/**
 * `n` int8 weight codes in [-64, 64]. onnxruntime's u8·s8 kernels on x86 without VNNI (AVX2, AVX-512F) add two
 * products in a saturating 16-bit lane (vpmaddubsw): with 255 x 127 x 2 it overflows and ORT's result is off by up
 * to thousands of LSB (seen on an AVX2-only machine: 16,001 LSB), so the reference could not be checked against it
 * there. With |w| <= 64 a pair stays within 255 x 64 x 2 = 32,640 (ORT's documented remedy, 7-bit weights), exact on
 * every x86; the scales below keep the weights' real values as they were. Full-range codes are covered by the
 * firmware-vs-reference checks, the vectors and the trained examples.
 */
export function weightCodes(rng: Rng, n: number): number[] {
  return rng.ints(n, -WEIGHT_CODE_MAX, WEIGHT_CODE_MAX);
}

const WEIGHT_CODE_MAX = 64;

/** Weight scales for weightCodes with `fanIn` inputs (outputs stay around 1): one per channel, or one. */
export function weightScales(rng: Rng, channels: number, perChannel: boolean, fanIn: number): number[] {
  const base = 1.5 / (WEIGHT_CODE_MAX * Math.sqrt(fanIn));
  return Array.from({ length: perChannel ? channels : 1 }, () => f32(base * rng.float(0.5, 1.5)));
}

export function floatInput(rng: Rng, shape: number[], lo = -1, hi = 1): NDArray {
  return ndarray('float32', shape, rng.floats(shape.reduce((p, d) => p * d, 1), lo, hi));
}

/** `n` more samples like a model's inputs (floats in [-1, 1), integers over their type). */
export function moreSamples(m: QModel, rng: Rng, n: number): NDArray[][] {
  return Array.from({ length: n }, () => m.inputs.map((x) => {
    if (x.dtype === 'float32') return floatInput(rng, x.shape);
    const size = x.shape.reduce((p, d) => p * d, 1);
    return ndarray(x.dtype, x.shape, x.dtype === 'uint8' ? rng.ints(size, 0, 255) : rng.ints(size, -128, 127));
  }));
}

/**
 * QDQ convolutional net: Conv 3x3 (padded, bias) + Relu, MaxPool, Conv 1x1 + Clip(0, 6), residual Add,
 * GlobalAveragePool, Flatten, Gemm (transB, bias), each output quantized (Q -> DQ) with its own parameters.
 */
export function qdqConvNet(rng: Rng, v: Variant): QModel {
  const C = rng.int(2, 4);
  const H = 2 * rng.int(3, 5);
  const O = rng.int(3, 6);
  const N = rng.int(3, 8);
  const b = new OnnxBuilder('qdq_convnet', { opset: 13 }).input('x', 'float32', [1, C, H, H]);
  const w = new QdqWriter(b);
  const qx = act(rng, v, 1);
  w.qdq('x', 'xd', qx);
  const w1s = weightScales(rng, O, v.perChannel, C * 9);
  w.constDq('w1', 'int8', [O, C, 3, 3], weightCodes(rng, O * C * 9), w1s, w1s.map(() => 0), 0);
  const bScales = Array.from({ length: O }, (_, j) => f32(qx.scale * (w1s.length > 1 ? w1s[j] : w1s[0])));
  w.constDq('b1', 'int32', [O], rng.ints(O, -3000, 3000), bScales, bScales.map(() => 0), 0);
  b.node('Conv', ['xd', 'w1', 'b1'], ['c1'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  b.node('Relu', ['c1'], ['r1']);
  const q1 = act(rng, v, 2, true);
  w.qdq('r1', 'r1d', q1);
  b.node('MaxPool', ['r1d'], ['p1'], { kernel_shape: [2, 2], strides: [2, 2] });
  w.qdq('p1', 'p1d', q1);
  const w2s = weightScales(rng, O, v.perChannel, O);
  w.constDq('w2', 'int8', [O, O, 1, 1], weightCodes(rng, O * O), w2s, w2s.map(() => 0), 0);
  b.node('Conv', ['p1d', 'w2'], ['c2'], { kernel_shape: [1, 1] });
  b.initializer('lo', 'float32', [], [0]).initializer('hi', 'float32', [], [1.5]);
  b.node('Clip', ['c2', 'lo', 'hi'], ['r2']);
  w.qdq('r2', 'r2d', act(rng, v, 1.5, true));
  b.node('Add', ['r2d', 'p1d'], ['s']);
  w.qdq('s', 'sd', act(rng, v, 3, true));
  b.node('GlobalAveragePool', ['sd'], ['g']);
  w.qdq('g', 'gd', act(rng, v, 2, true));
  b.node('Flatten', ['gd'], ['f'], { axis: 1 });
  const w3s = weightScales(rng, N, v.perChannel, O);
  w.constDq('w3', 'int8', [N, O], weightCodes(rng, N * O), w3s, w3s.map(() => 0), 0);
  b.node('Gemm', ['f', 'w3'], ['y'], { transB: 1 });
  w.qdq('y', 'out', act(rng, v, 2));
  // The inner quantized tensors are outputs too: more values to compare with onnxruntime.
  b.output('out', 'float32').output('r1d', 'float32').output('sd', 'float32');
  return { builder: b, inputs: [floatInput(rng, [1, C, H, H])] };
}

/** A larger QDQ net for tiling: Conv 3x3 16->24 on 24x24 + Relu, MaxPool, depthwise Conv 3x3, all padded. */
export function qdqLargeConvNet(rng: Rng, v: Variant): QModel {
  const C = 16;
  const H = 24;
  const O = 24;
  const b = new OnnxBuilder('qdq_large', { opset: 13 }).input('x', 'float32', [1, C, H, H]);
  const w = new QdqWriter(b);
  w.qdq('x', 'xd', act(rng, v, 1));
  const ws = weightScales(rng, O, v.perChannel, C * 9);
  w.constDq('w', 'int8', [O, C, 3, 3], weightCodes(rng, O * C * 9), ws, ws.map(() => 0), 0);
  b.node('Conv', ['xd', 'w'], ['c'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  b.node('Relu', ['c'], ['r']);
  w.qdq('r', 'rd', act(rng, v, 2, true));
  b.node('MaxPool', ['rd'], ['p'], { kernel_shape: [2, 2], strides: [2, 2] });
  w.qdq('p', 'pd', act(rng, v, 2, true));
  const ws2 = weightScales(rng, O, v.perChannel, 9);
  w.constDq('w2', 'int8', [O, 1, 3, 3], weightCodes(rng, O * 9), ws2, ws2.map(() => 0), 0);
  b.node('Conv', ['pd', 'w2'], ['c2'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group: O });
  w.qdq('c2', 'out', act(rng, v, 2));
  b.output('out', 'float32');
  return { builder: b, inputs: [floatInput(rng, [1, C, H, H])] };
}

/**
 * QDQ token mixer: MatMul with constant weights and a bias Add, Transpose, a MatMul of two activations (zero points
 * 0: symmetric int8, as transformer exports quantize them), Mul of two activations, Reshape.
 */
export function qdqMatMulNet(rng: Rng, v: Variant): QModel {
  const T = rng.int(3, 6);
  const D = rng.int(4, 9);
  const E = rng.int(3, 7);
  const b = new OnnxBuilder('qdq_matmul', { opset: 13 }).input('x', 'float32', [1, T, D]);
  const w = new QdqWriter(b);
  const sym = { ...v, zeroPoints: false, act: 'int8' as const };
  const qx = act(rng, v, 1);
  w.qdq('x', 'xd', qx);
  const wms = weightScales(rng, E, v.perChannel, D);
  w.constDq('wm', 'int8', [D, E], weightCodes(rng, D * E), wms, wms.map(() => 0), 1);
  b.node('MatMul', ['xd', 'wm'], ['m']);
  const bs = Array.from({ length: E }, (_, j) => f32(qx.scale * (wms.length > 1 ? wms[j] : wms[0])));
  w.constDq('bm', 'int32', [E], rng.ints(E, -2000, 2000), bs, bs.map(() => 0), 0);
  b.node('Add', ['m', 'bm'], ['mb']);
  w.qdq('mb', 'mbd', act(rng, sym, 2));
  b.node('Transpose', ['mbd'], ['mt'], { perm: [0, 2, 1] });
  b.node('MatMul', ['mt', 'mbd'], ['g']);
  w.qdq('g', 'gd', act(rng, sym, 4 * T));
  b.node('Mul', ['gd', 'gd'], ['sq']);
  w.qdq('sq', 'sqd', act(rng, v, 4 * T * T, true));
  b.initializer('shape', 'int64', [2], [1, E * E]);
  b.node('Reshape', ['sqd', 'shape'], ['out']);
  b.output('out', 'float32');
  return { builder: b, inputs: [floatInput(rng, [1, T, D])] };
}

/** QOperator params as the three constants a QLinear op reads. */
export function qop(b: OnnxBuilder, base: string, q: QP): [string, string] {
  b.initializer(`${base}_s`, 'float32', [], [q.scale]).initializer(`${base}_z`, q.type, [], [q.zp]);
  return [`${base}_s`, `${base}_z`];
}

/**
 * QOperator net: QuantizeLinear, QLinearConv (padded, int32 bias; per-channel weight scales; uint8 weights with a
 * zero point of 128 when asked), integer MaxPool, QLinearConv 1x1, QLinearAdd (residual), QLinearMul, Flatten,
 * QGemm (com.microsoft, transB, C, alpha), QLinearMatMul, DequantizeLinear.
 */
export function qopNet(rng: Rng, v: Variant, weightZeroPoint = false): QModel {
  const C = rng.int(2, 4);
  const H = 2 * rng.int(3, 5);
  const O = rng.int(3, 6);
  const N = rng.int(3, 8);
  const P = rng.int(2, 6);
  const b = new OnnxBuilder('qop_net', { opset: 13 }).input('x', 'float32', [1, C, H, H]);
  const qx = act(rng, v, 1);
  const [xs, xz] = qop(b, 'x', qx);
  b.node('QuantizeLinear', ['x', xs, xz], ['xq']);
  const w1 = { scales: weightScales(rng, O, v.perChannel, C * 9) };
  const wType: DType = weightZeroPoint ? 'uint8' : 'int8';
  const wz = weightZeroPoint ? 128 : 0;
  b.initializer('w1', wType, [O, C, 3, 3], weightCodes(rng, O * C * 9).map((q) => q + wz));
  b.initializer('w1_s', 'float32', w1.scales.length > 1 ? [O] : [], w1.scales);
  b.initializer('w1_z', wType, [], [wz]);
  b.initializer('b1', 'int32', [O], rng.ints(O, -3000, 3000));
  const q1 = act(rng, v, 2);
  const [s1, z1] = qop(b, 'c1', q1);
  b.node('QLinearConv', ['xq', xs, xz, 'w1', 'w1_s', 'w1_z', s1, z1, 'b1'], ['c1'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  b.node('MaxPool', ['c1'], ['p1'], { kernel_shape: [2, 2], strides: [2, 2] });
  const w2 = { scales: weightScales(rng, O, v.perChannel, O) };
  b.initializer('w2', 'int8', [O, O, 1, 1], weightCodes(rng, O * O));
  b.initializer('w2_s', 'float32', w2.scales.length > 1 ? [O] : [], w2.scales);
  b.initializer('w2_z', 'int8', [], [0]);
  const q2 = act(rng, v, 2);
  const [s2, z2] = qop(b, 'c2', q2);
  b.node('QLinearConv', ['p1', s1, z1, 'w2', 'w2_s', 'w2_z', s2, z2], ['c2'], { kernel_shape: [1, 1] });
  const q3 = act(rng, v, 3);
  const [s3, z3] = qop(b, 'a', q3);
  b.node('QLinearAdd', ['c2', s2, z2, 'p1', s1, z1, s3, z3], ['a'], {}, 'com.microsoft');
  const q4 = act(rng, v, 4, true);
  const [s4, z4] = qop(b, 'm', q4);
  b.node('QLinearMul', ['a', s3, z3, 'c2', s2, z2, s4, z4], ['m'], {}, 'com.microsoft');
  b.node('Flatten', ['m'], ['f'], { axis: 1 });
  const K = O * (H / 2) * (H / 2);
  const w3 = { scales: weightScales(rng, N, v.perChannel, K) };
  b.initializer('w3', 'int8', [N, K], weightCodes(rng, N * K));
  b.initializer('w3_s', 'float32', w3.scales.length > 1 ? [N] : [], w3.scales);
  b.initializer('w3_z', 'int8', w3.scales.length > 1 ? [N] : [], new Array<number>(w3.scales.length).fill(0));
  b.initializer('c3', 'int32', [N], rng.ints(N, -2000, 2000));
  const q5 = act(rng, v, 2);
  const [s5, z5] = qop(b, 'g', q5);
  b.node('QGemm', ['f', s4, z4, 'w3', 'w3_s', 'w3_z', 'c3', s5, z5], ['g'], { transB: 1, alpha: 0.75 }, 'com.microsoft');
  const w4 = { scales: weightScales(rng, P, v.perChannel, N) };
  b.initializer('w4', 'int8', [N, P], weightCodes(rng, N * P));
  b.initializer('w4_s', 'float32', w4.scales.length > 1 ? [P] : [], w4.scales);
  b.initializer('w4_z', 'int8', w4.scales.length > 1 ? [P] : [], new Array<number>(w4.scales.length).fill(0));
  const q6 = act(rng, v, 2);
  const [s6, z6] = qop(b, 'mm', q6);
  b.node('QLinearMatMul', ['g', s5, z5, 'w4', 'w4_s', 'w4_z', s6, z6], ['mm']);
  b.node('DequantizeLinear', ['mm', s6, z6], ['out']);
  // Inner integer tensors as outputs too (QOperator models may end in uint8): more values to compare.
  b.output('out', 'float32').output('c1', q1.type).output('a', q3.type).output('m', q4.type);
  return { builder: b, inputs: [floatInput(rng, [1, C, H, H])] };
}

/**
 * ConvInteger and MatMulInteger (uint8 input with a zero point, int8 weights) and MatMulInteger of two uint8
 * activations with zero points: int32 accumulator outputs.
 */
export function integerOpsNet(rng: Rng): QModel {
  const C = rng.int(2, 4);
  const H = rng.int(4, 7);
  const O = rng.int(2, 5);
  const b = new OnnxBuilder('integer_ops', { opset: 13 }).input('x', 'uint8', [1, C, H, H]);
  b.initializer('w', 'int8', [O, C, 3, 3], weightCodes(rng, O * C * 9));
  b.initializer('xz', 'uint8', [], [rng.int(100, 150)]);
  b.initializer('wz', 'int8', [], [0]);
  b.node('ConvInteger', ['x', 'w', 'xz', 'wz'], ['c'], { kernel_shape: [3, 3], pads: [1, 0, 1, 2] });
  const D = H;
  const E = rng.int(2, 6);
  b.initializer('m', 'int8', [D, E], weightCodes(rng, D * E));
  b.node('MatMulInteger', ['x', 'm', 'xz'], ['mm']);
  // Two activations, both with zero points: the row and column sums of the lowering.
  b.input('y', 'uint8', [1, C, H, H]).initializer('yz', 'uint8', [], [rng.int(100, 150)]);
  b.node('MatMulInteger', ['x', 'y', 'xz', 'yz'], ['xy']);
  b.output('c', 'int32').output('mm', 'int32').output('xy', 'int32');
  return { builder: b, inputs: [ndarray('uint8', [1, C, H, H], rng.ints(C * H * H, 0, 255)), ndarray('uint8', [1, C, H, H], rng.ints(C * H * H, 0, 255))] };
}
