import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { float, OnnxBuilder } from './onnx-builder.js';
import { Rng } from './random.js';

export interface MlpSpec {
  rows: number;
  sizes: number[];
  seed: number;
}

export interface MlpCase {
  model: string;
  sample: string;
  inputs: NDArray[];
  expected: NDArray[];
  /** Per layer as given to the model: weights [K][N] row-major, bias [N], multipliers [N], the addend. */
  weights: number[][];
  biases: number[][];
  muls: number[][];
  adds: number[];
}

/**
 * A requantized MLP for the SpiNNaker2 tests: x int8 [rows, sizes[0]], per layer a Gemm with int8 weights [K, N]
 * and an int32 bias, then a RequantShift with per-column multipliers to int8 (uint8, a fused ReLU, between layers).
 */
export function mlpCase(dir: string, spec: MlpSpec): MlpCase {
  const rng = new Rng(spec.seed);
  const b = new OnnxBuilder(`mlp_${spec.sizes.join('_')}`).input('x', 'int8', [spec.rows, spec.sizes[0]]);
  const weights: number[][] = [];
  const biases: number[][] = [];
  const muls: number[][] = [];
  const adds: number[] = [];
  let x = 'x';
  for (let l = 0; l + 1 < spec.sizes.length; l++) {
    const [K, N] = [spec.sizes[l], spec.sizes[l + 1]];
    const last = l + 2 === spec.sizes.length;
    const w = rng.ints(K * N, -128, 127);
    weights.push(w);
    b.initializer(`w${l}`, 'int8', [K, N], w);
    biases.push(rng.ints(N, -3000, 3000));
    b.initializer(`c${l}`, 'int32', [N], biases[l]);
    b.node('Gemm', [x, `w${l}`, `c${l}`], [`acc${l}`], {});
    const s = 12;
    muls.push(rng.ints(N, 1, 40));
    adds.push(rng.int(-(2 ** s), 2 ** s));
    b.initializer(`m${l}`, 'int32', [N], muls[l]);
    b.initializer(`a${l}`, 'int32', [1], [adds[l]]);
    b.node('RequantShift', [`acc${l}`, `m${l}`, `a${l}`], [`y${l}`], { div: float(2 ** s), n_levels: float(256), signed: float(last ? 1 : 0) });
    x = `y${l}`;
  }
  b.output(x, 'float32');
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  const sample = join(dir, 'inputs.npz');
  writeFileSync(model, b.bytes());
  const inputs = [ndarray('int8', [spec.rows, spec.sizes[0]], rng.ints(spec.rows * spec.sizes[0], -128, 127))];
  writeFileSync(sample, encodeNpz(new Map([['x', inputs[0]]])));
  const g = loadOnnxFile(model);
  const values = runReference(g, inputs);
  return { model, sample, inputs, expected: g.outputs.map((o) => values.get(o)!), weights, biases, muls, adds };
}
