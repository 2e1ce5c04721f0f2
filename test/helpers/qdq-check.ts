import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { lowerQuantized, type LoweredQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { roundHalfEven } from '../../generator/reference/exact.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { quantizeValue } from '../../generator/reference/ops/quantize.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import type { QModel } from './qdq-models.js';
import { runOrt } from './ort-compare.js';

/*
 * The two claims of SEMANTICS.md section 2 for one quantized model:
 *   - the firmware (emulated on each platform, host C when asked) equals the reference interpreter of the lowered
 *     integer graph exactly;
 *   - the lowered graph against onnxruntime on the original model: at most 1 LSB apart, on a fraction returned
 *     for the caller to print and bound.
 */

export interface OrtDiff {
  total: number;
  differ: number;
  /** Values more than 1 LSB apart (a difference carried through later layers and grown by them). */
  beyond: number;
  maxDiff: number;
  /** Of `differ`, those against onnxruntime without its graph optimisations (its float path between Q and DQ). */
  differUnoptimized?: number;
}

/** The firmware's integer inputs for float samples: QuantizeLinear with each input's scale and zero point. */
export function quantizedInputs(low: LoweredQuantized, floats: NDArray[]): NDArray[] {
  return low.inputs.map((b, i) => {
    const x = floats[i];
    if (x.dtype !== 'float32') return x;
    const r = { min: b.range[0], max: b.range[1] };
    return ndarray(b.dtype, x.shape, Array.from(x.data, (v) => quantizeValue(v, Math.fround(b.scale), b.zeroPoint, r)));
  });
}

/** ORT's outputs on the original model, as integers on each output's grid. */
async function ortIntegers(bytes: Uint8Array, names: string[], low: LoweredQuantized, floats: NDArray[], optimize: boolean): Promise<NDArray[]> {
  const got = await runOrt(bytes, names, floats, optimize);
  return got.map((a, i) => {
    const b = low.outputs[i];
    if (a.dtype !== 'float32') return a;
    return ndarray('int32', a.shape, Array.from(a.data, (v) => roundHalfEven(v / Math.fround(b.scale)) + b.zeroPoint));
  });
}

/**
 * The firmware runs the model's own inputs; onnxruntime and the reference also run `samples` (more inputs like
 * them) for the difference statistics. `layers` sees each target's kernels, layer by layer (which engine ran what),
 * and each layer's output type.
 */
export async function checkQuantizedModel(dir: string, m: QModel, platforms: string[],
  opts: { hostC?: boolean; samples?: NDArray[][]; layers?: (target: string, kernels: string[], outputTypes: string[]) => void } = {}): Promise<OrtDiff> {
  mkdirSync(dir, { recursive: true });
  const bytes = m.builder.bytes();
  const model = join(dir, 'model.onnx');
  writeFileSync(model, bytes);
  const g = loadOnnxBytes(bytes, 'model.onnx');
  const low = lowerQuantized(inferGraph(g));
  const ints = quantizedInputs(low, m.inputs);
  const ref = runReference(low.graph, ints);
  const expected = low.graph.outputs.map((o) => ref.get(o)!);

  const diff: OrtDiff = { total: 0, differ: 0, beyond: 0, maxDiff: 0, differUnoptimized: 0 };
  for (const sample of [m.inputs, ...(opts.samples ?? [])]) {
    const values = runReference(low.graph, quantizedInputs(low, sample));
    const want = low.graph.outputs.map((o) => values.get(o)!);
    // With ORT's graph optimisations (QDQ groups become QLinear kernels) and without (float ops between Q and DQ).
    for (const optimize of [true, false]) {
      const ort = await ortIntegers(bytes, g.inputs, low, sample, optimize);
      ort.forEach((a, i) => {
        assert.equal(a.shape, want[i].shape, `output ${i}: shape`);
        for (let k = 0; k < a.data.length; k++) {
          const d = Math.abs(a.data[k] - want[i].data[k]);
          diff.total++;
          if (d) diff.differ++;
          if (d && !optimize) diff.differUnoptimized = (diff.differUnoptimized ?? 0) + 1;
          if (d > 1) diff.beyond++;
          diff.maxDiff = Math.max(diff.maxDiff, d);
        }
      });
    }
  }

  // 'siracusa:engines=npu,l1=12000': a platform with options (numbers where they are numbers).
  for (const [k, target] of platforms.entries()) {
    const [platform, optText] = target.split(':');
    const options = Object.fromEntries((optText ? optText.split(',') : []).map((kv) => {
      const [key, value] = kv.split('=');
      return [key, /^\d+$/.test(value) ? Number(value) : value];
    }));
    const out = join(dir, `${platform}-${k}`);
    const { manifest, lowered, layers } = generateFirmware({ model, platform, out, ...options });
    opts.layers?.(target, layers.map((l) => (l.kernel === 'alias' ? 'alias' : l.kernel.name)), layers.map((l) => lowered.tensors.get(l.node.outputs[0])?.dtype ?? ''));
    if (options.engines === 'npu') assert.ok(lowered.nodes.some((n) => n.op === 'NeurekaConv'), `${target}: no layer on the NPU`);
    const r = await runFirmware(out, ints);
    assert.is(r.outputs.length, expected.length, `${target}: outputs`);
    const c = compareOutputs(manifest.outputs, r.outputs, expected);
    assert.is(c.errors, 0, `${target} emulated: ${c.details.join('; ')}`);
    if (opts.hostC) {
      const host = runHostC(out, ints);
      assert.is(host.length, expected.length, `${target} host C: outputs`);
      const h = compareOutputs(manifest.outputs, host, expected);
      assert.is(h.errors, 0, `${target} host C: ${h.details.join('; ')}`);
    }
  }
  return diff;
}
