import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { quantizeInput } from '../../generator/quantize/report.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { buildTorchModels, runTorchModel, TORCH_MODELS, type TorchModelResult } from '../../examples/tangram-torch/models.js';
import { requireTorch } from '../helpers/bss2-train.js';
import { gen } from '../helpers/cli.js';
import { workDir } from '../helpers/kernel-check.js';

/*
 * examples/tangram-torch: a CNN (conv, ReLU, max pooling, a residual Add, linear), an MLP and a two-layer LSTM built
 * and briefly trained with torch, exported to ONNX (the LSTM as ONNX LSTM nodes), quantized by firmgen. Checked: the
 * export and the LSTM unrolling against onnxruntime (float), the int8 model close to torch's logits (and, for the CNN
 * and MLP, within 1 LSB of its QDQ form in onnxruntime), the firmware on
 * tangram (its products on the engines), generic and siracusa bit-exact against the integer model in the reference
 * interpreter, and `gen run --expect` on the tangram LSTM printing Errors: 0.
 */

requireTorch('tangram-torch');

const { dir, cleanup } = workDir('tangram-torch');
const t0 = performance.now();
const models = buildTorchModels(join(dir, 'models'), ['--calibration', '128', '--test', '32']);
console.log(`  build.py: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
const results = new Map<string, TorchModelResult>();

for (const name of TORCH_MODELS) {
  test(`${name}: float export and unrolling agree with onnxruntime; int8 close to torch; emulated bit-exact on three platforms`, async () => {
    const r = await runTorchModel(models, name, join(dir, name), ['tangram', 'generic', 'siracusa'], 2);
    results.set(name, r);
    const f = r.float;
    const q = r.int8;
    console.log(`  ${name}: |ORT - torch| ${f.ortVsTorch.toExponential(1)}, |unrolled - ORT| ${f.unrolledVsOrt.toExponential(1)}; int8 SQNR ${q.sqnrDb.toFixed(1)} dB,`
      + ` max |int8 - torch| ${q.maxAbsError.toFixed(3)} of ${q.maxAbsLogit.toFixed(2)}, argmax agreement ${q.argmaxAgreement.toFixed(1)} %, ${q.nodes} int nodes; `
      + r.emulated.map((e) => `${e.platform} ${e.errors}/${e.values} (${e.cycles} cycles)`).join(', '));
    assert.ok(f.ortVsTorch < 1e-4, `ORT vs torch ${f.ortVsTorch}`);
    assert.ok(f.unrolledVsOrt < 1e-4, `unrolled vs ORT ${f.unrolledVsOrt}`);
    assert.ok(q.sqnrDb > 25, `SQNR ${q.sqnrDb}`);
    assert.ok(q.maxAbsError < 0.1 * q.maxAbsLogit, `max error ${q.maxAbsError} of ${q.maxAbsLogit}`);
    assert.ok(q.argmaxAgreement >= 90, `argmax agreement ${q.argmaxAgreement}`);
    // The integer model against onnxruntime where the quantization has a QDQ form (within 1 LSB: half up against half
    // to even, 15-bit multipliers; docs/quantization.md "Against onnxruntime").
    if (name === 'lstm') assert.is(q.qdq, undefined);
    else {
      assert.ok(q.qdq, 'a QDQ form');
      console.log(`  ${name}: QDQ in ORT vs int8 model ${q.qdq.differ} of ${q.qdq.values} differ, max ${q.qdq.maxLsb} LSB`);
      assert.ok(q.qdq.maxLsb <= 1 && q.qdq.differ <= 0.05 * q.qdq.values, JSON.stringify(q.qdq));
    }
    assert.is(r.emulated.length, 3);
    for (const e of r.emulated) {
      assert.is(e.values, 2 * 5, e.platform);
      assert.is(e.errors, 0, `${e.platform}: ${e.errors} values differ`);
    }
    const manifest = JSON.parse(readFileSync(join(dir, name, 'tangram', 'firmware.json'), 'utf8')) as { layers: { kernel: string }[] };
    const engines = manifest.layers.filter((l) => l.kernel === 'tangram-engines').length;
    assert.ok(engines >= (name === 'lstm' ? 20 : 3), `${engines} layers on the engines`);
  });
}

test('the LSTM\'s ONNX has LSTM nodes; gen run --expect on its tangram firmware: Errors: 0', () => {
  assert.is(loadOnnxFile(join(models, 'lstm.onnx')).nodes.filter((n) => n.op === 'LSTM').length, 2);
  const q = JSON.parse(readFileSync(join(dir, 'lstm', 'lstm.int8.quant.json'), 'utf8')) as { inputs: { scale: number; range: [number, number] }[] };
  const x = readNpz(join(models, 'lstm.test.npz')).get('x')!;
  const first = { dtype: x.dtype, shape: [1, ...x.shape.slice(1)], data: x.data.subarray(0, x.data.length / x.shape[0]) };
  const a = q.inputs[0];
  const ints = quantizeInput(first, { scale: a.scale, signed: a.range[0] < 0, qmax: a.range[1], bits: 8, clip: 0 });
  const intGraph = loadOnnxFile(join(dir, 'lstm', 'lstm.int8.onnx'));
  const want = runReference(intGraph, [ints]).get(intGraph.outputs[0])!;
  writeFileSync(join(dir, 'x.npz'), encodeNpz(new Map([['x', ints]])));
  writeFileSync(join(dir, 'y.npz'), encodeNpz(new Map([['y', want]])));
  const r = gen('run', join(dir, 'lstm', 'tangram'), '--inputs', join(dir, 'x.npz'), '--expect', join(dir, 'y.npz'));
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /Errors: 0 out of 5\b/);
});

test.after(cleanup);
test.run();
