import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { quantizeGraph, type Quantized } from '../../generator/quantize/index.js';
import { qoperatorFromQdq } from '../../generator/quantize/qoperator.js';
import { integerSample, runInteger } from '../../generator/quantize/report.js';
import { roundHalfEven } from '../../generator/reference/exact.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { runOrt } from '../helpers/ort-compare.js';
import { repoRoot } from '../helpers/paths.js';

/*
 * `gen quantize --qoperator`: the quantizer's QDQ model with its layers as QLinearConv / QGemm / QLinearMatMul /
 * QLinearAdd where onnxruntime-node has the kernel (the quantizer's MLP, uint8 after ReLU and int8 elsewhere, keeps
 * its QDQ form: every layer changes type). Lowered by the QOperator pass it gives the integer model `gen quantize` writes, value for value, and
 * onnxruntime-node runs it within 1 LSB of that (the fraction printed).
 */

const sample = (batch: NDArray, s: number): NDArray => {
  const n = batch.data.length / batch.shape[0];
  return ndarray('float32', [1, ...batch.shape.slice(1)], batch.data.subarray(s * n, (s + 1) * n));
};

async function check(name: string, q: Quantized, inputs: NDArray[], want: Record<string, number>): Promise<void> {
  const qop = qoperatorFromQdq(q.qdqGraph!);
  for (const [op, count] of Object.entries(want)) assert.is(qop.nodes.filter((n) => n.op === op).length, count, `${name}: ${op} (${qop.nodes.map((n) => n.op).join(', ')})`);
  const bytes = encodeModel(qop, { opset: 13 });
  const low = lowerQuantized(inferGraph(loadOnnxBytes(bytes, `${name}.qop.onnx`)));
  const out = low.outputs[0];
  let total = 0;
  let differ = 0;
  let worst = 0;
  for (const x of inputs) {
    const expected = runInteger(q.intGraph, q.plan, [x]).get(q.intGraph.outputs[0])!;
    const got = runReference(low.graph, integerSample(q.intGraph, q.plan, [x])).get(low.graph.outputs[0])!;
    assert.equal(Array.from(got.data), Array.from(expected.data), `${name}: lowered QOperator against the integer model`);
    const ort = (await runOrt(bytes, qop.inputs, [x], true))[0];
    ort.data.forEach((v, k) => {
      const d = Math.abs(roundHalfEven(v / Math.fround(out.scale)) + out.zeroPoint - expected.data[k]);
      total++;
      if (d) differ++;
      worst = Math.max(worst, d);
    });
  }
  console.log(`  ${name}: ${differ} of ${total} outputs differ from onnxruntime (${((100 * differ) / total).toFixed(2)} %), at most ${worst} LSB`);
  assert.ok(worst <= 1);
}

test('the fashion-cnn example: QLinearConv layers; lowered exactly, within 1 LSB of onnxruntime', async () => {
  const dir = join(repoRoot, 'examples', 'fashion-cnn');
  const cal = readNpz(join(dir, 'calibration.npz')).get('image')!;
  const calibration = ndarray('float32', [32, ...cal.shape.slice(1)], cal.data.subarray(0, 32 * 784));
  // onnxruntime's multiplier bits: the QOperator model lowers to the integer model exactly (qdq-from-quantizer).
  const q = quantizeGraph(loadOnnxFile(join(dir, 'model.onnx')), [calibration], 'calibration.npz', { scheme: 'per-channel', multiplierBits: 24 });
  const images = readNpz(join(dir, 'test.npz')).get('image')!;
  // conv1, conv2 and the depthwise conv (uint8 -> uint8) as QLinearConv, the max pool on integers; the average pool
  // stays QDQ (Pad + AveragePool), and so do the pointwise conv (uint8 -> int8), the residual Add (int8 + uint8 ->
  // uint8) and the classifier (uint8 -> int8): onnxruntime-node's kernels take one type throughout
  await check('fashion-cnn', q, Array.from({ length: 8 }, (_, s) => sample(images, s)), { QLinearConv: 3, Conv: 1, QLinearAdd: 0, QGemm: 0 });
});

test.run();
