import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { unrollLstms } from '../../generator/quantize/expand-lstm.js';
import { quantizeFile } from '../../generator/quantize/files.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { argmax, emulatedOutputs, integerInputs, mismatches, ortOutputs, referenceOutputs } from '../fashion-common.js';

/*
 * The torch-built models of build.py through firmgen: the float model in onnxruntime-node against torch's logits
 * (the export) and against firmgen's reference interpreter on the graph with its LSTMs unrolled (the unrolling);
 * quantized by firmgen (`gen quantize`'s code), the integer model's dequantized logits against torch's (how far
 * PTQ moved them); the firmware generated per platform and emulated on the first test samples, every output value
 * against the integer model in the reference interpreter (bit-exact or not). Where the quantization has a QDQ form
 * (CNN, MLP), that runs in onnxruntime against the integer model too.
 */

export const TORCH_MODELS = ['cnn', 'mlp', 'lstm'] as const;
export type TorchModel = (typeof TORCH_MODELS)[number];

/** The python build.py runs with (Debian's python3-torch lives there; scripts/install-toolchains.sh installs it). */
export const TORCH_PYTHON = '/usr/bin/python3';

/** Runs build.py into `out` (extra arguments passed on); returns `out`. Throws its last line on failure. */
export function buildTorchModels(out: string, args: string[]): string {
  mkdirSync(out, { recursive: true });
  const r = spawnSync(TORCH_PYTHON, [join(REPO_ROOT, 'examples', 'tangram-torch', 'build.py'), '--out', out, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new GenError('run', `build.py failed: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}`);
  process.stdout.write(r.stdout);
  return out;
}

export interface TorchModelResult {
  name: TorchModel;
  float: {
    /** Largest |ORT - torch| over the test logits: the export. */
    ortVsTorch: number;
    /** Largest |firmgen reference on the unrolled graph - ORT on the model as exported|: the LSTM unrolling. */
    unrolledVsOrt: number;
    /** Torch's accuracy on the test labels (%). */
    accuracy: number;
  };
  int8: {
    /** Output SQNR on the calibration data (the quantizer's report). */
    sqnrDb: number;
    /** Largest |int8 logit * output scale - torch logit| over the test samples, and the largest |torch logit|. */
    maxAbsError: number;
    maxAbsLogit: number;
    /** Test samples whose int8 argmax is torch's (%). */
    argmaxAgreement: number;
    accuracy: number;
    /** Operators of the integer model (the unrolled LSTM's are many). */
    nodes: number;
    /**
     * The same quantization as QDQ ONNX in onnxruntime against the integer model: output values that differ and by
     * how many LSBs at most (RequantShift rounds half up with 15-bit multipliers, ORT half to even in float32:
     * docs/quantization.md). Absent for the LSTM: its tables and products have no QDQ form.
     */
    qdq?: { differ: number; values: number; maxLsb: number };
  };
  emulated: { platform: string; errors: number; values: number; cycles: number }[];
}

function samples(a: NDArray): NDArray[] {
  const n = a.shape[0];
  const size = a.data.length / n;
  return Array.from({ length: n }, (_, i) => ndarray(a.dtype, [1, ...a.shape.slice(1)], a.data.subarray(i * size, (i + 1) * size)));
}

const maxAbsDiff = (a: ArrayLike<number>[], b: ArrayLike<number>[]): number =>
  a.reduce((m, x, i) => Array.from(x).reduce((mm, v, k) => Math.max(mm, Math.abs(v - b[i][k])), m), 0);

/** One model of build.py's folder `dir` through firmgen, its files written under `out`. */
export async function runTorchModel(dir: string, name: TorchModel, out: string, platforms: string[], emulate: number): Promise<TorchModelResult> {
  mkdirSync(out, { recursive: true });
  const model = join(dir, `${name}.onnx`);
  const test = readNpz(join(dir, `${name}.test.npz`));
  const inputs = samples(test.get('x')!);
  const torchLogits = samples(test.get('y')!).map((y) => y.data);
  const labels = Array.from(test.get('label')!.data);
  const classes = torchLogits[0].length;
  const accuracy = (logits: ArrayLike<number>[]): number => (100 * logits.filter((l, i) => argmax(l, classes) === labels[i]).length) / labels.length;

  const ort = await ortOutputs(model, inputs);
  const unrolled = unrollLstms(loadOnnxFile(model));
  const ref = inputs.map((x) => runReference(unrolled, [x]).get(unrolled.outputs[0])!.data);

  const intModel = join(out, `${name}.int8.onnx`);
  const q = quantizeFile({ model, calibration: join(dir, `${name}.calibration.npz`), out: intModel });
  const ints = referenceOutputs(q, inputs);
  const scale = q.plan.act.get(q.intGraph.outputs[0])!.scale;
  const dequantized = ints.map((o) => Array.from(o.data, (v) => v * scale));
  let qdq: TorchModelResult['int8']['qdq'];
  if (q.qdqGraph) {
    const file = join(out, `${name}.qdq.onnx`);
    writeFileSync(file, encodeModel(q.qdqGraph, { opset: 13, producer: 'firmgen quantize' }));
    const lsbs = (await ortOutputs(file, inputs)).flatMap((o, i) => Array.from(o, (v, k) => Math.abs(Math.round(v / scale) - ints[i].data[k])));
    qdq = { differ: lsbs.filter((d) => d !== 0).length, values: lsbs.length, maxLsb: Math.max(...lsbs) };
  }
  const agree = dequantized.filter((d, i) => argmax(d, classes) === argmax(torchLogits[i], classes)).length;

  const emulated = [];
  const n = Math.min(emulate, inputs.length);
  for (const platform of platforms) {
    const e = await emulatedOutputs(intModel, platform, join(out, platform), integerInputs(q, inputs.slice(0, n)));
    emulated.push({ platform, errors: mismatches(e.outputs, ints.slice(0, n)), values: n * classes, cycles: e.cycles });
  }
  return {
    name,
    float: { ortVsTorch: maxAbsDiff(ort, torchLogits), unrolledVsOrt: maxAbsDiff(ref, ort), accuracy: accuracy(torchLogits) },
    int8: {
      sqnrDb: q.layers.find((l) => l.output === q.intGraph.outputs[0])?.sqnrDb ?? Infinity,
      maxAbsError: maxAbsDiff(dequantized, torchLogits),
      maxAbsLogit: torchLogits.reduce((m, l) => Math.max(m, ...Array.from(l, Math.abs)), 0),
      argmaxAgreement: (100 * agree) / inputs.length,
      accuracy: accuracy(dequantized),
      nodes: q.intGraph.nodes.length,
      qdq,
    },
    emulated,
  };
}
