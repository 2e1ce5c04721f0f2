import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * Small float models for the quantizer tests, with seeded weights: one that touches every op the quantizer
 * covers, and a two-layer MLP whose hidden channels have very different weight ranges (what equalisation fixes).
 */

/**
 * Conv+Relu, depthwise Conv+Clip(0,6), residual Add, MaxPool, Transpose, MatMul of two activations, AveragePool,
 * Concat, GlobalAveragePool, Reshape, MatMul+Add(bias)+Relu, Gemm (alpha, beta), Softmax. Input [1, 3, 8, 8].
 */
export function coverageModel(seed = 1): OnnxBuilder {
  const rng = new Rng(seed);
  const b = new OnnxBuilder('coverage').input('x', 'float32', [1, 3, 8, 8]);
  b.initializer('w1', 'float32', [8, 3, 3, 3], rng.floats(216, -0.5, 0.5)).initializer('b1', 'float32', [8], rng.floats(8, -0.1, 0.1));
  b.node('Conv', ['x', 'w1', 'b1'], ['c1'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1] });
  b.node('Relu', ['c1'], ['r1']);
  b.initializer('w2', 'float32', [8, 1, 3, 3], rng.floats(72, -0.5, 0.5));
  b.node('Conv', ['r1', 'w2'], ['c2'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], group: 8 });
  b.initializer('lo', 'float32', [], [0]).initializer('hi', 'float32', [], [6]);
  b.node('Clip', ['c2', 'lo', 'hi'], ['r2']);
  b.node('Add', ['r1', 'r2'], ['s']);
  b.node('MaxPool', ['s'], ['p'], { kernel_shape: [2, 2], strides: [2, 2] });
  b.node('Transpose', ['p'], ['pt'], { perm: [0, 1, 3, 2] });
  b.node('MatMul', ['p', 'pt'], ['pp']);
  b.node('AveragePool', ['pp'], ['ap'], { kernel_shape: [3, 3], strides: [1, 1], pads: [1, 1, 1, 1], count_include_pad: 1 });
  b.node('Concat', ['ap', 'p'], ['cc'], { axis: 2 });
  b.node('GlobalAveragePool', ['cc'], ['g']);
  b.initializer('shape', 'int64', [2], [1, 8]);
  b.node('Reshape', ['g', 'shape'], ['f']);
  b.initializer('w3', 'float32', [8, 6], rng.floats(48, -1, 1)).initializer('b3', 'float32', [6], rng.floats(6, -0.1, 0.1));
  b.node('MatMul', ['f', 'w3'], ['m']);
  b.node('Add', ['m', 'b3'], ['mb']);
  b.node('Relu', ['mb'], ['mr']);
  b.initializer('w4', 'float32', [5, 6], rng.floats(30, -1, 1)).initializer('b4', 'float32', [5], rng.floats(5, -0.1, 0.1));
  b.node('Gemm', ['mr', 'w4', 'b4'], ['z'], { transB: 1, alpha: 0.5, beta: 2 });
  b.node('Softmax', ['z'], ['y'], { axis: -1 });
  b.output('y', 'float32');
  return b;
}

/** A [-1, 1] input batch of `n` samples for a [1, ...shape] input. */
export function uniformInputs(n: number, shape: number[], seed = 2): NDArray {
  const size = shape.reduce((a, d) => a * d, 1);
  return ndarray('float32', [n, ...shape], new Rng(seed).floats(n * size, -1, 1));
}

/**
 * 16-64-8 MLP, Gemm + Relu + Gemm, where hidden channel i's weights are scaled by 2^(i mod 8 - 4) and the second
 * layer compensates: the float function is ordinary, but one per-tensor scale serves channels 256x apart.
 */
export function unevenMlp(seed = 3): OnnxBuilder {
  const rng = new Rng(seed);
  const w1 = rng.floats(64 * 16, -1, 1).map((v, i) => v * 2 ** ((Math.floor(i / 16) % 8) - 4));
  const b1 = rng.floats(64, 0, 0.2).map((v, i) => v * 2 ** ((i % 8) - 4));
  const w2 = rng.floats(8 * 64, -0.3, 0.3).map((v, i) => v / 2 ** (((i % 64) % 8) - 4));
  return new OnnxBuilder('uneven').input('x', 'float32', [1, 16])
    .initializer('w1', 'float32', [64, 16], w1).initializer('b1', 'float32', [64], b1)
    .initializer('w2', 'float32', [8, 64], w2).initializer('b2', 'float32', [8], rng.floats(8, -0.1, 0.1))
    .node('Gemm', ['x', 'w1', 'b1'], ['h'], { transB: 1 })
    .node('Relu', ['h'], ['hr'])
    .node('Gemm', ['hr', 'w2', 'b2'], ['y'], { transB: 1 })
    .output('y', 'float32');
}
