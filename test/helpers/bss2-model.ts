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
