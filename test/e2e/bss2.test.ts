/**
 * BrainScaleS-2 end to end: generated firmware run in the emulator equals the reference interpreter on the lowered
 * graph (its analog layers the reference model of the chip: generator/reference/ops/analog-matmul.ts) bit for bit,
 * for several chip seeds, with temporal noise off and on (seeded); layers larger than an array and than the chip;
 * `--analog off` gives the int8 model exactly; signed inputs stay on the core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { analogForward } from '../../generator/platforms/brainscales2/forward.js';
import { calibrateAnalog } from '../../generator/platforms/brainscales2/calibrate.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { buildTrace } from '../../runtime/node/trace.js';
import { runFirmware } from '../../runtime/node/run.js';
import { bss2ConvNet, bss2Mlp, type Bss2Mlp } from '../helpers/bss2-model.js';
import { Rng } from '../helpers/random.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-'));
let n = 0;

async function check(sizes: number[], rows: number, options: Record<string, unknown>, seed = 5, signedInput = false) {
  const dir = join(work, `case${n++}`);
  return checkModel(dir, bss2Mlp(dir, sizes, rows, seed, signedInput), options);
}

async function checkModel(dir: string, m: Bss2Mlp, options: Record<string, unknown>) {
  const out = join(dir, 'out');
  const c = generateFirmware({ model: m.model, platform: 'brainscales2', out, ...options });
  const ref = runReference(referenceGraph(c.platform, c.graph), m.inputs);
  const r = await runFirmware(out, m.inputs);
  const want = c.graph.outputs.map((o) => Array.from(ref.get(o)!.data));
  const got = r.outputs.map((o) => Array.from(o.data));
  return { c, r, want, got, m, out };
}

const analogLayers = (c: { lowered: { nodes: { op: string }[] } }): number => c.lowered.nodes.filter((x) => x.op === 'Bss2Matmul').length;

for (const chipSeed of [1, 2, 3]) {
  test(`chip seed ${chipSeed}, temporal noise off: emulated firmware = reference of the analog model`, async () => {
    const { c, want, got } = await check([300, 600, 10], 3, { chipSeed, noiseStd: 0 });
    assert.is(analogLayers(c), 2);
    assert.equal(got, want);
    // the outputs vary (the mapping uses the 8-bit range): not all equal
    assert.ok(new Set(got[0]).size > 5, `outputs ${got[0].slice(0, 12).join(' ')}`);
  });
}

test('different chip seeds give different outputs (the fixed pattern is the chip\'s)', async () => {
  const a = await check([200, 64, 10], 4, { chipSeed: 1, noiseStd: 0 });
  const b = await check([200, 64, 10], 4, { chipSeed: 2, noiseStd: 0 });
  assert.not.equal(a.got, b.got);
});

test('temporal noise on (default std 2, seeded): equal to the reference too', async () => {
  const { c, want, got } = await check([256, 300, 10], 2, {});
  assert.is(analogLayers(c), 2);
  assert.equal(got, want);
});

test('larger than the chip: 9 + 5 blocks over the two arrays; the profile counts the runs', async () => {
  const { c, r, want, got, out } = await check([300, 600, 10], 2, { noiseStd: 0, fixedPattern: 'off' });
  assert.equal(got, want);
  const notes = c.lowered.nodes.filter((x) => x.op === 'Bss2Matmul').map((x) => x.engineNote);
  assert.match(notes[0] ?? '', /analog: 3 x 3 blocks of 128 x 256 from array 0/);
  // the second layer starts where the first left off: 9 blocks, array 1
  assert.match(notes[1] ?? '', /analog: 5 x 1 blocks of 128 x 256 from array 1/);
  // the profile: 9 blocks written, each run for the 2 input vectors; then 5 blocks, 2 runs each
  const analog = r.profile.layers.filter((l) => l.kernel === 'bss2-matmul').map((l) => l.analog);
  assert.equal(analog.map((a) => [a.runs, a.writes, a.macs]), [[18, 9, 2 * 300 * 600], [10, 5, 2 * 600 * 10]]);
  // link bytes: per block two synapses per weight, per run its inputs and outputs
  assert.is(analog[0].linkBytes, 2 * 300 * 600 + 2 * (300 * 3 + 600 * 3));
  // analog time: num_sends x rows x 5 FPGA cycles + 250, 2 core cycles per FPGA cycle (chips/brainscales2.ts)
  const ns = Number(/num_sends (\d+)/.exec(notes[0] ?? '')![1]);
  assert.is(analog[0].cycles, 2 * 3 * (ns * (128 + 128 + 44) * 5 + 3 * 250) * 2);
  assert.is(r.profile.total.analog.runs, 28);
  // the trace draws every phase on the arrays' track
  const trace = buildTrace(readManifest(out), r).traceEvents.filter((e) => e.cat === 'bss2');
  assert.is(trace.filter((e) => e.name === 'analog run').length, 28);
  assert.is(trace.filter((e) => e.name === 'synapse block over the link').length, 14);
});

test('--analog off: every layer on the core, the int8 model exactly', async () => {
  const { c, got, m } = await check([300, 64, 10], 3, { analog: 'off' });
  assert.is(analogLayers(c), 0);
  const g = loadOnnxFile(m.model);
  const ref = runReference(g, m.inputs);
  assert.equal(got, g.outputs.map((o) => Array.from(ref.get(o)!.data)));
});

test('a signed input stays on the core (the arrays take [0, 31]); the next layer goes to the arrays', async () => {
  const { c, want, got } = await check([100, 40, 10], 3, { noiseStd: 0 }, 9, true);
  assert.is(analogLayers(c), 1);
  const first = c.lowered.nodes.find((x) => x.op === 'Gemm');
  assert.match(first?.engineNote ?? '', /core: the input can be negative/);
  assert.equal(got, want);
});

test('the HAR topology: Conv1d (9 x 128, kernel 32, stride 6, 16 filters) unfolded onto the arrays, then 272 -> 125 -> 6', async () => {
  for (const opts of [{ noiseStd: 0 }, {}]) {
    const dir = join(work, `case${n++}`);
    const { c, want, got } = await checkModel(dir, bss2ConvNet(dir, 21), opts);
    assert.is(analogLayers(c), 3);
    assert.ok(c.lowered.nodes.some((x) => x.op === 'Im2col'));
    assert.equal(got, want);
    assert.ok(new Set(got[0]).size > 2, `outputs ${got[0].join(' ')}`);
  }
});

test('a 2-D conv (3x3, stride 2, pads 1, bias, two images) on the arrays as the graph output', async () => {
  const dir = join(work, `case${n++}`);
  const { c, want, got } = await checkModel(dir, bss2ConvNet(dir, 22, true), { noiseStd: 0, chipSeed: 9 });
  assert.is(analogLayers(c), 1);
  assert.equal(got, want);
  assert.is(got[0].length, 2 * 8 * 4 * 4);
});

test('the host C build (the C model of the analog core in firmgen_bss2.h) equals the emulated firmware', async () => {
  const dir = join(work, `case${n++}`);
  for (const [model, opts] of [[bss2ConvNet(dir, 23), {}], [bss2Mlp(join(dir, 'mlp'), [300, 600, 10], 2, 7), { chipSeed: 3 }]] as const) {
    const { out, got, want } = await checkModel(join(dir, String(n++)), model, opts);
    assert.equal(got, want);
    assert.equal(runHostC(out, model.inputs).map((o) => Array.from(o.data)), got);
  }
});

test('random shapes (seeded): layers of 1..400 inputs and 1..600 outputs, 1..4 vectors, equal to the reference', async () => {
  const rng = new Rng(2026);
  for (let i = 0; i < 5; i++) {
    const sizes = [rng.int(1, 400), rng.int(1, 600), rng.int(1, 40)];
    const { c, want, got } = await check(sizes, rng.int(1, 4), { chipSeed: rng.int(0, 2 ** 32 - 1), noiseStd: i % 2 === 0 ? 0 : 1.5 }, 100 + i);
    assert.is(analogLayers(c), 2, sizes.join('-'));
    assert.equal(got, want, sizes.join('-'));
  }
});

test('analogForward: many samples in batches; without temporal noise each equals its own reference run and firmware', async () => {
  const dir = join(work, `case${n++}`);
  const m = bss2Mlp(dir, [300, 64, 10], 1, 31);
  const rng = new Rng(5);
  const samples = Array.from({ length: 70 }, () => [ndarray('uint8', [1, 300], rng.ints(300, 0, 255))]);
  const f = analogForward(m.model, samples, { chipSeed: 4, noiseStd: 0 });
  assert.ok(f.batched);
  assert.is(f.outputs.length, 70);
  const c = compileModel({ model: m.model, platform: 'brainscales2', chipSeed: 4, noiseStd: 0 });
  const g = referenceGraph(c.platform, c.graph);
  for (const i of [0, 1, 63, 64, 69]) {
    assert.equal(Array.from(f.outputs[i][0].data), Array.from(runReference(g, samples[i]).get(g.outputs[0])!.data), `sample ${i}`);
  }
  const out = join(dir, 'out');
  generateFirmware({ model: m.model, platform: 'brainscales2', out, chipSeed: 4, noiseStd: 0 });
  const r = await runFirmware(out, samples[64]);
  assert.equal(Array.from(r.outputs[0].data), Array.from(f.outputs[64][0].data));
  // the layers' tensors for a backward pass: the 5-bit inputs, the analog sums, the outputs
  const withLayers = analogForward(m.model, samples, { chipSeed: 4, noiseStd: 0 }, { layers: true });
  assert.equal(withLayers.outputs, f.outputs);
  const layers = withLayers.layers!;
  assert.is(layers.length, 2);
  for (const i of [0, 64, 69]) {
    assert.equal(Array.from(layers[0].input[i].data), Array.from(samples[i][0].data, (x) => Math.min(31, (x + 4) >> 3)));
    assert.equal(Array.from(layers[1].output[i].data), Array.from(f.outputs[i][0].data));
    assert.equal(layers[1].analog[i].shape, [1, 10]);
    assert.ok(layers[0].analog[i].data.every((v) => v >= -128 && v <= 127));
  }
  // with temporal noise the values move
  const noisy = analogForward(m.model, samples, { chipSeed: 4, noiseStd: 2 });
  assert.not.equal(noisy.outputs.map((o) => Array.from(o[0].data)), f.outputs.map((o) => Array.from(o[0].data)));
});

test('calibration on the emulated chip: folded into the rescale, exact in the firmware, closer to the uniform chip', async () => {
  const dir = join(work, `case${n++}`);
  const m = bss2Mlp(dir, [300, 200, 10], 1, 41);
  const rng = new Rng(6);
  const sample = (): NDArray[] => [ndarray('uint8', [1, 300], rng.ints(300, 0, 255))];
  const calibration = Array.from({ length: 64 }, sample);
  const held = Array.from({ length: 40 }, sample);
  const opts = { chipSeed: 5, noiseStd: 0 };
  const corrections = calibrateAnalog(m.model, calibration, opts);
  assert.is(corrections.length, 2);
  assert.equal(corrections.map((c) => c.a.length), [200, 10]);
  const distance = (outs: NDArray[][], ideal: NDArray[][]): number =>
    outs.reduce((s, o, i) => s + o[0].data.reduce((t, v, j) => t + Math.abs(v - ideal[i][0].data[j]), 0), 0);
  const ideal = analogForward(m.model, held, { ...opts, fixedPattern: 'off' }).outputs;
  const before = distance(analogForward(m.model, held, opts).outputs, ideal);
  const after = distance(analogForward(m.model, held, { ...opts, analogCalibration: corrections }).outputs, ideal);
  assert.ok(after < 0.8 * before, `distance to the uniform chip ${before} -> ${after}`);
  // the corrected firmware equals the corrected reference
  const { got, want } = await checkModel(join(dir, 'fw'), m, { ...opts, noiseStd: 2, analogCalibration: corrections });
  assert.equal(got, want);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
