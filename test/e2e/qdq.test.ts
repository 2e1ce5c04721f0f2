import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { roundHalfEven } from '../../generator/reference/exact.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { runOrt } from '../helpers/ort-compare.js';
import { repoRoot } from '../helpers/paths.js';
import { checkQuantizedModel, quantizedInputs, type OrtDiff } from '../helpers/qdq-check.js';
import { integerOpsNet, moreSamples, qdqConvNet, qdqLargeConvNet, qdqMatMulNet, qopNet, type QModel, variantLabel, VARIANTS } from '../helpers/qdq-models.js';
import { Rng } from '../helpers/random.js';

/*
 * Standard quantized ONNX (QDQ and QOperator) networks through `gen firmware`: the firmware equals the reference
 * interpreter of the lowered integer graph exactly (emulated on generic, tiled siracusa and spinnaker2 (QOperator
 * nets: symmetric variants), host C on some). Against onnxruntime on the original model (with and without ORT's graph
 * optimisations, which turn QDQ into QLinear kernels): within 1 LSB, on a fraction printed and bounded. The lowering
 * holds onnxruntime's float32 multipliers with up to 24 bits (quantized/emit.ts); measured: 0 of 265760 values differ.
 * With 15-bit multipliers 260 differed (0.098 %), 6 by 2 LSB: a QLinearAdd 1 LSB off, grown by the QLinearMul after it.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-qdq-'));
/** Samples per model for the comparison with onnxruntime (besides the one the firmware runs). */
const SAMPLES = 15;
const all: OrtDiff = { total: 0, differ: 0, beyond: 0, maxDiff: 0 };

const label = variantLabel;

async function check(name: string, m: QModel, platforms: string[], hostC = false): Promise<void> {
  const samples = moreSamples(m, new Rng(name.length * 31 + 5), SAMPLES);
  const d = await checkQuantizedModel(join(work, name.replace(/\W+/g, '_')), m, platforms, { hostC, samples });
  console.log(`  ${name}: ${d.differ} of ${d.total} outputs differ from onnxruntime (${((100 * d.differ) / d.total).toFixed(2)} %), `
    + `${d.beyond} by more than 1 LSB, at most ${d.maxDiff} LSB`);
  assert.ok(d.maxDiff <= 1, `${name}: ${d.maxDiff} LSB from onnxruntime`);
  all.total += d.total;
  all.differ += d.differ;
  all.beyond += d.beyond;
  all.maxDiff = Math.max(all.maxDiff, d.maxDiff);
}

VARIANTS.forEach((v, i) => {
  test(`QDQ conv net (${label(v)}): generic, siracusa, spinnaker2`, async () => {
    await check(`qdq conv ${i}`, qdqConvNet(new Rng(101 + i), v), ['generic', 'siracusa', 'spinnaker2'], i === 0);
  });
  // spinnaker2 on the symmetric variants only: with zero points, the generic elementwise fusion joins QLinearAdd and
  // QLinearMul into one expression of 9-10 operands, more than spinnaker2's elementwise layer takes (8).
  test(`QOperator net (${label(v)}): generic, siracusa${v.zeroPoints ? '' : ', spinnaker2'}`, async () => {
    await check(`qop ${i}`, qopNet(new Rng(201 + i), v, i === 0), ['generic', 'siracusa', ...(v.zeroPoints ? [] : ['spinnaker2'])], i === 1);
  });
  test(`QDQ matmul net (${label(v)}): generic, spinnaker2`, async () => {
    await check(`qdq matmul ${i}`, qdqMatMulNet(new Rng(301 + i), v), ['generic', 'spinnaker2']);
  });
});

test('QDQ and QOperator nets on siracusa with N-EUREKA (--engines npu, cluster+npu)', async () => {
  await check('qdq conv npu', qdqConvNet(new Rng(111), VARIANTS[0]), ['siracusa:engines=npu', 'siracusa:engines=cluster+npu']);
  await check('qop npu', qopNet(new Rng(211), VARIANTS[1]), ['siracusa:engines=npu']);
});

test('a larger QDQ conv net (zero-point padding, depthwise): siracusa tiled in 12000 bytes of L1, on the NPU, spinnaker2', async () => {
  await check('qdq large conv', qdqLargeConvNet(new Rng(501), VARIANTS[0]),
    ['siracusa:l1=12000', 'siracusa:l1=12000,engines=npu', 'spinnaker2', 'generic']);
});

test('MatMulInteger, ConvInteger (uint8 with a zero point, padded): generic, siracusa, spinnaker2', async () => {
  await check('integer ops', integerOpsNet(new Rng(401)), ['generic', 'siracusa', 'spinnaker2']);
});

test('over all networks: under 0.05 % differ from onnxruntime, never by more than 1 LSB', () => {
  console.log(`  all: ${all.differ} of ${all.total} differ (${((100 * all.differ) / all.total).toFixed(3)} %), `
    + `${all.beyond} by more than 1 LSB (${((100 * all.beyond) / all.total).toFixed(4)} %), at most ${all.maxDiff} LSB`);
  assert.ok(all.total > 50000);
  assert.ok(all.maxDiff <= 1);
  assert.ok(all.differ <= 0.0005 * all.total);
  assert.is(all.beyond, 0);
});

/*
 * A trained network: the fashion-cnn example, quantized by gen quantize (per-channel) and written as QDQ, lowered by
 * the QDQ pass, against onnxruntime on the QDQ model over 100 test images. Through its seven quantized layers the
 * 1 LSB differences accumulated with 15-bit multipliers (4.35 % of the logits on 200 images, 1.80 % per-tensor); with
 * onnxruntime's float32 multipliers held to 24 bits, 0 of 1000 logits differ on 100 images, and the class is the same.
 */
test('a trained CNN (fashion-cnn as QDQ) against onnxruntime: logits within 1 LSB, same classes', async () => {
  const dir = join(repoRoot, 'examples', 'fashion-cnn');
  const cal = readNpz(join(dir, 'calibration.npz')).get('image')!;
  const q = quantizeGraph(loadOnnxFile(join(dir, 'model.onnx')), [cal], 'calibration.npz', { scheme: 'per-channel' });
  const bytes = encodeModel(q.qdqGraph!, { opset: 13 });
  const low = lowerQuantized(inferGraph(loadOnnxBytes(bytes, 'fashion-cnn.qdq.onnx')));
  const images = readNpz(join(dir, 'test.npz')).get('image')!;
  const argmax = (a: ArrayLike<number>): number => Array.from(a).indexOf(Math.max(...Array.from(a)));
  const out = low.outputs[0];
  let total = 0;
  let differ = 0;
  let worst = 0;
  let same = 0;
  for (let s = 0; s < 100; s++) {
    const x = ndarray('float32', [1, 1, 28, 28], images.data.subarray(s * 784, (s + 1) * 784));
    const ours = runReference(low.graph, quantizedInputs(low, [x])).get(low.graph.outputs[0])!;
    const ort = (await runOrt(bytes, ['image'], [x], true))[0];
    const oq = Array.from(ort.data, (v) => roundHalfEven(v / Math.fround(out.scale)) + out.zeroPoint);
    oq.forEach((v, k) => {
      const d = Math.abs(v - ours.data[k]);
      total++;
      if (d) differ++;
      worst = Math.max(worst, d);
    });
    if (argmax(oq) === argmax(ours.data)) same++;
  }
  console.log(`  fashion-cnn: ${differ} of ${total} logits differ from onnxruntime (${((100 * differ) / total).toFixed(2)} %), at most ${worst} LSB; same class on ${same} of 100 images`);
  assert.ok(worst <= 1);
  assert.ok(differ <= 0.01 * total);
  assert.ok(same >= 99);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
