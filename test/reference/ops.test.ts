import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AttrValue, Node } from '../../generator/ir/graph.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { foldTrueIntegerDiv, trueIntegerDivCoeff } from '../../generator/reference/ops/true-integer-div.js';
import { opSpec } from '../../generator/reference/registry.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';

/*
 * Tricky ops against values computed by hand from the formulas of SEMANTICS.md (the working is in the comments),
 * never from the code under test.
 */

const int = (shape: number[], values: number[]): NDArray => ndarray('int64', shape, values);

function attrsOf(a: Record<string, number | number[]>): Record<string, AttrValue> {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, Array.isArray(v) ? { kind: 'ints', value: v } : { kind: 'float', value: v }]));
}

function run(op: string, attrs: Record<string, number | number[]>, inputs: (NDArray | undefined)[]): NDArray {
  const spec = opSpec(op);
  if (!spec) throw new Error(`no spec for ${op}`);
  const node: Node = { name: `${op}_test`, op, domain: '', inputs: inputs.map((_, i) => `in${i}`), outputs: ['out'], attrs: attrsOf(attrs) };
  return spec.evaluate(node, inputs)[0];
}

const values = (a: NDArray): number[] => Array.from(a.data);

test('RequantShift: rounding is floor((x*mul + add + 2^(s-1)) / 2^s), then the clip', () => {
  const x = int([9], [-3, -2, -1, 0, 1, 2, 3, 1000, -1000]);
  // mul 3, add 1, div 4 (s = 2, round 2): 3x + 3 = -6,-3,0,3,6,9,12,3003,-2997 -> floor(/4) = -2,-1,0,0,1,2,3,750,-750
  const signed = run('RequantShift', { div: 4, n_levels: 256, signed: 1 }, [x, int([], [3]), int([], [1])]);
  assert.equal(values(signed), [-2, -1, 0, 0, 1, 2, 3, 127, -128]);
  const unsigned = run('RequantShift', { div: 4, n_levels: 16, signed: 0 }, [x, int([], [3]), int([], [1])]);
  assert.equal(values(unsigned), [0, 0, 0, 0, 1, 2, 3, 15, 0]);
  // div 1 (s = 0): no rounding term: 5*2 - 3 = 7
  assert.equal(values(run('RequantShift', { div: 1, n_levels: 256, signed: 1 }, [int([1], [5]), int([], [2]), int([], [-3])])), [7]);
});

test('RequantShift: n_levels_out, and (C,1,1) parameters apply along axis 1', () => {
  // x (1,2,1,2) = [[1,2],[3,4]] per channel; mul (2,1,1) = [1, 10], add 0, div 1
  const x = int([1, 2, 1, 2], [1, 2, 3, 4]);
  const y = run('RequantShift', { div: 1, n_levels_out: 256, signed: 1 }, [x, int([2, 1, 1], [1, 10]), int([2, 1, 1], [0, 0])]);
  assert.equal(values(y), [1, 2, 30, 40]);
  // Same rank as x: (2,1,1,1) is still per channel (the spec's reshape to (1,2,1,1)).
  const y4 = run('RequantShift', { div: 1, n_levels_out: 256, signed: 1 }, [x, int([2, 1, 1, 1], [1, 10]), int([2, 1, 1, 1], [0, 0])]);
  assert.equal(values(y4), [1, 2, 30, 40]);
});

test('RequantShift: products past 2^53 are exact (BigInt path)', () => {
  // x = 2^31-1, mul = 2^30+1: x*mul = 2^61 + 2^30 - 1. add = -(2^39 + 2^30), s = 40 (round 2^39):
  // t = 2^61 + 2^30 - 1 - 2^39 - 2^30 + 2^39 = 2^61 - 1, floor(t / 2^40) = 2^21 - 1 = 2097151.
  // In float64, x*mul rounds to 2^61 + 2^30 and the result would be 2^21.
  const y = run('RequantShift', { div: 2 ** 40, n_levels: 2 ** 32, signed: 1 }, [
    int([1], [2 ** 31 - 1]), int([], [2 ** 30 + 1]), int([], [-(2 ** 39 + 2 ** 30)]),
  ]);
  assert.equal(values(y), [2097151]);
});

test('IntegerMean / ReduceMean: rounded tdiv for odd counts, rounding shift for powers of two', () => {
  // L = 3: acc -5 -> tdiv(-6, 3) = -2; acc -4 -> tdiv(-5, 3) = -1; acc 4 -> tdiv(5, 3) = 1; acc 0 -> tdiv(1, 3) = 0;
  // acc 5 -> tdiv(6, 3) = 2
  const x3 = int([5, 3], [-1, -2, -2, -1, -1, -2, 1, 1, 2, 0, 0, 0, 2, 2, 1]);
  assert.equal(values(run('IntegerMean', { axes: [1], keepdims: 0 }, [x3])), [-2, -1, 1, 0, 2]);
  // L = 4 (s = 2, round 2): acc -5 -> -3 >> 2 = -1; 5 -> 7 >> 2 = 1; -6 -> -4 >> 2 = -1; -10 -> -8 >> 2 = -2;
  // -9 -> -7 >> 2 = -2
  const x4 = int([5, 4], [-1, -1, -1, -2, 1, 1, 1, 2, -1, -1, -1, -3, -2, -2, -2, -4, -2, -2, -2, -3]);
  const m4 = run('ReduceMean', { axes: [-1], keepdims: 1 }, [x4]);
  assert.equal(values(m4), [-1, 1, -1, -2, -2]);
  assert.equal(m4.shape, [5, 1]);
  // L = 1: no rounding term at all.
  assert.equal(values(run('IntegerMean', { axes: [1], keepdims: 0 }, [int([2, 1], [-3, 7])])), [-3, 7]);
});

test('IntegerDiv: tdiv(nom + sign(nom)*(den >> 1), den), sign(0) = +1', () => {
  const div = (a: number[], b: number[], attrs: { Delta: number; eps: number; eta: number }) =>
    values(run('IntegerDiv', attrs, [int([a.length], a), int([b.length], b)]));
  // Delta = eta = 1, eps = 0: -7/2 -> tdiv(-8, 2) = -4; 7/2 -> 4; -5/3 -> tdiv(-6, 3) = -2; -4/3 -> tdiv(-5, 3) = -1;
  // 0/3 -> tdiv(1, 3) = 0; 5/-3: den >> 1 = -2 (arithmetic), tdiv(3, -3) = -1 (the formula, taken literally)
  assert.equal(div([-7, 7, -5, -4, 0, 5], [2, 2, 3, 3, 3, -3], { Delta: 1, eps: 0, eta: 1 }), [-4, 4, -2, -1, 0, -1]);
  // Delta 4, eta 3, eps 1, B = 5: den = 16, nom = 12A: A=-2 -> tdiv(-32, 16) = -2; 2 -> 2; -1 -> tdiv(-20, 16) = -1;
  // 1 -> 1; 0 -> tdiv(8, 16) = 0
  assert.equal(div([-2, 2, -1, 1, 0], [5], { Delta: 4, eps: 1, eta: 3 }), [-2, 2, -1, 1, 0]);
  // Delta*eta*A past 2^53: nom = 16384*200000*(2^31-1) = 7036874414489600000, den = 200001:
  // (nom + 100000) // 200001 = 35184196151467; A = -2^31: -(|nom| + 100000) // 200001 = -35184196167851
  assert.equal(div([2 ** 31 - 1, -(2 ** 31)], [1], { Delta: 16384, eps: 1, eta: 200000 }), [35184196151467, -35184196167851]);
});

test('iSoftmax on a row (Attention coefficients)', () => {
  // coeffA 1, coeffB 173, coeffC 15599, log2 127, n_levels 256; x = [0,-127,-10,5], max 5, xt = [-5,-132,-15,0]
  // z = clip(-tdiv(xt,127),0,31) = [0,1,0,0]; p = xt + z*127 = [-5,-5,-15,0]
  // e = ((p+173)^2 + 15599) >> z = [43823, 43823>>1 = 21911, 40563, 45528], sum 151825
  // out = floor(e*255 / 151825) = [73, 36, 68, 76]
  const y = run('iSoftmax', { coeffA: 1, coeffB: 173, coeffC: 15599, log2: 127, n_levels: 256 }, [int([1, 4], [0, -127, -10, 5])]);
  assert.equal(values(y), [73, 36, 68, 76]);
});

test('ITAMax on a row', () => {
  // max 64; sh = (64 - x + 16) >> 5 = [2, 2, 0, 6]; S = 64+64+256+4 = 388; inv = 255*256 // 388 = 168
  // out = 168 >> sh = [42, 42, 168, 2]
  assert.equal(values(run('ITAMax', { n_levels: 256 }, [int([1, 4], [0, 10, 64, -128])])), [42, 42, 168, 2]);
});

test('ITAPartialMax: streaming max and rescaled sum over groups', () => {
  // group_width 2, x = [0,10 | 64,0 | -128,5]
  // g1: m=10 > -128: S = 0 >> 4 = 0, g = 10; S += 256 (x=0: 26>>5=0) + 256 (x=10) = 512
  // g2: m=64 > 10: S = 512 >> ((64-10+16)>>5 = 2) = 128, g = 64; S += 256 (x=64) + 64 (x=0: 80>>5=2) = 448
  // g3: m=5: S += 4 (x=-128: 208>>5=6) + 64 (x=5: 75>>5=2) = 516
  // inv = 127*256 // 516 = 63; out = 63 >> ((64 - x + 16) >> 5) = [15, 15, 63, 15, 0, 15]
  const y = run('ITAPartialMax', { n_levels: 256, group_width: 2 }, [int([1, 6], [0, 10, 64, 0, -128, 5])]);
  assert.equal(values(y), [15, 15, 63, 15, 0, 15]);
});

test('iLayerNorm: statistics per row, wrap to int8 without clamping', () => {
  // row [1,2,3,6]: mean 3, t = [-2,-1,0,3], var = tdiv(14,4)+1 = 4, std 2, w = 2, b = [0,1,-1,0], D = 2:
  // (tdiv(2t, 2) + b) >> 1 = ([-2,-1,0,3] + b) >> 1 = [-1, 0, -1, 1]
  const w = int([4], [2, 2, 2, 2]);
  const b = int([4], [0, 1, -1, 0]);
  assert.equal(values(run('iLayerNorm', { D: 2, n_levels: 256 }, [int([1, 4], [1, 2, 3, 6]), w, b])), [-1, 0, -1, 1]);
  // row [0,0,0,100]: mean 25, t = [-25,-25,-25,75], var = 7500/4 + 1 = 1876, std 43; w 1000, D 1:
  // tdiv(1000t, 43) = [-581,-581,-581,1744] + b = [-581,-580,-582,1744] -> int8 wrap = [-69,-68,-70,-48]
  const wBig = int([4], [1000, 1000, 1000, 1000]);
  assert.equal(values(run('iLayerNorm', { D: 1, n_levels: 256 }, [int([1, 4], [0, 0, 0, 100]), wBig, b])), [-69, -68, -70, -48]);
});

test('iRMSNorm clamps, iNoNorm wraps', () => {
  // x = [3,-4]: ms = tdiv(25, 2) + 1 = 13, std 3; w 10, D 2: tdiv([30,-40], 3) = [10,-13] >> 1 = [5, -7]
  assert.equal(values(run('iRMSNorm', { D: 2, n_levels: 256 }, [int([1, 2], [3, -4]), int([2], [10, 10])])), [5, -7]);
  // w 100, D 1: [100, -133] -> clamp -> [100, -128]
  assert.equal(values(run('iRMSNorm', { D: 1, n_levels: 256 }, [int([1, 2], [3, -4]), int([2], [100, 100])])), [100, -128]);
  // ((x*w + b) * mul) >> log2 D: (3*2+1)*10 >> 2 = 17, (-5*3-1)*10 >> 2 = -40; 100*100 = 10000 wraps to 16
  assert.equal(values(run('iNoNorm', { D: 4, mul: 10 }, [int([2], [3, -5]), int([2], [2, 3]), int([2], [1, -1])])), [17, -40]);
  assert.equal(values(run('iNoNorm', { D: 1, mul: 1 }, [int([1], [100]), int([1], [100]), int([1], [0])])), [16]);
});

test('iGELU and iHardswish', () => {
  // b = -4, one = 16. x=-5: q=4, L=-(16-0)=-16 -> 0; x=-2: q=2, d=-2, L=-12 -> (4>>1)*-2 = -4; x=0 -> 0;
  // x=3: d=-1, L=15 -> (31>>1)*3 = 45; x=10: L=16 -> 16*10 = 160
  assert.equal(values(run('iGELU', { b: -4, one: 16 }, [int([5], [-5, -2, 0, 3, 10])])), [0, -4, 0, 45, 160]);
  // one_over_six 2, three 3, six 6: clip(x+3,0,6)*2 = [0,4,6,10,12] -> x* = [0,-4,0,20,60]
  assert.equal(values(run('iHardswish', { one_over_six: 2, three: 3, six: 6 }, [int([5], [-4, -1, 0, 2, 5])])), [0, -4, 0, 20, 60]);
});

test('TrueIntegerDiv fold: coeff = floor(Delta*eta / (y*eta + eps)) * 256', () => {
  // 16384*200000 / 400001 = 8191.98 -> 8191 * 256 = 2096896; mul 4 -> 8387584, div 65536 -> 16777216
  const p = { Delta: 16384, eps: 1, eta: 200000, y: 2 };
  assert.is(trueIntegerDivCoeff(p), 2096896);
  assert.equal(foldTrueIntegerDiv(p, 4, 65536), { mul: 8387584, div: 16777216 });
});

test('the interpreter folds TrueIntegerDiv into the RequantShift after it', () => {
  // y = 2 halves x: mul 4 -> 8387584 with div 2^24 is x * 0.49994 -> x = [100, -100, 3] -> [50, -50, 1]
  // (100*8387584 + 2^23 = 847147008, / 2^24 = 50.49 -> 50; -838758400 + 2^23 = -830369792, / 2^24 = -49.49 -> -50;
  //  25162752 + 2^23 = 33551360, / 2^24 = 1.9998 -> 1)
  const graph = new OnnxBuilder('tid')
    .input('x', 'float32', [3])
    .initializer('mul', 'float32', [], [4])
    .initializer('add', 'float32', [], [0])
    .node('TrueIntegerDiv', ['x'], ['t'], { Delta: 16384, eps: 1, eta: 200000, y: 2 })
    .node('RequantShift', ['t', 'mul', 'add'], ['y'], { div: 65536, n_levels: 256, signed: 1 })
    .output('y', 'float32', [3])
    .graph();
  const v = runReference(graph, [ndarray('float32', [3], [100, -100, 3])]);
  assert.equal(values(v.get('y') as NDArray), [50, -50, 1]);
  assert.equal(values(v.get('t') as NDArray), [100, -100, 3]);
});

test('Slice: negative indices, INT64_MAX/INT64_MIN ends, negative steps', () => {
  const x = int([2, 5], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const i64 = (v: number[]) => ndarray('int64', [v.length], v);
  const big = 2 ** 63;
  // columns 1, 3 (end INT64_MAX clamps to 5)
  assert.equal(values(run('Slice', {}, [x, i64([1]), i64([big]), i64([1]), i64([2])])), [1, 3, 6, 8]);
  // all columns reversed: start -1 -> 4, end INT64_MIN clamps to -1
  assert.equal(values(run('Slice', {}, [x, i64([-1]), i64([-big]), i64([-1]), i64([-1])])), [4, 3, 2, 1, 0, 9, 8, 7, 6, 5]);
  // rows from -1, default axes and steps
  assert.equal(values(run('Slice', {}, [x, i64([-1, 0]), i64([2, -3])])), [5, 6]);
});

test('Conv, MaxPool, Pad, Gemm on small hand cases', () => {
  // 1x1x3x3 input 1..9, 2x2 kernel of ones, pad 1 on the top only, stride 2
  const x = int([1, 1, 3, 3], [1, 2, 3, 4, 5, 6, 7, 8, 9]);
  const w = int([1, 1, 2, 2], [1, 1, 1, 1]);
  // pads [1,0,0,0] (top, left, bottom, right): padded rows -1..2; out H = (3+1-2)/2+1 = 2, W = (3-2)/2+1 = 1
  // (0,0): rows -1,0 cols 0,1 = 1+2 = 3; (1,0): rows 1,2 cols 0,1 = 4+5+7+8 = 24
  const y = run('Conv', { pads: [1, 0, 0, 0], strides: [2, 2] }, [x, w]);
  assert.equal(y.shape, [1, 1, 2, 1]);
  assert.equal(values(y), [3, 24]);
  // MaxPool with padding on negative data: padding never wins. 2x2 windows, pads 1 all round, stride 2
  const neg = int([1, 1, 2, 2], [-5, -6, -7, -8]);
  assert.equal(values(run('MaxPool', { kernel_shape: [2, 2], pads: [1, 1, 1, 1], strides: [2, 2] }, [neg])), [-5, -6, -7, -8]);
  // Pad with a value, from inputs
  const p = run('Pad', {}, [int([2], [1, 2]), ndarray('int64', [2], [1, 2]), int([], [-9])]);
  assert.equal(values(p), [-9, 1, 2, -9, -9]);
  // Gemm alpha 2, beta 3, transB: A = [[1,2]], B^T = [[1,1],[0,1]] -> A.B = [3, 2]; 2*[3,2] + 3*[1,-1] = [9, 1]
  const g = run('Gemm', { alpha: 2, beta: 3, transB: 1 }, [int([1, 2], [1, 2]), int([2, 2], [1, 1, 0, 1]), int([2], [1, -1])]);
  assert.equal(values(g), [9, 1]);
});

test('QuantizeLinear rounds half to even and saturates', () => {
  // scale 0.5: x/0.5 = [1.0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0, -1.5 -> -2, 300] + zp 10 -> [11, 12, 12, 10, 8, 255]
  const x = ndarray('float32', [6], [0.5, 0.75, 1.25, -0.25, -0.75, 150]);
  const y = run('QuantizeLinear', {}, [x, ndarray('float32', [], [0.5]), ndarray('uint8', [], [10])]);
  assert.equal(values(y), [11, 12, 12, 10, 8, 255]);
  assert.is(y.dtype, 'uint8');
  const s = run('QuantizeLinear', {}, [x, ndarray('float32', [], [0.5]), ndarray('int8', [], [-128])]);
  // with zp -128 (int8): [1,2,2,0,-2,300] - 128 = [-127,-126,-126,-128,-130 -> -128, 172 -> 127]
  assert.equal(values(s), [-127, -126, -126, -128, -128, 127]);
});

test.run();
