import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { quantizeFile } from '../../generator/quantize/files.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { integerSample, runInteger } from '../../generator/quantize/report.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from '../helpers/cli.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { runOrt } from '../helpers/ort-compare.js';
import { coverageModel, uniformInputs, unevenMlp } from './models.js';

/*
 * The quantizer on small seeded float models: every covered op, the three schemes, the QDQ model against the
 * integer model in onnxruntime, equalisation and bias correction measured, determinism, errors.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-quantize-'));
const sample = (batch: NDArray, s: number): NDArray => {
  const n = batch.data.length / batch.shape[0];
  return ndarray('float32', [1, ...batch.shape.slice(1)], batch.data.subarray(s * n, (s + 1) * n));
};

/*
 * onnxruntime rounds half to even where RequantShift rounds half up (SEMANTICS.md); with power-of-two scales ties
 * are common (an Add with s_a = 2 s_y ties on every odd input) and a 1 LSB difference in one layer grows in the
 * next (an Add, an average or a MatMul reading several). So the claim is per value: within 1 LSB on all but a
 * stated fraction, measured and printed.
 */
test('coverage model: QDQ in onnxruntime agrees with the integer model within 1 LSB at every quantized tensor', async () => {
  const g = loadOnnxBytes(coverageModel().bytes(), 'coverage.onnx');
  const cal = uniformInputs(24, [3, 8, 8]);
  const fresh = uniformInputs(8, [3, 8, 8], 9);
  for (const scheme of ['per-channel', 'per-tensor', 'pow2'] as const) {
    const q = quantizeGraph(g, [cal], 'cal.npz', { scheme });
    // Ask ORT for every dequantized tensor the integer model also holds (8-bit ones: the QDQ model has those).
    const names = q.layers.map((l) => l.output).filter((t) => !q.plan.act.get(t)!.bits || q.plan.act.get(t)!.bits === 8);
    const tensors = new Map(q.qdqGraph!.tensors);
    for (const t of names) tensors.set(t, { name: t, dtype: 'float32', shape: q.intGraph.tensors.get(t)!.shape });
    const qdq = { ...q.qdqGraph!, tensors, outputs: names };
    const bytes = encodeModel(qdq, { opset: 13 });
    let differ = 0;
    let beyond = 0;
    let worst = 0;
    let total = 0;
    for (let s = 0; s < fresh.shape[0]; s++) {
      const x = sample(fresh, s);
      const ints = runInteger(q.intGraph, q.plan, [x]);
      const ort = await runOrt(bytes, ['x'], [x], true);
      names.forEach((t, i) => {
        const scale = q.plan.act.get(t)!.scale;
        const want = ints.get(t)!.data;
        ort[i].data.forEach((v, k) => {
          const d = Math.abs(Math.round(v / scale) - want[k]);
          if (d) differ++;
          if (d > 1) beyond++;
          worst = Math.max(worst, d);
          total++;
        });
      });
    }
    console.log(`  ${scheme}: of ${total} quantized values ${differ} differ (${((100 * differ) / total).toFixed(2)} %), `
      + `${beyond} by more than 1 LSB (${((100 * beyond) / total).toFixed(3)} %), at most ${worst}`);
    // Measured: per-channel 0.12 % and per-tensor 0.24 % differ, never by more than 1 LSB; pow2 8.6 % differ (ties),
    // 0.22 % by more than 1 LSB, up to 5 after a MatMul of two tensors that each carry such differences.
    const pow2 = scheme === 'pow2';
    assert.ok(differ <= (pow2 ? 0.15 : 0.01) * total, `${scheme}: too many differ`);
    assert.ok(beyond <= (pow2 ? 0.005 : 0) * total && worst <= (pow2 ? 8 : 1), `${scheme}: too many differ by more than 1 LSB`);
  }
});

test('coverage model: firmware on generic and siracusa equals the reference interpreter', async () => {
  const q = quantizeGraph(loadOnnxBytes(coverageModel().bytes(), 'coverage.onnx'), [uniformInputs(16, [3, 8, 8])], 'cal.npz');
  const model = join(work, 'coverage-fw.int8.onnx');
  writeFileSync(model, encodeModel(q.intGraph, { opset: 13 }));
  const inputs = [0, 1].map((s) => integerSample(q.intGraph, q.plan, [sample(uniformInputs(2, [3, 8, 8], 11), s)]));
  for (const platform of ['generic', 'siracusa']) {
    const out = join(work, `coverage-${platform}`);
    generateFirmware({ model, platform, out });
    for (const x of inputs) {
      const r = await runFirmware(out, x);
      const want = runReference(q.intGraph, x).get('y')!;
      assert.equal(Array.from(r.outputs[0].data), Array.from(want.data), platform);
    }
  }
});

test('pow2: every scale and requantization multiplier is a power of two (but 1/9 for a 3x3 average)', () => {
  const g = loadOnnxBytes(coverageModel().bytes(), 'coverage.onnx');
  const q = quantizeGraph(g, [uniformInputs(16, [3, 8, 8])], 'cal.npz', { scheme: 'pow2', calibrate: 'mse' });
  const isPow2 = (v: number): boolean => v > 0 && Number.isInteger(Math.log2(v));
  // All but the softmax output, whose scale is 1/255 by definition.
  for (const [t, a] of q.plan.act) assert.ok(isPow2(a.scale) || t === 'y', `scale of ${t}: ${a.scale}`);
  for (const [name, l] of q.plan.linear) for (const s of l.wScales) assert.ok(isPow2(s), `${name} weight scale ${s}`);
  // Averaging over a 3x3 window divides by 9, which no shift does: that one multiplier stays a multiplier.
  let requants = 0;
  for (const n of q.intGraph.nodes) {
    if (n.op !== 'RequantShift' || n.name.startsWith('AveragePool')) continue;
    for (const m of q.intGraph.tensors.get(n.inputs[1])!.data!.data) assert.ok(isPow2(m), `${n.name}: mul ${m}`);
    requants++;
  }
  assert.ok(requants >= 6);
});

test('equalisation: float function unchanged, per-tensor SQNR raised on channels 256x apart', () => {
  const g = loadOnnxBytes(unevenMlp().bytes(), 'uneven.onnx');
  const cal = uniformInputs(64, [16]);
  const plain = quantizeGraph(g, [cal], 'cal.npz', { scheme: 'per-tensor', equalize: false, biasCorrection: false });
  const eq = quantizeGraph(g, [cal], 'cal.npz', { scheme: 'per-tensor', equalize: true, biasCorrection: false });
  assert.equal(eq.equalized, [{ first: 'Gemm_0', second: 'Gemm_2' }]);
  const db = (q: typeof plain): number => q.layers.find((l) => l.output === 'y')!.sqnrDb!;
  console.log(`  per-tensor output SQNR: ${db(plain).toFixed(1)} dB plain, ${db(eq).toFixed(1)} dB equalised`);
  assert.ok(db(eq) > db(plain) + 6, 'at least one bit better');
  const perChannel = quantizeGraph(g, [cal], 'cal.npz', { scheme: 'per-channel', biasCorrection: false });
  console.log(`  per-channel output SQNR: ${db(perChannel).toFixed(1)} dB`);
});

test('bias correction: measured, kept only when the output SQNR rises', () => {
  const g = loadOnnxBytes(coverageModel(4).bytes(), 'coverage.onnx');
  for (const scheme of ['per-tensor', 'pow2'] as const) {
    const q = quantizeGraph(g, [uniformInputs(16, [3, 8, 8], 5)], 'cal.npz', { scheme });
    const bc = q.biasCorrection!;
    console.log(`  ${scheme}: output SQNR ${bc.before?.toFixed(2)} -> ${bc.after?.toFixed(2)} dB, ${bc.kept ? 'kept' : 'reverted'}`);
    assert.is(bc.kept, bc.after! > bc.before!);
  }
});

test('the same model quantized twice gives byte-identical files', () => {
  const model = join(work, 'coverage.onnx');
  const cal = join(work, 'cal.npz');
  writeFileSync(model, coverageModel().bytes());
  writeFileSync(cal, encodeNpz(new Map([['x', uniformInputs(16, [3, 8, 8])]])));
  const files = (tag: string): Buffer[] => {
    const out = join(work, `${tag}.int8.onnx`);
    quantizeFile({ model, calibration: cal, out, qdq: join(work, `${tag}.qdq.onnx`), scheme: 'per-tensor', calibrate: 'mse' });
    return [out, join(work, `${tag}.int8.quant.json`), join(work, `${tag}.qdq.onnx`)].map((f) => readFileSync(f));
  };
  const a = files('a');
  const b = files('b');
  a.forEach((bytes, i) => assert.ok(bytes.equals(b[i]), `file ${i} differs`));
  // And the integer model is the generator's dialect: it loads and runs in the reference.
  const g = loadOnnxBytes(a[0], 'a.int8.onnx');
  assert.ok(runReference(g, [ndarray('int8', [1, 3, 8, 8], new Array(192).fill(5))]).get('y'));
});

test('an op without an integer form is a clear error naming the node', () => {
  const b = new OnnxBuilder('sin').input('x', 'float32', [1, 4]).node('Sin', ['x'], ['y']).output('y', 'float32', [1, 4]);
  try {
    quantizeGraph(loadOnnxBytes(b.bytes(), 'sin.onnx'), [uniformInputs(2, [4])], 'cal.npz');
    assert.unreachable();
  } catch (e) {
    assert.instance(e, GenError);
    assert.match((e as Error).message, /node 'Sin_0' \(Sin\): the quantizer has no integer form for Sin/);
  }
});

test('CLI: gen quantize writes the model, the sidecar and the QDQ model; bad flags are one clear line', () => {
  const model = join(work, 'uneven.onnx');
  const cal = join(work, 'uneven.npz');
  writeFileSync(model, unevenMlp().bytes());
  writeFileSync(cal, encodeNpz(new Map([['x', uniformInputs(32, [16])]])));
  const out = join(work, 'uneven.int8.onnx');
  const r = gen('quantize', model, '--calibration', cal, '-o', out, '--qdq', join(work, 'uneven.qdq.onnx'), '--scheme', 'per-tensor');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /SQNR dB/);
  assert.match(r.stdout, /input 'x': quantize as q = clamp\(round_half_even\(x \/ [0-9.e-]+\), -128, 127\)/);
  const meta = JSON.parse(readFileSync(join(work, 'uneven.int8.quant.json'), 'utf8'));
  assert.is(meta.inputs[0].name, 'x');
  assert.is(meta.layers.length, 3);
  const bad = gen('quantize', model, '--calibration', cal, '-o', out, '--scheme', 'per-row');
  assert.is(bad.code, 2);
  assert.is(bad.stderr.trim().split('\n').length, 1);
  assert.match(bad.stderr, /--scheme per-row: expected one of per-tensor, per-channel, pow2/);
  const bits = gen('quantize', model, '--calibration', cal, '-o', out, '--multiplier-bits', '16');
  assert.is(bits.code, 2);
  assert.is(bits.stderr.trim().split('\n').length, 1);
  assert.match(bits.stderr, /--multiplier-bits 16: expected 15 or 24/);
});

test('the integer model keeps 15-bit accumulator multipliers by default, 24-bit ones on request', () => {
  const g = loadOnnxBytes(unevenMlp().bytes(), 'mlp.onnx');
  const largest = (bits: 15 | 24 | undefined): number => {
    const q = quantizeGraph(g, [uniformInputs(16, [16])], 'cal.npz', { scheme: 'per-channel', ...(bits ? { multiplierBits: bits } : {}) });
    let top = 0;
    for (const n of q.intGraph.nodes.filter((x) => x.op === 'RequantShift')) {
      const mul = q.intGraph.tensors.get(n.inputs[1])!.data!.data;
      for (const v of mul) top = Math.max(top, Math.abs(Number(v)));
    }
    return top;
  };
  assert.ok(largest(undefined) < 2 ** 15, 'default: below 2^15');
  assert.is(largest(undefined), largest(15));
  assert.ok(largest(24) >= 2 ** 15 && largest(24) < 2 ** 25, 'onnxruntime precision: above 2^15, below 2^25');
});

test('CLI: gen firmware --calibration quantizes first and keeps the integer model beside the firmware', () => {
  const model = join(work, 'uneven.onnx');
  const out = join(work, 'fw');
  const r = gen('firmware', '--platform', 'generic', model, '--calibration', join(work, 'uneven.npz'), '-o', out);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /SQNR dB/);
  assert.match(r.stdout, /generic: .* kernels/);
  const meta = JSON.parse(readFileSync(join(out, 'model.int8.quant.json'), 'utf8'));
  assert.is(meta.inputs[0].dtype, 'int8');
  assert.ok(readFileSync(join(out, 'model.int8.onnx')).length > 0);
  // The firmware names the integer model it keeps, not the private folder it was generated from.
  assert.is(JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')).source, join(out, 'model.int8.onnx'));
});

test('float Softmax of the reference (calibration needs it) matches onnxruntime to float32 rounding', async () => {
  const b = new OnnxBuilder('sm').input('x', 'float32', [3, 7]).node('Softmax', ['x'], ['y'], { axis: -1 }).output('y', 'float32', [3, 7]);
  const x = ndarray('float32', [3, 7], uniformInputs(1, [21]).data.map((v) => v * 8));
  const ref = runReference(loadOnnxBytes(b.bytes(), 'sm.onnx'), [x]).get('y')!;
  const [ort] = await runOrt(b.bytes(), ['x'], [x], false);
  ref.data.forEach((v, i) => assert.ok(Math.abs(v - ort.data[i]) <= 4e-7 * Math.max(v, 1e-3), `${i}: ${v} vs ${ort.data[i]}`));
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
