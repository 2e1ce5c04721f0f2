import * as ort from 'onnxruntime-node';
import { ortSession } from './ort-session.js';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, relative } from 'node:path';
import { GenError } from '../generator/errors.js';
import { lowerQuantized, type LoweredQuantized } from '../generator/frontend/passes/lower-quantized.js';
import type { Graph } from '../generator/ir/graph.js';
import { inferGraph } from '../generator/ir/infer.js';
import { ndarray, type NDArray } from '../generator/ir/ndarray.js';
import { loadOnnxFile } from '../generator/onnx/load.js';
import { readNpz } from '../generator/onnx/npy.js';
import { generateFirmware } from '../generator/pipeline.js';
import { quantizeFile } from '../generator/quantize/files.js';
import { quantizeInput } from '../generator/quantize/report.js';
import { roundHalfEven } from '../generator/reference/exact.js';
import { runReference } from '../generator/reference/interpreter.js';
import { quantizeValue } from '../generator/reference/ops/quantize.js';
import { runHostC } from '../runtime/node/host-c.js';
import type { Profile } from '../runtime/node/profile.js';
import { formatProfile } from '../runtime/node/profile-table.js';
import { REPO_ROOT } from '../runtime/node/paths.js';
import { runFirmware } from '../runtime/node/run.js';

/*
 * The Gemmini examples (examples/gemmini-resnet, examples/gemmini-bert): a float model made by the example's
 * make.py, quantized four ways, each run on `--platform gemmini`:
 *   - firmgen's integer dialect (`gen quantize -o model.int8.onnx`),
 *   - firmgen's QDQ (`gen quantize --qdq model.qdq.onnx`) and QOperator (`--qoperator model.qop.onnx`), lowered by
 *     the shared pass,
 *   - the QDQ form onnxruntime's static quantizer writes (make.py, onnx_qdq.py), lowered by the same pass.
 * For each: the firmware emulated (and host C) against the reference interpreter of the integer graph (exact), and the
 * reference against onnxruntime-node on the QDQ model (with and without its graph optimisations), on the output grid:
 * the fraction of values that differ and by how many LSB. Used by each example's run.ts and by test/examples.
 */

export interface OrtStats {
  total: number;
  differ: number;
  beyond: number;
  maxDiff: number;
  /** Against onnxruntime without its graph optimisations (its float path between Q and DQ): half of `total`. */
  float: { differ: number; beyond: number; maxDiff: number };
}

export interface VariantResult {
  label: string;
  /** The model file that went into gen firmware. */
  model: string;
  /** The one-line error when the model could not be quantized or lowered (the rest is then empty). */
  error?: string;
  samples: number;
  /** Output values of the emulated firmware that differ from the reference, over all samples run. */
  emulatedErrors: number;
  hostErrors: number | undefined;
  outputs: number;
  /** Against onnxruntime-node (QDQ models only). */
  ort?: OrtStats;
  cycles: number;
  arrayLayers: number;
  profile?: Profile;
}

export interface ExampleOptions {
  dir: string;
  out: string;
  /** Test samples run through the emulator (all of them go through the reference and onnxruntime). */
  emulate: number;
  hostC: boolean;
}

/** One sample of a [N, ...] array as a batch-1 array. */
function sample(a: NDArray, i: number): NDArray {
  const n = a.data.length / a.shape[0];
  return ndarray(a.dtype, [1, ...a.shape.slice(1)], a.data.subarray(i * n, (i + 1) * n));
}

function samplesOf(path: string): NDArray[][] {
  const arrays = [...readNpz(path).values()];
  return Array.from({ length: arrays[0].shape[0] }, (_, i) => arrays.map((a) => sample(a, i)));
}

function lowerQdq(file: string): LoweredQuantized {
  return lowerQuantized(inferGraph(loadOnnxFile(file)));
}

function qdqInputs(low: LoweredQuantized, floats: NDArray[]): NDArray[] {
  return low.inputs.map((b, i) => {
    const r = { min: b.range[0], max: b.range[1] };
    return ndarray(b.dtype, floats[i].shape, Array.from(floats[i].data, (v) => quantizeValue(v, Math.fround(b.scale), b.zeroPoint, r)));
  });
}

async function ortRun(file: string, inputs: NDArray[], optimize: boolean): Promise<Float32Array[]> {
  const s = await ortSession(readFileSync(file), optimize);
  const feeds = Object.fromEntries(s.inputNames.map((n, i) => [n, new ort.Tensor('float32', Float32Array.from(inputs[i].data), inputs[i].shape)]));
  const r = await s.run(feeds);
  const out = s.outputNames.map((n) => r[n].data as Float32Array);
  await s.release();
  return out;
}

/** onnxruntime on the QDQ file against the reference outputs, on each output's integer grid. */
async function ortStats(file: string, low: LoweredQuantized, floats: NDArray[][], refs: NDArray[][]): Promise<OrtStats> {
  const st: OrtStats = { total: 0, differ: 0, beyond: 0, maxDiff: 0, float: { differ: 0, beyond: 0, maxDiff: 0 } };
  for (const [s, x] of floats.entries()) {
    for (const optimize of [true, false]) {
      const got = await ortRun(file, x, optimize);
      got.forEach((a, i) => {
        const b = low.outputs[i];
        a.forEach((v, k) => {
          const d = Math.abs(roundHalfEven(v / Math.fround(b.scale)) + b.zeroPoint - refs[s][i].data[k]);
          st.total++;
          if (d) st.differ++;
          if (d > 1) st.beyond++;
          st.maxDiff = Math.max(st.maxDiff, d);
          if (optimize) return;
          if (d) st.float.differ++;
          if (d > 1) st.float.beyond++;
          st.float.maxDiff = Math.max(st.float.maxDiff, d);
        });
      });
    }
  }
  return st;
}

const errorLine = (e: unknown): string => (e instanceof GenError ? e.message : e instanceof Error ? e.message : String(e)).split('\n')[0];

/** Generates gemmini firmware for `model` and runs the first samples emulated (and host C on the first). */
async function onGemmini(v: VariantResult, graph: Graph, ints: NDArray[][], out: string, o: ExampleOptions): Promise<void> {
  generateFirmware({ model: v.model, platform: 'gemmini', out });
  const refs = ints.map((x) => {
    const values = runReference(graph, x);
    return graph.outputs.map((n) => values.get(n)!);
  });
  const diff = (a: NDArray[], b: NDArray[]): number => a.reduce((n, x, i) => n + x.data.reduce((m, y, k) => m + (y === b[i].data[k] ? 0 : 1), 0), 0);
  for (let s = 0; s < Math.min(o.emulate, ints.length); s++) {
    const r = await runFirmware(out, ints[s]);
    v.emulatedErrors += diff(r.outputs, refs[s]);
    v.outputs += refs[s].reduce((n, a) => n + a.data.length, 0);
    v.samples++;
    v.cycles = r.cycles;
    v.profile = r.profile;
    if (s === 0 && o.hostC) v.hostErrors = diff(runHostC(out, ints[s]), refs[s]);
  }
  v.arrayLayers = v.profile?.layers.filter((l) => l.arrayCycles > 0).length ?? 0;
}

export async function runGemminiExample(o: ExampleOptions): Promise<VariantResult[]> {
  mkdirSync(o.out, { recursive: true });
  const floats = samplesOf(join(o.dir, 'test.npz'));
  const results: VariantResult[] = [];
  const blank = (label: string, model: string): VariantResult =>
    ({ label, model, samples: 0, emulatedErrors: 0, hostErrors: undefined, outputs: 0, cycles: 0, arrayLayers: 0 });

  // firmgen's quantizer: the integer dialect and its QDQ form.
  const intModel = join(o.out, 'model.int8.onnx');
  const qdqModel = join(o.out, 'model.qdq.onnx');
  const qopModel = join(o.out, 'model.qop.onnx');
  const intResult = blank('firmgen integer dialect (gen quantize)', intModel);
  results.push(intResult);
  let qdqWritten = false;
  try {
    let q;
    try {
      q = quantizeFile({ model: join(o.dir, 'model.onnx'), calibration: join(o.dir, 'calibration.npz'), out: intModel, qdq: qdqModel, qoperator: qopModel });
      qdqWritten = true;
    } catch (e) {
      // A model with integer-only operators has no QDQ form: quantize again without it.
      if (!(e instanceof GenError) || !/no QDQ form/.test(e.message)) throw e;
      results.push({ ...blank('firmgen QDQ (gen quantize --qdq)', qdqModel), error: errorLine(e) });
      results.push({ ...blank('firmgen QOperator (gen quantize --qoperator)', qopModel), error: errorLine(e) });
      q = quantizeFile({ model: join(o.dir, 'model.onnx'), calibration: join(o.dir, 'calibration.npz'), out: intModel });
    }
    const ints = floats.map((x) => x.map((a, i) => quantizeInput(a, q.plan.act.get(q.intGraph.inputs[i])!)));
    await onGemmini(intResult, q.intGraph, ints, join(o.out, 'gemmini-int8'), o);
  } catch (e) {
    intResult.error = errorLine(e);
  }

  const qdqs: [string, string][] = [
    ...(qdqWritten ? [['firmgen QDQ (gen quantize --qdq)', qdqModel], ['firmgen QOperator (gen quantize --qoperator)', qopModel]] as [string, string][] : []),
    ['onnxruntime-format QDQ (make.py)', join(o.dir, 'model.ort-qdq.onnx')],
  ];
  for (const [k, [label, model]] of qdqs.entries()) {
    const v = blank(label, model);
    results.push(v);
    try {
      const low = lowerQdq(model);
      const ints = floats.map((x) => qdqInputs(low, x));
      const refs = ints.map((x) => {
        const values = runReference(low.graph, x);
        return low.graph.outputs.map((n) => values.get(n)!);
      });
      v.ort = await ortStats(model, low, floats, refs);
      await onGemmini(v, low.graph, ints, join(o.out, `gemmini-qdq-${k}`), o);
    } catch (e) {
      v.error = errorLine(e);
    }
  }
  return results;
}

const pctOf = (n: number, d: number): string => `${((100 * n) / Math.max(1, d)).toFixed(2)} %`;

/** The summary lines of one variant. */
export function describe(v: VariantResult): string {
  if (v.error) return `${v.label}: ${v.error}`;
  const lines = [`${v.label}: ${relative(REPO_ROOT, v.model)}`,
    `  gemmini emulated: ${v.emulatedErrors} of ${v.outputs} output values differ from the reference (${v.samples} samples); `
    + `host C: ${v.hostErrors === undefined ? 'not run' : `${v.hostErrors} differ`}; ${v.cycles} cycles/inference, ${v.arrayLayers} layers on the array`];
  if (v.ort) {
    lines.push(`  onnxruntime-node: ${v.ort.differ} of ${v.ort.total} values differ (${pctOf(v.ort.differ, v.ort.total)}), `
      + `${v.ort.beyond} by more than 1 LSB (${pctOf(v.ort.beyond, v.ort.total)}), at most ${v.ort.maxDiff} LSB; without its graph optimisations `
      + `${v.ort.float.differ} of ${v.ort.total / 2} (${pctOf(v.ort.float.differ, v.ort.total / 2)}), ${v.ort.float.beyond} by more than 1 LSB, `
      + `at most ${v.ort.float.maxDiff} LSB`);
  }
  return lines.join('\n');
}

/**
 * An example's run.ts: options --emulate N (test samples through the emulator; default 2), --profile (the per-layer
 * table of each variant, as gen run prints it), --out DIR (default out/<example>).
 */
export async function exampleMain(name: string): Promise<void> {
  const { values } = parseArgs({ options: { emulate: { type: 'string', default: '2' }, profile: { type: 'boolean', default: false }, out: { type: 'string' } } });
  const results = await runGemminiExample({
    dir: join(REPO_ROOT, 'examples', name), out: values.out ?? join(REPO_ROOT, 'out', name), emulate: Number(values.emulate), hostC: true,
  });
  for (const v of results) {
    console.log(describe(v));
    if (values.profile && v.profile) console.log(formatProfile(v.profile));
  }
}
