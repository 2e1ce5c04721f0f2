import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import type { CaseJob } from './case-run.js';
import type { Config } from './configs.js';

/** A model and its inputs on disk with the reference interpreter's outputs: all a job needs but the configuration. */
export interface Prepared {
  model: string;
  sample: string;
  bytes: Uint8Array;
  inputs: NDArray[];
  expected: NDArray[];
}

/** Writes model.onnx and inputs.npz into `dir` and runs the reference (the oracle) on them. */
export function prepare(dir: string, bytes: Uint8Array, inputs: NDArray[]): Prepared {
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  const sample = join(dir, 'inputs.npz');
  writeFileSync(model, bytes);
  writeFileSync(sample, encodeNpz(new Map(inputs.map((a, i) => [`in${i}`, a]))));
  const graph = loadOnnxBytes(bytes, model);
  const values = runReference(graph, inputs);
  return { model, sample, bytes, inputs, expected: graph.outputs.map((o) => values.get(o)!) };
}

export function jobOf(p: Prepared, config: Config, out: string, hostC: boolean): CaseJob {
  return { model: p.model, sample: p.sample, inputs: p.inputs, expected: p.expected, out, config, hostC };
}
