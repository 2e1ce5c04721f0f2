import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { float, OnnxBuilder } from './onnx-builder.js';
import { Rng } from './random.js';

export interface Bss2Mlp {
  model: string;
  inputs: NDArray[];
}

/**
 * An MLP for BrainScaleS-2: x uint8 [rows, sizes[0]] (the non-negative input the arrays take), per layer a Gemm with
 * int8 weights [K, N] and an int32 bias, then a RequantShift with per-column multipliers: uint8 between layers (a
 * fused ReLU), int8 at the end. `signedInput`: x int8 instead (the first layer cannot go to the arrays).
 */
export function bss2Mlp(dir: string, sizes: number[], rows: number, seed: number, signedInput = false): Bss2Mlp {
  const rng = new Rng(seed);
  const b = new OnnxBuilder(`bss2_mlp_${sizes.join('_')}`).input('x', signedInput ? 'int8' : 'uint8', [rows, sizes[0]]);
  let x = 'x';
  for (let l = 0; l + 1 < sizes.length; l++) {
    const [K, N] = [sizes[l], sizes[l + 1]];
    const last = l + 2 === sizes.length;
    b.initializer(`w${l}`, 'int8', [K, N], rng.ints(K * N, -128, 127));
    b.initializer(`c${l}`, 'int32', [N], rng.ints(N, -3000, 3000));
    b.node('Gemm', [x, `w${l}`, `c${l}`], [`acc${l}`], {});
    // multipliers that bring a K-long sum of uint8 x int8 products (std ~ 128 * 74 * sqrt(K)) to the 8-bit range
    const s = 16;
    const scale = (2 ** s * 40) / (128 * 74 * Math.sqrt(K));
    b.initializer(`m${l}`, 'int32', [N], rng.ints(N, Math.max(1, Math.round(scale * 0.5)), Math.max(1, Math.round(scale * 1.5))));
    b.initializer(`a${l}`, 'int32', [1], [last ? 0 : 2 ** (s + 4)]);
    b.node('RequantShift', [`acc${l}`, `m${l}`, `a${l}`], [`y${l}`], { div: float(2 ** s), n_levels: float(256), signed: float(last ? 1 : 0) });
    x = `y${l}`;
  }
  b.output(x, 'float32');
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  writeFileSync(model, b.bytes());
  const inputs = [ndarray(signedInput ? 'int8' : 'uint8', [rows, sizes[0]], rng.ints(rows * sizes[0], signedInput ? -128 : 0, signedInput ? 127 : 255))];
  writeFileSync(join(dir, 'inputs.npz'), encodeNpz(new Map([['x', inputs[0]]])));
  return { model, inputs };
}

/**
 * The hxtorch paper's human-activity topology in small (no biases, ReLU as unsigned requantization): x uint8
 * [1, 9, 128] -> Conv1d 16 filters, kernel 32, stride 6 -> [1, 16, 17] -> Reshape [1, 272] -> Gemm 125 -> Gemm 6
 * (int8). `twoD`: a 2-D conv instead, x uint8 [2, 3, 8, 8], 8 filters 3x3, stride 2, pads 1, with a bias, as output.
 */
export function bss2ConvNet(dir: string, seed: number, twoD = false): Bss2Mlp {
  const rng = new Rng(seed);
  const s = 16;
  const mulFor = (K: number, n: number): number[] => {
    const scale = (2 ** s * 40) / (128 * 74 * Math.sqrt(K));
    return rng.ints(n, Math.max(1, Math.round(scale * 0.5)), Math.max(1, Math.round(scale * 1.5)));
  };
  const shape = twoD ? [2, 3, 8, 8] : [1, 9, 128];
  const b = new OnnxBuilder(twoD ? 'bss2_conv2d' : 'bss2_har').input('x', 'uint8', shape);
  if (twoD) {
    b.initializer('w0', 'int8', [8, 3, 3, 3], rng.ints(8 * 27, -128, 127));
    b.initializer('c0', 'int32', [8], rng.ints(8, -2000, 2000));
    b.node('Conv', ['x', 'w0', 'c0'], ['acc0'], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] });
    b.initializer('m0', 'int32', [8, 1, 1], mulFor(27, 8));
    b.initializer('a0', 'int32', [1], [0]);
    b.node('RequantShift', ['acc0', 'm0', 'a0'], ['y'], { div: float(2 ** s), n_levels: float(256), signed: float(1) });
  } else {
    b.initializer('w0', 'int8', [16, 9, 32], rng.ints(16 * 9 * 32, -128, 127));
    b.node('Conv', ['x', 'w0'], ['acc0'], { kernel_shape: [32], strides: [6] });
    b.initializer('m0', 'int32', [1, 16, 1], mulFor(288, 16));
    b.initializer('a0', 'int32', [1], [2 ** (s + 4)]);
    b.node('RequantShift', ['acc0', 'm0', 'a0'], ['h0'], { div: float(2 ** s), n_levels: float(256), signed: float(0) });
    b.initializer('flat', 'int64', [2], [1, 272]);
    b.node('Reshape', ['h0', 'flat'], ['f0']);
    let x = 'f0';
    for (const [l, K, N] of [[1, 272, 125], [2, 125, 6]]) {
      const last = l === 2;
      b.initializer(`w${l}`, 'int8', [K, N], rng.ints(K * N, -128, 127));
      b.node('Gemm', [x, `w${l}`], [`acc${l}`], {});
      b.initializer(`m${l}`, 'int32', [N], mulFor(K, N));
      b.initializer(`a${l}`, 'int32', [1], [last ? 0 : 2 ** (s + 4)]);
      b.node('RequantShift', [`acc${l}`, `m${l}`, `a${l}`], [last ? 'y' : `h${l}`], { div: float(2 ** s), n_levels: float(256), signed: float(last ? 1 : 0) });
      x = `h${l}`;
    }
  }
  b.output('y', 'float32');
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  writeFileSync(model, b.bytes());
  const inputs = [ndarray('uint8', shape, rng.ints(shape.reduce((p, d) => p * d, 1), 0, 255))];
  writeFileSync(join(dir, 'inputs.npz'), encodeNpz(new Map([['x', inputs[0]]])));
  return { model, inputs };
}
