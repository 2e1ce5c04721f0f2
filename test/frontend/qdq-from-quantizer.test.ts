import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { join } from 'node:path';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { integerSample, runInteger } from '../../generator/quantize/report.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { repoRoot } from '../helpers/paths.js';
import { unevenMlp, uniformInputs } from '../quantize/models.js';

/*
 * `gen quantize --qdq` writes the same quantization as standard QDQ ONNX. Lowered by the QDQ pass, that model
 * gives the integer model `gen quantize` writes, value for value: the two lowerings (quantize/lower.ts from the
 * quantizer's plan, frontend/passes/lower-quantized.ts from the QDQ file) agree on every multiplier and bias, with the
 * quantizer's multipliers at onnxruntime's 24 bits (--multiplier-bits 24; its default 15 is the board's fast path,
 * within 1 LSB of these: test/quantize).
 */

const sample = (batch: NDArray, s: number): NDArray => {
  const n = batch.data.length / batch.shape[0];
  return ndarray('float32', [1, ...batch.shape.slice(1)], batch.data.subarray(s * n, (s + 1) * n));
};

for (const scheme of ['per-channel', 'per-tensor', 'pow2'] as const) {
  test(`gen quantize's QDQ model (${scheme}) lowers to its integer model's outputs exactly`, () => {
    const g = loadOnnxBytes(unevenMlp().bytes(), 'mlp.onnx');
    const q = quantizeGraph(g, [uniformInputs(16, [16])], 'cal.npz', { scheme, multiplierBits: 24 });
    const qdq = loadOnnxBytes(encodeModel(q.qdqGraph!, { opset: 13 }), 'mlp.qdq.onnx');
    const low = lowerQuantized(inferGraph(qdq));
    assert.is(low.inputs[0].scale, q.plan.act.get('x')!.scale);
    assert.is(low.inputs[0].zeroPoint, 0);
    const fresh = uniformInputs(8, [16], 5);
    let values = 0;
    for (let s = 0; s < fresh.shape[0]; s++) {
      const x = sample(fresh, s);
      const want = runInteger(q.intGraph, q.plan, [x]).get(q.intGraph.outputs[0])!;
      const got = runReference(low.graph, integerSample(q.intGraph, q.plan, [x])).get(low.graph.outputs[0])!;
      assert.equal(Array.from(got.data), Array.from(want.data), `sample ${s}`);
      values += got.data.length;
    }
    assert.ok(values > 0);
  });
}

test("the fashion-cnn example (Pad + AveragePool, depthwise, residual Add, Gemm): gen quantize's QDQ lowers to its integer model exactly", () => {
  const dir = join(repoRoot, 'examples', 'fashion-cnn');
  const g = loadOnnxFile(join(dir, 'model.onnx'));
  const cal = readNpz(join(dir, 'calibration.npz')).get('image')!;
  const calibration = ndarray('float32', [32, ...cal.shape.slice(1)], cal.data.subarray(0, 32 * 784));
  const q = quantizeGraph(g, [calibration], 'calibration.npz', { scheme: 'per-channel', multiplierBits: 24 });
  const low = lowerQuantized(inferGraph(loadOnnxBytes(encodeModel(q.qdqGraph!, { opset: 13 }), 'cnn.qdq.onnx')));
  const images = readNpz(join(dir, 'test.npz')).get('image')!;
  for (let s = 0; s < 8; s++) {
    const x = sample(images, s);
    const want = runInteger(q.intGraph, q.plan, [x]).get(q.intGraph.outputs[0])!;
    const got = runReference(low.graph, integerSample(q.intGraph, q.plan, [x])).get(low.graph.outputs[0])!;
    assert.equal(Array.from(got.data), Array.from(want.data), `image ${s}`);
  }
});

test.run();
