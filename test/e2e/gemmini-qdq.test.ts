import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { repoRoot } from '../helpers/paths.js';
import { checkQuantizedModel, quantizedInputs, type OrtDiff } from '../helpers/qdq-check.js';
import { integerOpsNet, moreSamples, qdqConvNet, qdqLargeConvNet, qdqMatMulNet, qopNet, type QModel, variantLabel, VARIANTS } from '../helpers/qdq-models.js';
import { Rng } from '../helpers/random.js';

/*
 * Standard quantized ONNX (QDQ and QOperator, uint8 and int8 activations) on Gemmini end to end: the emulated
 * firmware equals the reference interpreter of the lowered integer graph exactly (host C too on some), with the
 * convolutions and matrix products on the array (uint8 activations offset by 128, platforms/gemmini/lower-array.ts):
 * each check names the array kernels the firmware must contain. Against onnxruntime-node on the original model the
 * bound is that of qdq.test.ts (the lowering is the platforms' shared one): at most 1 LSB, the fraction of off-by-one
 * values printed and bounded (measured: 0 of 90,444 differ; with 15-bit multipliers 100 differed, at most by 2 LSB).
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-gemmini-qdq-'));
const SAMPLES = 5;

const label = variantLabel;

/** `want`: how many layers of each array kernel the firmware must have. */
async function check(name: string, m: QModel, want: Record<string, number>, hostC = false): Promise<OrtDiff> {
  const samples = moreSamples(m, new Rng(name.length * 17 + 3), SAMPLES);
  const d = await checkQuantizedModel(join(work, name.replace(/\W+/g, '_')), m, ['gemmini'], {
    hostC, samples,
    layers: (target, kernels, types) => {
      // A product whose int32 sums fit int16 stays on the host core (int16 results have no mvout form,
      // platforms/gemmini/matmul-kernel.ts): it counts as one of the products the array must run otherwise.
      const host16 = kernels.filter((x, i) => x === 'gemm' && types[i] === 'int16').length;
      for (const [k, count] of Object.entries(want)) {
        const got = kernels.filter((x) => x === k).length + (k === 'gemmini-matmul' ? host16 : 0);
        assert.is(got, count, `${name} on ${target}: ${k} layers (kernels: ${kernels.join(', ')})`);
      }
    },
  });
  console.log(`  ${name}: ${d.differ} of ${d.total} outputs differ from onnxruntime by 1 LSB or more (${((100 * d.differ) / d.total).toFixed(2)} %), at most ${d.maxDiff} LSB`);
  assert.ok(d.maxDiff <= 1, `${name}: ${d.maxDiff} LSB from onnxruntime`);
  assert.ok(d.differ <= 0.005 * d.total, `${name}: ${d.differ} of ${d.total} off by one`);
  return d;
}

VARIANTS.forEach((v, i) => {
  test(`QDQ conv net (${label(v)}): two convs and the Gemm on the array`, async () => {
    // the second conv is 1x1: a loop_ws product (lower-array.ts)
    await check(`qdq conv ${i}`, qdqConvNet(new Rng(101 + i), v), { 'gemmini-conv': 1, 'gemmini-matmul': 2 }, i === 0);
  });
  test(`QOperator net (${label(v)}): QLinearConv x2, QGemm, QLinearMatMul on the array`, async () => {
    await check(`qop ${i}`, qopNet(new Rng(201 + i), v, i === 0), { 'gemmini-conv': 1, 'gemmini-matmul': 3 }, i === 1);
  });
  test(`QDQ matmul net (${label(v)}): both products on the array`, async () => {
    await check(`qdq matmul ${i}`, qdqMatMulNet(new Rng(301 + i), v), { 'gemmini-matmul': 2 });
  });
});

test('a larger QDQ conv net (zero-point padding, a depthwise conv): both convs on the array', async () => {
  await check('qdq large conv', qdqLargeConvNet(new Rng(501), VARIANTS[0]), { 'gemmini-conv': 2, conv2d: 0 });
});

test('ConvInteger and MatMulInteger (uint8 with a zero point, padded); the product of two uint8 activations on the host', async () => {
  await check('integer ops', integerOpsNet(new Rng(401)), { 'gemmini-conv': 1, 'gemmini-matmul': 1 });
});

/*
 * A trained network: the fashion-cnn example (conv, max-pool, conv, average pool, depthwise and pointwise convs, a
 * residual Add, Gemm), quantized by gen quantize (per-channel) and written as QDQ, on Gemmini: 20 test images, each
 * emulated exactly equal to the reference interpreter of the lowered graph, the convs (the average pool where the cost
 * rule puts it) and the Gemm on the array.
 */
test('a trained CNN (fashion-cnn as QDQ): 20 images exact, its convs (the average pool where the cost rule says) and Gemm on the array', async () => {
  const dir = join(repoRoot, 'examples', 'fashion-cnn');
  const cal = readNpz(join(dir, 'calibration.npz')).get('image')!;
  const q = quantizeGraph(loadOnnxFile(join(dir, 'model.onnx')), [cal], 'calibration.npz', { scheme: 'per-channel' });
  const bytes = encodeModel(q.qdqGraph!, { opset: 13 });
  const model = join(work, 'fashion-cnn.qdq.onnx');
  writeFileSync(model, bytes);
  const low = lowerQuantized(inferGraph(loadOnnxBytes(bytes, 'fashion-cnn.qdq.onnx')));
  const out = join(work, 'fashion-cnn');
  const g = generateFirmware({ model, platform: 'gemmini', out });
  const kernels = g.layers.map((l) => (l.kernel === 'alias' ? 'alias' : l.kernel.name));
  // conv 1->8, conv 8->16 and the depthwise 3x3 by loop_conv_ws; the pointwise 1x1 conv and the Gemm by loop_ws; the
  // average pool (a depthwise 2x2/2 conv of ones) where the cost rule puts it (dw-cost.ts): the array or the host core
  const convs = kernels.filter((k) => k === 'gemmini-conv').length;
  assert.ok(convs >= 3, kernels.join(', '));
  assert.is(convs + kernels.filter((k) => k === 'conv2d').length, 4, kernels.join(', '));
  assert.is(kernels.filter((k) => k === 'gemmini-matmul').length, 2, kernels.join(', '));
  // NHWC throughout (keep-nhwc.ts): through the residual Add and the Flatten into the Gemm, only the input's Transpose
  const ops = g.lowered.nodes.map((n) => n.op);
  assert.is(ops.filter((o) => o === 'Transpose').length, 1, ops.join(', '));
  const images = readNpz(join(dir, 'test.npz')).get('image')!;
  for (let i = 0; i < 20; i++) {
    const ints = quantizedInputs(low, [ndarray('float32', [1, 1, 28, 28], images.data.subarray(i * 784, (i + 1) * 784))]);
    const want = runReference(low.graph, ints);
    const r = await runFirmware(out, ints);
    const c = compareOutputs(g.manifest.outputs, r.outputs, low.graph.outputs.map((o) => want.get(o)!));
    assert.is(c.errors, 0, `image ${i}: ${c.details.join('; ')}`);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
