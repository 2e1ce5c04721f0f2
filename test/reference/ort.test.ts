import { suite } from 'uvu';
import type { DType } from '../../generator/ir/dtype.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { compare, EXACT, printStats, type Tolerance } from '../helpers/ort-compare.js';
import { Rng } from '../helpers/random.js';

/*
 * The reference interpreter against onnxruntime-node on standard QDQ and QOperator models built here with seeded
 * random data. Where ORT's arithmetic is float32 and deterministic the outputs must be identical: QuantizeLinear,
 * DequantizeLinear, QLinearMatMul/QLinearConv/QGemm (integer accumulation, then MlasRequantizeOutput),
 * MatMulInteger/ConvInteger, and the float ops on ORT's NCHW kernels (unoptimised graph, one thread).
 * Where ORT runs a kernel of its own they may differ by at most 1 LSB on a bounded fraction of the outputs:
 *   - QLinearAdd (AVX2 kernel in fixed point) and QLinearMul (output zero point added before rounding):
 *     at most 2 % with random scales, at most 50 % with tie-heavy power-of-two scales;
 *   - QDQ graphs, fused by ORT into QLinear kernels or run on its float kernels: at most 1 %.
 * The measured fractions are printed at the end (all 0 % except the tie-heavy cases, about 13 % and 1.4 %).
 */

const rng = new Rng(20240607);
const size = (shape: number[]) => shape.reduce((a, d) => a * d, 1);
const u8 = (shape: number[]) => ndarray('uint8', shape, rng.ints(size(shape), 0, 255));
const i8 = (shape: number[]) => ndarray('int8', shape, rng.ints(size(shape), -128, 127));
/** A random scale between 2^-9 and 2^-3, not a power of two (so products and quotients round). */
const scale = () => rng.float(0.002, 0.125);

const s = suite('reference vs onnxruntime');

s('QuantizeLinear: float32 division, round half to even, saturation; per tensor and per axis', async () => {
  for (const [zpType, shape] of [['uint8', [2, 3, 5]], ['int8', [4, 16]], [undefined, [3, 7]]] as [DType | undefined, number[]][]) {
    const sc = scale();
    // Half of the inputs are exact ties of x / 0.25 (multiples of 0.125), half are arbitrary floats, some saturate.
    const n = size(shape);
    const xs = Array.from({ length: n }, (_, i) => (i % 2 ? rng.int(-900, 900) * 0.125 : rng.float(-40, 40)));
    for (const sv of [0.25, sc]) {
      const b = new OnnxBuilder('q').input('x', 'float32', shape).initializer('s', 'float32', [], [sv]);
      if (zpType) b.initializer('z', zpType, [], [zpType === 'uint8' ? rng.int(0, 255) : rng.int(-128, 127)]);
      b.node('QuantizeLinear', ['x', 's', ...(zpType ? ['z'] : [])], ['y']).output('y', zpType ?? 'uint8', shape);
      await compare('QuantizeLinear', b, [ndarray('float32', shape, xs)], EXACT);
    }
  }
  const shape = [2, 4, 3];
  const b = new OnnxBuilder('qa').input('x', 'float32', shape)
    .initializer('s', 'float32', [4], [0.25, scale(), scale(), 0.5])
    .initializer('z', 'int8', [4], [0, -3, 7, 100])
    .node('QuantizeLinear', ['x', 's', 'z'], ['y'], { axis: 1 })
    .output('y', 'int8', shape);
  await compare('QuantizeLinear', b, [ndarray('float32', shape, rng.floats(size(shape), -20, 20))], EXACT);
});

s('DequantizeLinear: uint8/int8 with zero points, per axis, int32', async () => {
  const shape = [3, 4, 5];
  for (const t of ['uint8', 'int8'] as const) {
    const b = new OnnxBuilder('dq').input('x', t, shape)
      .initializer('s', 'float32', [], [scale()]).initializer('z', t, [], [t === 'uint8' ? 131 : -7])
      .node('DequantizeLinear', ['x', 's', 'z'], ['y']).output('y', 'float32', shape);
    await compare('DequantizeLinear', b, [t === 'uint8' ? u8(shape) : i8(shape)], EXACT);
  }
  const pa = new OnnxBuilder('dqa').input('x', 'uint8', shape)
    .initializer('s', 'float32', [4], [scale(), scale(), scale(), scale()]).initializer('z', 'uint8', [4], [0, 1, 128, 255])
    .node('DequantizeLinear', ['x', 's', 'z'], ['y'], { axis: 1 }).output('y', 'float32', shape);
  await compare('DequantizeLinear', pa, [u8(shape)], EXACT);
  const i32 = new OnnxBuilder('dq32').input('x', 'int32', [6]).initializer('s', 'float32', [], [scale()])
    .node('DequantizeLinear', ['x', 's'], ['y']).output('y', 'float32', [6]);
  await compare('DequantizeLinear', i32, [ndarray('int32', [6], rng.ints(6, -2000000, 2000000))], EXACT);
});

s('QLinearMatMul: exact (integer accumulate, float32 requantization)', async () => {
  const cases: [number[], number[], 'uint8' | 'int8', boolean][] = [
    [[4, 8], [8, 5], 'uint8', true], [[2, 3, 16], [16, 7], 'int8', false], [[1, 64], [64, 32], 'int8', true], [[5, 33], [33, 9], 'uint8', false],
  ];
  for (const [as, bs, bt, zps] of cases) {
    const n = bs[bs.length - 1];
    const b = new OnnxBuilder('qmm').input('a', 'uint8', as)
      .initializer('sa', 'float32', [], [scale()]).initializer('za', 'uint8', [], [zps ? rng.int(0, 255) : 0])
      .initializer('b', bt, bs, bt === 'uint8' ? u8(bs).data : i8(bs).data)
      .initializer('sb', 'float32', [], [scale()]).initializer('zb', bt, [], [zps && bt === 'uint8' ? rng.int(0, 255) : 0])
      .initializer('sy', 'float32', [], [rng.float(0.05, 0.5)]).initializer('zy', 'uint8', [], [zps ? rng.int(0, 255) : 0])
      .node('QLinearMatMul', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'sy', 'zy'], ['y'])
      .output('y', 'uint8', [...as.slice(0, -1), n]);
    await compare('QLinearMatMul', b, [u8(as)], EXACT);
  }
});

s('QLinearConv: pads, strides, groups, zero points, per-tensor and per-channel weight scales, bias', async () => {
  const cases = [
    { x: [1, 3, 8, 8], w: [4, 3, 3, 3], pads: [1, 1, 1, 1], strides: [1, 1], group: 1, perChannel: false, zp: true },
    { x: [1, 3, 9, 7], w: [6, 3, 3, 3], pads: [1, 0, 2, 1], strides: [2, 2], group: 1, perChannel: true, zp: false },
    { x: [2, 4, 6, 6], w: [4, 1, 3, 3], pads: [1, 1, 1, 1], strides: [1, 2], group: 4, perChannel: true, zp: true },
    { x: [1, 16, 5, 5], w: [8, 16, 1, 1], pads: [0, 0, 0, 0], strides: [1, 1], group: 1, perChannel: false, zp: false },
    { x: [1, 2, 12], w: [3, 2, 4], pads: [2, 1], strides: [3], group: 1, perChannel: true, zp: true },
  ];
  for (const c of cases) {
    const O = c.w[0];
    const b = new OnnxBuilder('qconv').input('x', 'uint8', c.x)
      .initializer('sx', 'float32', [], [scale()]).initializer('zx', 'uint8', [], [c.zp ? rng.int(1, 254) : 0])
      .initializer('w', 'int8', c.w, i8(c.w).data)
      .initializer('sw', 'float32', c.perChannel ? [O] : [], rng.floats(c.perChannel ? O : 1, 0.002, 0.05))
      .initializer('zw', 'int8', c.perChannel ? [O] : [], new Array(c.perChannel ? O : 1).fill(0))
      .initializer('sy', 'float32', [], [rng.float(0.05, 0.4)]).initializer('zy', 'uint8', [], [c.zp ? rng.int(0, 255) : 0])
      .initializer('bias', 'int32', [O], rng.ints(O, -5000, 5000))
      .node('QLinearConv', ['x', 'sx', 'zx', 'w', 'sw', 'zw', 'sy', 'zy', 'bias'], ['y'], { pads: c.pads, strides: c.strides, group: c.group })
      .output('y', 'uint8');
    await compare('QLinearConv', b, [u8(c.x)], EXACT);
  }
  // uint8 weights with a weight zero point (U8U8), no bias
  const w = [2, 3, 2, 2];
  const uu = new OnnxBuilder('qconvu').input('x', 'uint8', [1, 3, 5, 5])
    .initializer('sx', 'float32', [], [scale()]).initializer('zx', 'uint8', [], [17])
    .initializer('w', 'uint8', w, u8(w).data).initializer('sw', 'float32', [], [0.01]).initializer('zw', 'uint8', [], [120])
    .initializer('sy', 'float32', [], [0.7]).initializer('zy', 'uint8', [], [3])
    .node('QLinearConv', ['x', 'sx', 'zx', 'w', 'sw', 'zw', 'sy', 'zy'], ['y'], { pads: [1, 1, 0, 0] })
    .output('y', 'uint8');
  await compare('QLinearConv', uu, [u8([1, 3, 5, 5])], EXACT);
});

s('MatMulInteger and ConvInteger: exact int32', async () => {
  for (const [as, bs] of [[[3, 7], [7, 4]], [[2, 5, 9], [9, 6]]]) {
    const b = new OnnxBuilder('mmi').input('a', 'uint8', as).initializer('b', 'int8', bs, i8(bs).data)
      .initializer('za', 'uint8', [], [rng.int(0, 255)])
      .node('MatMulInteger', ['a', 'b', 'za'], ['y']).output('y', 'int32');
    await compare('MatMulInteger', b, [u8(as)], EXACT);
  }
  const w = [3, 2, 3, 3];
  const ci = new OnnxBuilder('ci').input('x', 'uint8', [1, 2, 6, 5]).initializer('w', 'uint8', w, u8(w).data)
    .initializer('zx', 'uint8', [], [100]).initializer('zw', 'uint8', [], [77])
    .node('ConvInteger', ['x', 'w', 'zx', 'zw'], ['y'], { pads: [1, 1, 1, 1], strides: [2, 1] }).output('y', 'int32');
  await compare('ConvInteger', ci, [u8([1, 2, 6, 5])], EXACT);
});

s('QGemm (com.microsoft): exact', async () => {
  const [M, K, N] = [5, 12, 7];
  const b = new OnnxBuilder('qgemm').input('a', 'uint8', [M, K])
    .initializer('sa', 'float32', [], [scale()]).initializer('za', 'uint8', [], [90])
    .initializer('b', 'int8', [N, K], i8([N, K]).data).initializer('sb', 'float32', [N], rng.floats(N, 0.002, 0.05))
    .initializer('zb', 'int8', [N], new Array(N).fill(0)).initializer('c', 'int32', [N], rng.ints(N, -3000, 3000))
    .initializer('sy', 'float32', [], [0.3]).initializer('zy', 'uint8', [], [128])
    .node('QGemm', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'c', 'sy', 'zy'], ['y'], { transB: 1, alpha: float(0.75) }, 'com.microsoft')
    .output('y', 'uint8', [M, N]);
  await compare('QGemm', b, [u8([M, K])], EXACT);
});

// ORT's AVX2 QLinearAdd uses fixed-point multipliers: a few ties round differently.
s('QLinearAdd (com.microsoft): within 1 LSB', async () => {
  for (const [as, bs, t] of [[[4, 16], [4, 16], 'uint8'], [[2, 3, 8], [8], 'int8'], [[64, 256], [64, 256], 'uint8'], [[8, 64, 64], [8, 64, 64], 'int8'], [[3, 5, 7], [3, 1, 7], 'int8']] as [number[], number[], 'uint8' | 'int8'][]) {
    const zp = () => (t === 'uint8' ? rng.int(0, 255) : rng.int(-128, 127));
    const b = new OnnxBuilder('qadd').input('a', t, as).input('b', t, bs)
      .initializer('sa', 'float32', [], [scale()]).initializer('za', t, [], [zp()])
      .initializer('sb', 'float32', [], [scale()]).initializer('zb', t, [], [zp()])
      .initializer('sc', 'float32', [], [scale()]).initializer('zc', t, [], [zp()])
      .node('QLinearAdd', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'sc', 'zc'], ['y'], {}, 'com.microsoft')
      .output('y', t);
    await compare('QLinearAdd', b, [t === 'uint8' ? u8(as) : i8(as), t === 'uint8' ? u8(bs) : i8(bs)], { lsb: 1, fraction: 0.02 });
  }
  // Power-of-two scale ratios make exact ties common: where ORT's fixed-point kernel rounds ties its own way.
  const shape = [32, 256];
  const ties = new OnnxBuilder('qadd-ties').input('a', 'uint8', shape).input('b', 'uint8', shape)
    .initializer('sa', 'float32', [], [0.25]).initializer('za', 'uint8', [], [128])
    .initializer('sb', 'float32', [], [0.125]).initializer('zb', 'uint8', [], [3])
    .initializer('sc', 'float32', [], [1]).initializer('zc', 'uint8', [], [101])
    .node('QLinearAdd', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'sc', 'zc'], ['y'], {}, 'com.microsoft')
    .output('y', 'uint8');
  await compare('QLinearAdd (tie-heavy scales)', ties, [u8(shape), u8(shape)], { lsb: 1, fraction: 0.5 });
});

// ORT's QLinearMul adds the output zero point before rounding, so ties can go the other way.
s('QLinearMul (com.microsoft): within 1 LSB', async () => {
  for (const [shape, t] of [[[4, 16], 'uint8'], [[2, 3, 8], 'int8'], [[64, 512], 'uint8'], [[16, 1024], 'int8']] as [number[], 'uint8' | 'int8'][]) {
    const zp = () => (t === 'uint8' ? rng.int(0, 255) : rng.int(-128, 127));
    const b = new OnnxBuilder('qmul').input('a', t, shape).input('b', t, shape)
      .initializer('sa', 'float32', [], [scale()]).initializer('za', t, [], [zp()])
      .initializer('sb', 'float32', [], [scale()]).initializer('zb', t, [], [zp()])
      .initializer('sc', 'float32', [], [rng.float(0.001, 0.01)]).initializer('zc', t, [], [zp()])
      .node('QLinearMul', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'sc', 'zc'], ['y'], {}, 'com.microsoft')
      .output('y', t);
    await compare('QLinearMul', b, [t === 'uint8' ? u8(shape) : i8(shape), t === 'uint8' ? u8(shape) : i8(shape)], { lsb: 1, fraction: 0.02 });
  }
  // M = 0.5*0.5/1 makes ties common; an odd output zero point shows where ORT adds it before rounding.
  const shape = [32, 256];
  const ties = new OnnxBuilder('qmul-ties').input('a', 'int8', shape).input('b', 'int8', shape)
    .initializer('sa', 'float32', [], [0.5]).initializer('za', 'int8', [], [0])
    .initializer('sb', 'float32', [], [0.5]).initializer('zb', 'int8', [], [0])
    .initializer('sc', 'float32', [], [64]).initializer('zc', 'int8', [], [7])
    .node('QLinearMul', ['a', 'sa', 'za', 'b', 'sb', 'zb', 'sc', 'zc'], ['y'], {}, 'com.microsoft')
    .output('y', 'int8');
  await compare('QLinearMul (tie-heavy scales)', ties, [i8(shape), i8(shape)], { lsb: 1, fraction: 0.5 });
});

const fx = (shape: number[]) => ndarray('float32', shape, rng.floats(size(shape), -1, 1));

// Float kernels block their sums by thread and by layout, so the exact comparison pins ORT to unoptimised graphs
// (NCHW kernels) on one thread; float32.ts describes the orders. Depthwise convolutions use a kernel of their own.
s('float32 ops, unoptimised ORT on one thread: bit-exact', async () => {
  const mm = (as: number[], bs: number[]) => new OnnxBuilder('mm').input('x', 'float32', as)
    .initializer('w', 'float32', bs, rng.floats(size(bs), -1, 1)).node('MatMul', ['x', 'w'], ['y']).output('y', 'float32');
  for (const [as, bs] of [[[5, 40], [40, 9]], [[16, 600], [600, 12]], [[2, 3, 8, 30], [30, 7]], [[7], [7, 3]]]) {
    await compare('float MatMul', mm(as, bs), [fx(as)], EXACT, false);
  }
  const both = new OnnxBuilder('mm2').input('a', 'float32', [3, 6, 20]).input('b', 'float32', [3, 20, 5])
    .node('MatMul', ['a', 'b'], ['y']).output('y', 'float32');
  await compare('float MatMul', both, [fx([3, 6, 20]), fx([3, 20, 5])], EXACT, false);
  for (const [alpha, beta, cShape, transA] of [[1, 1, [9], 0], [0.7, 1.3, [8, 9], 1], [2.5, 0, [1, 9], 0], [1, -0.5, [8, 1], 1]] as [number, number, number[], number][]) {
    const aShape = transA ? [300, 8] : [8, 300];
    const g = new OnnxBuilder('gemm').input('a', 'float32', aShape)
      .initializer('b', 'float32', [9, 300], rng.floats(2700, -1, 1)).initializer('c', 'float32', cShape, rng.floats(size(cShape), -1, 1))
      .node('Gemm', ['a', 'b', 'c'], ['y'], { alpha: float(alpha), beta: float(beta), transA, transB: 1 }).output('y', 'float32', [8, 9]);
    await compare('float Gemm', g, [fx(aShape)], EXACT, false);
  }
  const convs: [number[], number[], Record<string, number[] | number>][] = [
    [[1, 16, 16, 16], [32, 16, 3, 3], { pads: [1, 1, 1, 1] }],
    [[1, 32, 20, 20], [8, 32, 3, 3], { pads: [1, 1, 1, 1] }],
    [[1, 24, 12, 12], [4, 24, 5, 5], { pads: [2, 2, 2, 2], strides: [2, 2] }],
    [[2, 6, 14, 13], [5, 6, 3, 3], { dilations: [2, 2], pads: [0, 1, 2, 1] }],
    [[1, 40, 8, 8], [6, 40, 1, 1], {}],
    [[1, 8, 10, 10], [8, 4, 3, 3], { pads: [1, 1, 1, 1], group: 2 }],
    [[1, 4, 30], [5, 4, 3], { pads: [1, 1], strides: [2] }],
  ];
  for (const [xs, ws, attrs] of convs) {
    const c = new OnnxBuilder('conv').input('x', 'float32', xs)
      .initializer('w', 'float32', ws, rng.floats(size(ws), -1, 1)).initializer('b', 'float32', [ws[0]], rng.floats(ws[0], -1, 1))
      .node('Conv', ['x', 'w', 'b'], ['y'], attrs).output('y', 'float32');
    await compare('float Conv', c, [fx(xs)], EXACT, false);
  }
  const ew = new OnnxBuilder('ew').input('a', 'float32', [4, 1, 6]).input('b', 'float32', [5, 6])
    .initializer('lo', 'float32', [], [-0.3]).initializer('hi', 'float32', [], [0.45]).initializer('k', 'float32', [], [0.1])
    .node('Add', ['a', 'b'], ['s']).node('Sub', ['s', 'b'], ['d']).node('Mul', ['d', 'a'], ['m']).node('Div', ['m', 'k'], ['q'])
    .node('Relu', ['q'], ['r']).node('Clip', ['q', 'lo', 'hi'], ['c']).node('Round', ['q'], ['o'])
    .output('r', 'float32').output('c', 'float32').output('o', 'float32');
  await compare('float elementwise', ew, [fx([4, 1, 6]), fx([5, 6])], EXACT, false);
  const pools: [string, Record<string, number[] | number>][] = [
    ['AveragePool', { kernel_shape: [3, 3], pads: [1, 1, 1, 1] }],
    ['AveragePool', { kernel_shape: [3, 3], pads: [1, 1, 1, 1], count_include_pad: 1, strides: [2, 2] }],
    ['AveragePool', { kernel_shape: [2, 3], strides: [2, 2], ceil_mode: 1 }],
    ['MaxPool', { kernel_shape: [3, 2], pads: [1, 0, 1, 1], strides: [2, 1] }],
    ['GlobalAveragePool', {}],
  ];
  for (const [op, attrs] of pools) {
    for (const xs of [[1, 4, 12, 12], [2, 16, 9, 11]]) {
      const p = new OnnxBuilder('pool').input('x', 'float32', xs).node(op, ['x'], ['y'], attrs).output('y', 'float32');
      await compare(`float ${op}`, p, [fx(xs)], EXACT, false);
    }
  }
});

/** DQ -> float op(s) -> Q. ORT fuses these into QLinear kernels when optimizing; unoptimized it runs float32 ops. */
function qdq(name: string, shape: number[], build: (b: OnnxBuilder) => string, outType: DType = 'uint8'): OnnxBuilder {
  const b = new OnnxBuilder(name).input('xq', 'uint8', shape)
    .initializer('sx', 'float32', [], [scale()]).initializer('zx', 'uint8', [], [rng.int(100, 150)])
    .initializer('sy', 'float32', [], [rng.float(0.02, 0.2)]).initializer('zy', outType, [], [outType === 'uint8' ? rng.int(0, 50) : 0])
    .node('DequantizeLinear', ['xq', 'sx', 'zx'], ['x']);
  const last = build(b);
  return b.node('QuantizeLinear', [last, 'sy', 'zy'], ['y']).output('y', outType);
}

const QDQ_TOL: Tolerance = { lsb: 1, fraction: 0.01 };

s('QDQ graphs: DQ -> Conv(+bias) -> Relu -> Q, DQ -> MatMul -> Q, DQ -> Add -> Q, pools', async () => {
  for (const optimize of [true, false]) {
    const conv = qdq('qdq-conv', [1, 16, 16, 16], (b) => {
      const w = [32, 16, 3, 3];
      const sw = 0.01;
      b.initializer('wq', 'int8', w, i8(w).data).initializer('sw', 'float32', [], [sw]).initializer('zw', 'int8', [], [0])
        .initializer('bq', 'int32', [32], rng.ints(32, -2000, 2000))
        .initializer('sb', 'float32', [], [Math.fround(Math.fround(0.01) * (b.graph().tensors.get('sx')?.data?.data[0] ?? 0))])
        .node('DequantizeLinear', ['wq', 'sw', 'zw'], ['w']).node('DequantizeLinear', ['bq', 'sb'], ['bias'])
        .node('Conv', ['x', 'w', 'bias'], ['c'], { pads: [1, 1, 1, 1] }).node('Relu', ['c'], ['r']);
      return 'r';
    });
    await compare(`QDQ Conv+Relu${optimize ? '' : ' (unfused)'}`, conv, [u8([1, 16, 16, 16])], QDQ_TOL, optimize);
    const mm = qdq('qdq-matmul', [64, 96], (b) => {
      b.initializer('wq', 'int8', [96, 80], i8([96, 80]).data).initializer('sw', 'float32', [], [0.02]).initializer('zw', 'int8', [], [0])
        .node('DequantizeLinear', ['wq', 'sw', 'zw'], ['w']).node('MatMul', ['x', 'w'], ['m']);
      return 'm';
    });
    await compare(`QDQ MatMul${optimize ? '' : ' (unfused)'}`, mm, [u8([64, 96])], QDQ_TOL, optimize);
    const add = qdq('qdq-add', [4, 32, 64], (b) => {
      b.input('bq', 'uint8', [4, 32, 64]).initializer('s2', 'float32', [], [scale()]).initializer('z2', 'uint8', [], [90])
        .node('DequantizeLinear', ['bq', 's2', 'z2'], ['x2']).node('Add', ['x', 'x2'], ['a']);
      return 'a';
    });
    await compare(`QDQ Add${optimize ? '' : ' (unfused)'}`, add, [u8([4, 32, 64]), u8([4, 32, 64])], QDQ_TOL, optimize);
    for (const [op, attrs] of [
      ['MaxPool', { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] }],
      ['AveragePool', { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], count_include_pad: 1 }],
      ['AveragePool', { kernel_shape: [2, 3], strides: [1, 2] }],
      ['GlobalAveragePool', {}],
    ] as [string, Record<string, number[] | number>][]) {
      const pool = qdq(`qdq-${op}`, [2, 16, 33, 32], (b) => {
        b.node(op, ['x'], ['p'], attrs);
        return 'p';
      });
      await compare(`QDQ ${op}${optimize ? '' : ' (unfused)'}`, pool, [u8([2, 16, 33, 32])], QDQ_TOL, optimize);
    }
  }
});

s.after(printStats);
s.run();
