import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Expr, Graph, Node, Tensor } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { segmentFunctionOf } from '../../generator/platforms/tangram/segment-functions.js';

/**
 * What an element-wise layer computes inside a segment (segment-functions.ts), from the integer dialect's fused
 * expressions (frontend/passes/fuse-elementwise.ts): ReLU, Clip and a requantization of one map; an Add of two maps
 * is the control core's.
 */
const inp = (i: number): Expr => ({ k: 'in', i });

function graphWith(expr: Expr, inputs: string[]): { g: Graph; n: Node } {
  const tensors = new Map<string, Tensor>([
    ['x', { name: 'x', shape: [1, 2, 3, 3], dtype: 'int32' }],
    ['x2', { name: 'x2', shape: [1, 2, 3, 3], dtype: 'int32' }],
    ['y', { name: 'y', shape: [1, 2, 3, 3], dtype: 'int8' }],
    ['mul', { name: 'mul', shape: [2, 1, 1], dtype: 'int32', data: ndarray('int32', [2, 1, 1], [3, 5]) }],
    ['add', { name: 'add', shape: [1], dtype: 'int32', data: ndarray('int32', [1], [7]) }],
  ]);
  const n: Node = { name: 'e', op: 'Elementwise', domain: 'firmgen', inputs, outputs: ['y'], attrs: {}, expr };
  return { g: { name: 'g', source: 'test', tensors, nodes: [n], inputs: ['x'], outputs: ['y'] }, n };
}

test('ReLU and Clip are clips of the map, channels of a [1, C, H, W] map', () => {
  const relu = graphWith({ k: 'clip', a: { k: 'max', a: inp(0), b: { k: 'const', v: 0 } }, lo: -128, hi: 127 }, ['x']);
  const f = segmentFunctionOf(relu.n, relu.g);
  assert.type(f, 'object');
  if (typeof f === 'string') return;
  assert.is(f.kind, 3);
  assert.equal(f.clip, { min: 0, max: 127 });
  assert.is(f.fn.requant, undefined);
  assert.equal([f.fn.k, f.fn.ho, f.fn.wo, ...f.fn.xStrides], [2, 3, 3, 18, 9, 3, 1]);
});

test('a requantization: per-channel multiplier, scalar add, its clip', () => {
  // clip((x * mul + add + 2^3) >> 4, -128, 127), then a ReLU: the range [0, 127].
  const rq: Expr = { k: 'shr', a: { k: 'add', a: { k: 'add', a: { k: 'mul', a: inp(0), b: inp(1) }, b: inp(2) }, b: { k: 'const', v: 8 } }, s: 4 };
  const { g, n } = graphWith({ k: 'max', a: { k: 'clip', a: rq, lo: -128, hi: 127 }, b: { k: 'const', v: 0 } }, ['x', 'mul', 'add']);
  const f = segmentFunctionOf(n, g);
  if (typeof f === 'string') throw new Error(f);
  assert.equal(f.fn.requant, { shift: 4, min: 0, max: 127, mulPerChannel: true, addPerChannel: false, mulType: 'int32', addType: 'int32' });
  assert.is(f.clip, undefined);
});

test('the requantized Add of two maps: the scaled sum, then the requantization', () => {
  // clip(((x2 * s0 + x * s1) * mul + add + 2^3) >> 4, 0, 255): the leaves in any order, the scales scalars.
  const sum: Expr = { k: 'add', a: { k: 'mul', a: inp(2), b: inp(3) }, b: { k: 'mul', a: inp(4), b: inp(5) } };
  const rq: Expr = { k: 'shr', a: { k: 'add', a: { k: 'add', a: { k: 'mul', a: sum, b: inp(0) }, b: inp(1) }, b: { k: 'const', v: 8 } }, s: 4 };
  const { g, n } = graphWith({ k: 'clip', a: rq, lo: 0, hi: 255 }, ['mul', 'add', 'x2', 'add', 'x', 'add']);
  const f = segmentFunctionOf(n, g);
  if (typeof f === 'string') throw new Error(f);
  assert.is(f.kind, 4);
  assert.equal(f.leaves, { x: 2, sx: 3, x2: 4, sx2: 5, mul: 0, add: 1 });
  assert.equal(f.fn.requant, { shift: 4, min: 0, max: 255, mulPerChannel: true, addPerChannel: false, mulType: 'int32', addType: 'int32' });
  // Per-channel scales are not the engines' (scalars only).
  const perChannel = graphWith({ k: 'clip', a: rq, lo: 0, hi: 255 }, ['mul', 'add', 'x2', 'mul', 'x', 'add']);
  assert.match(String(segmentFunctionOf(perChannel.n, perChannel.g)), /runs on the control core/);
});

test('a plain Add of two maps, and the firmware without element-wise layers in segments, give their reasons', () => {
  const add = graphWith({ k: 'add', a: inp(0), b: inp(1) }, ['x', 'x2']);
  assert.match(String(segmentFunctionOf(add.n, add.g)), /runs on the control core \(an element-wise expression the engines do not compute/);
  const relu = graphWith({ k: 'max', a: inp(0), b: { k: 'const', v: 0 } }, ['x']);
  assert.match(String(segmentFunctionOf(relu.n, relu.g, false)), /the firmware's element-wise layers/);
});

test.run();
