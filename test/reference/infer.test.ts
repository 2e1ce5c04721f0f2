import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import type { Graph, Tensor } from '../../generator/ir/graph.js';
import { inferGraph, inputRangesFromArrays } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { supportedOps } from '../../generator/reference/registry.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';

/* Shape and type inference on small graphs whose ranges are worked out by hand. */

const tensor = (g: Graph, name: string): Tensor => {
  const t = g.tensors.get(name);
  if (!t) throw new Error(`no tensor ${name}`);
  return t;
};

function throwsGen(f: () => unknown, kind: string, text: RegExp): void {
  try {
    f();
  } catch (e) {
    assert.instance(e, GenError);
    assert.is((e as GenError).kind, kind);
    assert.match((e as GenError).message, text);
    return;
  }
  assert.unreachable('expected a GenError');
}

test('Conv with constant weights: per-channel bound from the weights and the input range', () => {
  // x uint8 [0,255], w = [[1,-2]] (k=2): min = 0*1 + 255*-2 = -510, max = 255*1 + 0 = 255 -> int16
  const g = new OnnxBuilder('conv')
    .input('x', 'uint8', [1, 1, 6])
    .initializer('w', 'float32', [1, 1, 2], [1, -2])
    .node('Conv', ['x', 'w'], ['y'], { kernel_shape: [2] })
    .output('y', 'float32')
    .graph();
  const i = inferGraph(g);
  assert.equal(tensor(i, 'y').shape, [1, 1, 5]);
  assert.equal(tensor(i, 'y').range, { min: -510, max: 255 });
  assert.is(tensor(i, 'y').dtype, 'int16');
  // Constants are typed by their values: [1,-2] fits int8.
  assert.is(tensor(i, 'w').dtype, 'int8');
  // With zero padding, 0 joins the input range: [1,200] -> [0,200]: min = -400, max = 200
  const p = new OnnxBuilder('conv')
    .input('x', 'float32', [1, 1, 6])
    .initializer('w', 'float32', [1, 1, 2], [1, -2])
    .node('Conv', ['x', 'w'], ['y'], { kernel_shape: [2], pads: [1, 1] })
    .output('y', 'float32')
    .graph();
  const pi = inferGraph(p, new Map([['x', { min: 1, max: 200 }]]));
  assert.equal(tensor(pi, 'y').range, { min: -400, max: 200 });
  assert.equal(tensor(pi, 'y').shape, [1, 1, 7]);
});

test('RequantShift, iSoftmax, iRMSNorm types come from their attributes', () => {
  const g = new OnnxBuilder('rq')
    .input('x', 'float32', [2, 4])
    .initializer('m', 'float32', [], [3])
    .initializer('a', 'float32', [], [0])
    .node('RequantShift', ['x', 'm', 'a'], ['s'], { div: 4, n_levels: 256, signed: 1 })
    .node('RequantShift', ['x', 'm', 'a'], ['u'], { div: 4, n_levels_out: 256, signed: 0 })
    .node('iSoftmax', ['s'], ['p'], { coeffA: 1, coeffB: 173, coeffC: 15599, log2: 127, n_levels: 256 })
    .node('iRMSNorm', ['s', 'm'], ['r'], { D: 4, n_levels: 256 })
    .node('ITAPartialMax', ['s'], ['q'], { group_width: 2, n_levels: 256 })
    .output('p', 'float32').output('u', 'float32').output('r', 'float32').output('q', 'float32')
    .graph();
  const i = inferGraph(g, new Map([['x', { min: -100000, max: 100000 }]]));
  assert.is(tensor(i, 'x').dtype, 'int32');
  assert.is(tensor(i, 's').dtype, 'int8');
  assert.is(tensor(i, 'u').dtype, 'uint8');
  assert.is(tensor(i, 'p').dtype, 'uint8');
  assert.equal(tensor(i, 'p').range, { min: 0, max: 255 });
  assert.is(tensor(i, 'r').dtype, 'int8');
  assert.equal(tensor(i, 'q').range, { min: 0, max: 127 });
});

test('interval arithmetic for Add/Sub/Mul; ranges past int32 are capped', () => {
  const g = new OnnxBuilder('arith')
    .input('a', 'int8', [4])
    .input('b', 'int8', [4])
    .input('c', 'int32', [4])
    .node('Add', ['a', 'b'], ['s'])
    .node('Sub', ['a', 'b'], ['d'])
    .node('Mul', ['a', 'b'], ['m'])
    .node('Mul', ['c', 'c'], ['big'])
    .output('s', 'int32').output('d', 'int32').output('m', 'int32').output('big', 'int32')
    .graph();
  const i = inferGraph(g);
  assert.equal(tensor(i, 's').range, { min: -256, max: 254 });
  assert.equal(tensor(i, 'd').range, { min: -255, max: 255 });
  assert.equal(tensor(i, 'm').range, { min: -16256, max: 16384 });
  assert.is(tensor(i, 'm').dtype, 'int16');
  assert.equal(tensor(i, 'big').range, { min: -2147483648, max: 2147483647 });
  assert.is(tensor(i, 'big').dtype, 'int32');
});

test('MatMul and Gemm with constant operands', () => {
  // x int8, B = [[1],[2]]: min = -128 - 256 = -384, max = 127 + 254 = 381
  // Gemm: alpha 2, beta 1, C = [10]: [2*-384 + 10, 2*381 + 10] = [-758, 772]
  const g = new OnnxBuilder('mm')
    .input('x', 'float32', [3, 2])
    .initializer('B', 'float32', [2, 1], [1, 2])
    .initializer('Bt', 'float32', [1, 2], [1, 2])
    .initializer('C', 'float32', [1], [10])
    .node('MatMul', ['x', 'B'], ['y'])
    .node('Gemm', ['x', 'Bt', 'C'], ['z'], { alpha: float(2), beta: float(1), transB: 1 })
    .output('y', 'float32').output('z', 'float32')
    .graph();
  const i = inferGraph(g);
  assert.equal(tensor(i, 'x').range, { min: -128, max: 127 }); // FLOAT input without ranges: int8
  assert.equal(tensor(i, 'y').range, { min: -384, max: 381 });
  assert.equal(tensor(i, 'y').shape, [3, 1]);
  assert.equal(tensor(i, 'z').range, { min: -758, max: 772 });
  assert.equal(tensor(i, 'z').shape, [3, 1]);
});

test('shapes without value_info: Reshape (0, -1), Transpose, Unsqueeze/Squeeze axes, Slice, Concat, Pad, folded constants', () => {
  const g = new OnnxBuilder('shapes')
    .input('x', 'int8', [2, 3, 4])
    .initializer('shape', 'int64', [2], [0, -1])
    .initializer('ax', 'int64', [1], [0])
    .initializer('starts', 'int64', [1], [1])
    .initializer('ends', 'int64', [1], [2 ** 63])
    .initializer('pads', 'int64', [4], [0, 1, 0, 2])
    .initializer('padv', 'int64', [], [-100])
    .initializer('h1', 'int64', [1], [4])
    .initializer('h2', 'int64', [1], [6])
    .node('Reshape', ['x', 'shape'], ['r']) // [2, 12]
    .node('Transpose', ['r'], ['t']) // [12, 2]
    .node('Unsqueeze', ['t', 'ax'], ['u']) // [1, 12, 2]
    .node('Squeeze', ['u'], ['q'], { axes: [0] }) // [12, 2]
    .node('Slice', ['q', 'starts', 'ends'], ['s']) // [11, 2]
    .node('Concat', ['s', 's'], ['c'], { axis: -1 }) // [11, 4]
    .node('Pad', ['c', 'pads', 'padv'], ['p']) // [11, 7]
    .node('Concat', ['h1', 'h2'], ['target'], { axis: 0 }) // folded: [4, 6]
    .node('Flatten', ['x'], ['f'], { axis: 2 }) // [6, 4]
    .node('Reshape', ['f', 'target'], ['g']) // [4, 6]
    .output('p', 'int8').output('g', 'int8')
    .graph();
  const i = inferGraph(g);
  const shapes = Object.fromEntries(['r', 't', 'u', 'q', 's', 'c', 'p', 'target', 'f', 'g'].map((n) => [n, tensor(i, n).shape]));
  assert.equal(shapes, {
    r: [2, 12], t: [12, 2], u: [1, 12, 2], q: [12, 2], s: [11, 2], c: [11, 4], p: [11, 7], target: [2], f: [6, 4], g: [4, 6],
  });
  assert.equal(tensor(i, 'p').range, { min: -128, max: 127 });
  assert.is(tensor(i, 'p').dtype, 'int8'); // the pad value -100 is inside int8
  assert.is(tensor(i, 'ends').dtype, 'int64'); // constants keep exact values: INT64_MAX is no int32
  // The original graph is untouched.
  assert.equal(tensor(g, 'c').shape, []);
});

test('QDQ graphs: float inputs stay float32, quantized tensors take their zero point type', () => {
  const g = new OnnxBuilder('qdq')
    .input('x', 'float32', [1, 2, 4, 4])
    .initializer('s', 'float32', [], [0.05])
    .initializer('z', 'uint8', [], [128])
    .initializer('wq', 'int8', [3, 2, 1, 1], [1, -2, 3, -4, 5, -6])
    .initializer('ws', 'float32', [], [0.02])
    .initializer('wz', 'int8', [], [0])
    .node('QuantizeLinear', ['x', 's', 'z'], ['xq'])
    .node('DequantizeLinear', ['xq', 's', 'z'], ['xd'])
    .node('DequantizeLinear', ['wq', 'ws', 'wz'], ['wd'])
    .node('Conv', ['xd', 'wd'], ['c'])
    .node('Relu', ['c'], ['r'])
    .node('QuantizeLinear', ['r', 's', 'z'], ['y'])
    .node('AveragePool', ['y'], ['ap'], { kernel_shape: [2, 2] })
    .output('y', 'uint8').output('ap', 'float32')
    .graph();
  const i = inferGraph(g);
  assert.is(tensor(i, 'x').dtype, 'float32');
  assert.is(tensor(i, 'x').range, undefined);
  assert.is(tensor(i, 'xq').dtype, 'uint8');
  assert.is(tensor(i, 'xd').dtype, 'float32');
  assert.is(tensor(i, 'c').dtype, 'float32');
  assert.is(tensor(i, 'r').dtype, 'float32');
  assert.is(tensor(i, 'y').dtype, 'uint8');
  assert.equal(tensor(i, 'y').shape, [1, 3, 4, 4]);
  assert.is(tensor(i, 'ap').dtype, 'float32');
  assert.equal(tensor(i, 'ap').shape, [1, 3, 3, 3]);
  assert.is(tensor(i, 's').dtype, 'float32');
});

test('input types: sample ranges, then a declared integer type, then int8', () => {
  const g = new OnnxBuilder('inputs')
    .input('a', 'float32', [2])
    .input('b', 'int16', [2])
    .input('c', 'float32', [2])
    .node('Add', ['a', 'b'], ['s'])
    .node('Add', ['s', 'c'], ['y'])
    .output('y', 'float32')
    .graph();
  const ranges = inputRangesFromArrays(g, [ndarray('float32', [2], [0, 200]), ndarray('int16', [2], [1, 2])]);
  assert.equal([...ranges.keys()], ['a', 'b']);
  const i = inferGraph(g, ranges);
  assert.is(tensor(i, 'a').dtype, 'uint8');
  assert.equal(tensor(i, 'b').range, { min: 1, max: 2 });
  assert.is(tensor(i, 'c').dtype, 'int8');
  assert.equal(tensor(i, 'y').range, { min: 1 - 128, max: 202 + 127 });
  const plain = inferGraph(g);
  assert.equal(tensor(plain, 'b').range, { min: -32768, max: 32767 });
});

test('constants: integer values give their narrowest type, other floats float32', () => {
  const g = new OnnxBuilder('consts')
    .input('x', 'int8', [2])
    .initializer('k', 'float32', [2], [0, 300])
    .initializer('h', 'float32', [2], [0.5, 1])
    .node('Add', ['x', 'k'], ['y'])
    .node('Mul', ['x', 'h'], ['z'])
    .output('y', 'float32').output('z', 'float32')
    .graph();
  const i = inferGraph(g);
  assert.is(tensor(i, 'k').dtype, 'int16');
  assert.is(tensor(i, 'h').dtype, 'float32');
  assert.is(tensor(i, 'y').dtype, 'int16');
  assert.is(tensor(i, 'z').dtype, 'float32');
});

test('errors name the node: unknown op, dynamic input, bad shapes', () => {
  const unknown = new OnnxBuilder('u').input('x', 'int8', [2]).node('Frobnicate', ['x'], ['y']).output('y', 'int8', [2]).graph();
  throwsGen(() => inferGraph(unknown), 'unsupported', /Frobnicate_0.*Frobnicate/);
  throwsGen(() => runReference(unknown, [ndarray('int8', [2], [1, 2])]), 'unsupported', /Frobnicate/);
  const dyn = new OnnxBuilder('d').input('x', 'int8', [-1, 2]).node('Relu', ['x'], ['y']).output('y', 'int8', [1, 2]).graph();
  throwsGen(() => inferGraph(dyn), 'unsupported', /'x'.*dynamic/);
  const bad = new OnnxBuilder('b').input('a', 'int8', [2, 3]).input('b', 'int8', [4]).node('Add', ['a', 'b'], ['y']).output('y', 'int8', [2, 3]).graph();
  throwsGen(() => inferGraph(bad), 'model', /Add_0.*broadcast/);
  throwsGen(() => runReference(bad, [ndarray('int8', [3, 2]), ndarray('int8', [4])]), 'input', /input 'a' has shape \[3, 2\].*\[2, 3\]/);
});

test('every op of SEMANTICS.md has a spec', () => {
  const ops = supportedOps();
  for (const op of [
    'RequantShift', 'Conv', 'Gemm', 'MatMul', 'Add', 'Sub', 'Mul', 'MaxPool', 'Pad', 'Concat', 'Slice', 'Gather', 'Transpose',
    'Reshape', 'Flatten', 'Squeeze', 'Unsqueeze', 'Identity', 'ReduceSum', 'ReduceMean', 'IntegerMean', 'iSoftmax', 'ITAMax',
    'ITAPartialMax', 'iLayerNorm', 'iRMSNorm', 'iNoNorm', 'iGELU', 'iHardswish', 'IntegerDiv', 'TrueIntegerDiv',
    'QuantizeLinear', 'DequantizeLinear', 'QLinearMatMul', 'QLinearConv', 'QLinearAdd', 'QLinearMul', 'QGemm', 'MatMulInteger',
    'ConvInteger', 'Relu', 'AveragePool', 'GlobalAveragePool', 'Clip', 'Round', 'Div',
  ]) assert.ok(ops.includes(op), op);
});

test.run();
