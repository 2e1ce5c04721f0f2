import * as ort from 'onnxruntime-node';
import { ortSession } from './ort-session.js';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../generator/ir/ndarray.js';
import { readNpz } from '../generator/onnx/npy.js';
import { generateFirmware } from '../generator/pipeline.js';
import { quantizeFile } from '../generator/quantize/files.js';
import type { Quantized } from '../generator/quantize/index.js';
import { runBatched, sampleOf } from '../generator/quantize/batch.js';
import { quantizeInput } from '../generator/quantize/report.js';
import type { QuantizeOptions } from '../generator/quantize/types.js';
import { runFirmware } from '../runtime/node/run.js';

/*
 * The Fashion-MNIST examples (fashion-mlp, fashion-cnn): quantize the shipped float model with firmgen, then
 * classify the shipped test subset four ways: float (onnxruntime-node), QDQ int8 (onnxruntime-node), int8 in the
 * reference interpreter, int8 firmware emulated on each platform. Used by each example's run.ts and by the tests.
 */

export interface Fashion {
  name: string;
  dir: string;
  model: string;
  calibration: string;
  images: NDArray[];
  labels: number[];
  /** Classes scored by argmax: the MLP's output is padded to 16, only the first 10 are classes. */
  classes: number;
}

export function loadFashion(dir: string, limit = Infinity): Fashion {
  const test = readNpz(join(dir, 'test.npz'));
  const x = test.get('image')!;
  const y = test.get('label')!;
  const n = Math.min(limit, x.shape[0]);
  const size = x.data.length / x.shape[0];
  return {
    name: dir.split('/').filter(Boolean).pop()!,
    dir,
    model: join(dir, 'model.onnx'),
    calibration: join(dir, 'calibration.npz'),
    images: Array.from({ length: n }, (_, i) => ndarray('float32', [1, ...x.shape.slice(1)], x.data.subarray(i * size, (i + 1) * size))),
    labels: Array.from(y.data.subarray(0, n)),
    classes: 10,
  };
}

export function argmax(v: ArrayLike<number>, classes: number): number {
  let best = 0;
  for (let i = 1; i < classes; i++) if (v[i] > v[best]) best = i;
  return best;
}

/** Percentage of images whose argmax over the first `classes` outputs is the label. */
export function accuracy(outputs: ArrayLike<number>[], labels: number[], classes: number): number {
  return (100 * outputs.filter((o, i) => argmax(o, classes) === labels[i]).length) / labels.length;
}

/** Outputs of an ONNX model in onnxruntime-node (float input). */
export async function ortOutputs(modelPath: string, images: NDArray[]): Promise<Float32Array[]> {
  const session = await ortSession(readFileSync(modelPath));
  const out: Float32Array[] = [];
  for (const img of images) {
    const r = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', Float32Array.from(img.data), img.shape) });
    out.push(r[session.outputNames[0]].data as Float32Array);
  }
  await session.release();
  return out;
}

/** Quantizes the example into `outDir` (model.int8.onnx, its .quant.json, model.qdq.onnx). */
export function quantizeFashion(f: Fashion, outDir: string, options: Partial<QuantizeOptions> = {}): { q: Quantized; intModel: string; qdqModel: string; ms: number } {
  mkdirSync(outDir, { recursive: true });
  const intModel = join(outDir, 'model.int8.onnx');
  const qdqModel = join(outDir, 'model.qdq.onnx');
  const t0 = performance.now();
  const q = quantizeFile({ model: f.model, calibration: f.calibration, out: intModel, qdq: qdqModel, ...options });
  return { q, intModel, qdqModel, ms: performance.now() - t0 };
}

/** The integer inputs of the images: what a user feeds the firmware (scale from the .quant.json). */
export function integerInputs(q: Quantized, images: NDArray[]): NDArray[] {
  const a = q.plan.act.get(q.intGraph.inputs[0])!;
  return images.map((img) => quantizeInput(img, a));
}

/** Integer outputs of the integer model in the reference interpreter (run in batches). */
export function referenceOutputs(q: Quantized, images: NDArray[]): NDArray[] {
  const out: NDArray[] = [];
  const name = q.intGraph.outputs[0];
  runBatched(q.intGraph, integerInputs(q, images).map((x) => [x]), [name], (values, count) => {
    for (let i = 0; i < count; i++) out.push(sampleOf(values.get(name)!, i, count));
  });
  return out;
}

export interface Emulated {
  outputs: NDArray[];
  /**
   * Emulated cycles of the last inference: the same for every image on Siracusa; on a core whose clamps branch (generic)
   * the values they clip move it by a few cycles an image (CLIP_TAKEN, docs/timing.md).
   */
  cycles: number;
  /** Host milliseconds per inference (instantiate, load, run). */
  msPerImage: number;
  buildMs: number;
}

/** Generates firmware for `platform` and runs every input through the emulator. */
export async function emulatedOutputs(intModel: string, platform: string, outDir: string, inputs: NDArray[]): Promise<Emulated> {
  generateFirmware({ model: intModel, platform, out: outDir });
  const outputs: NDArray[] = [];
  let cycles = 0;
  let buildMs = 0;
  let t0 = 0;
  for (const [i, x] of inputs.entries()) {
    const r = await runFirmware(outDir, [x]);
    if (i === 0) {
      buildMs = r.build.ms;
      t0 = performance.now();
    }
    outputs.push(r.outputs[0]);
    cycles = r.cycles;
  }
  const runs = Math.max(1, inputs.length - 1);
  return { outputs, cycles, msPerImage: inputs.length > 1 ? (performance.now() - t0) / runs : 0, buildMs };
}

/** Elements of `a` that differ from `b` (exact comparison of integer outputs). */
export function mismatches(a: NDArray[], b: NDArray[]): number {
  let n = 0;
  a.forEach((x, i) => x.data.forEach((v, k) => (n += v === b[i].data[k] ? 0 : 1)));
  return n;
}
