import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { phaseGraphs, stepRoles } from '../../generator/ir/state.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { DecoderSteps, generateReference } from '../../generator/reference/generate.js';
import { sampler, sampling, samplingBlock, SAMPLING_TABLE } from '../../generator/reference/sample.js';
import { generateOnEmulator } from '../../runtime/node/generate.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { readManifestTensor } from '../../runtime/node/run.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { genError } from '../helpers/gen-error.js';
import { Rng } from '../helpers/random.js';

/*
 * The parallel prompt pass (gen quantize --prompt-graph, quantize/prompt-pass.ts): the exporter's prompt graph joins
 * the step graph as one integer model, one firmware, whose loop runs the pass once over the first P prompt tokens
 * (writing rows 0..P-1 of the caches in place) and then one step per token:
 *   - the model shares the step's weights and its caches' grids, and the reference generates with the pass too;
 *   - the pass writes the prompt's cache rows exactly as the steps would (the grids of corresponding tensors shared,
 *     the rotary rows on their table's int8 scale): the same tokens as the step graph quantized alone;
 *   - the firmware generates the reference's tokens on generic and siracusa, in its own loop and driven by the host,
 *     for prompts shorter than P, of P and longer than P; with the sampler on the cores; and in siracusa's host C;
 *   - the pass writes the caches' buffers in place (one buffer per cache for all three names) and only rows 0..P-1.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-prompt-pass-'));
const S = SMALL_LLAMA;
const P = 4;
const rng = new Rng(21);
const step = loadOnnxBytes(floatLlama(S, 7, true).bytes(), 'step.onnx');
const promptGraph = loadOnnxBytes(floatLlama(S, 7, false, P).bytes(), 'prompt.onnx');
const windows = ndarray('int64', [12, S.seq], rng.ints(12 * S.seq, 0, S.vocab - 1));
const q = quantizeGraph(step, [windows], 'cal.npz', { context: S.seq }, promptGraph);
const model = join(work, 'step.int8.onnx');
writeFileSync(model, encodeModel(q.intGraph, { opset: 13 }));
const intGraph = inferGraph(q.intGraph);
const PROMPTS = [[1, 4, 9], [3, 7, 0, 12], [1, 2, 3, 4, 5, 6]]; // shorter than P, P, longer than P
const newTokens = (p: number[]): number => S.seq - p.length + 1;

test('the joined model: a prompt pass of P tokens, its cache writes at row 0 on the caches\' grids, the step\'s weights', () => {
  const roles = stepRoles(intGraph)!;
  assert.ok(roles?.prompt, 'the integer model has a prompt pass');
  const pass = roles.prompt!;
  assert.is(pass.length, P);
  assert.ok(pass.next, 'the pass chooses its next tokens on chip');
  assert.equal(pass.state.map((s) => s.input).sort(), roles.state.map((s) => s.input).sort(), 'the pass writes every cache the step keeps');
  for (const s of pass.state) {
    const write = intGraph.nodes.find((n) => n.outputs.includes(s.output) || n.outputs.some((o) => intGraph.nodes.some((m) => m.op === 'Identity' && m.inputs[0] === o && m.outputs.includes(s.output))))!;
    assert.is(write.op, 'CacheWrite');
    assert.equal(Array.from(intGraph.tensors.get(write.inputs[2])!.data!.data), [0], `${s.output} writes from row 0`);
    assert.equal(q.plan.act.get(write.inputs[1]), q.plan.act.get(s.input), `${s.output}: its rows on the cache's grid`);
  }
  const { step: stepPhase, prompt } = phaseGraphs(intGraph);
  const weights = (g: typeof intGraph) => new Set(g.nodes.filter((n) => n.op === 'MatMul').map((n) => n.inputs[1]).filter((t) => intGraph.tensors.get(t)?.data));
  const mine = weights(prompt!);
  assert.ok(mine.size >= 7 * S.layers, `the pass's projections read constant weights (${mine.size})`);
  for (const w of mine) assert.ok(weights(stepPhase).has(w), `the pass's weight '${w}' is the step's tensor`);
});

test('the pass computes the prompt\'s cache rows exactly as the steps do (one grid per tensor pair, the rotary tables\' int8 scale), so the tokens are the step-only model\'s', () => {
  // The step graph quantized alone: the reference's token-by-token generation to compare with.
  const alone = inferGraph(quantizeGraph(step, [windows], 'cal.npz', { context: S.seq }).intGraph);
  const roles = stepRoles(intGraph)!;
  for (const p of PROMPTS) {
    const withPass = new DecoderSteps(intGraph);
    withPass.prefill(p);
    const stepped = new DecoderSteps(alone);
    p.slice(0, P).forEach((t, i) => stepped.run(t, i));
    const a = withPass.inputs(0, 0);
    const b = stepped.inputs(0, 0);
    for (const pair of roles.state) {
      const x = a[intGraph.inputs.indexOf(pair.input)];
      const y = b[alone.inputs.indexOf(pair.input)];
      const [, , rows, inner] = x.shape;
      let differ = 0;
      for (let i = 0; i < x.data.length; i++) if (Math.floor(i / inner) % rows < Math.min(p.length, P) && x.data[i] !== y.data[i]) differ++;
      assert.is(differ, 0, `prompt ${p}: ${pair.input}'s rows of the prompt`);
    }
    assert.equal(generateReference(intGraph, p, newTokens(p)), generateReference(alone, p, newTokens(p)), `prompt ${p}: tokens`);
  }
});

test('the reference generates with the pass: the pass\'s tokens, then one step per token', () => {
  for (const p of PROMPTS) {
    const tokens = generateReference(intGraph, p, newTokens(p));
    assert.is(tokens.length, newTokens(p));
    assert.ok(tokens.every((t) => t >= 0 && t < S.vocab));
  }
  const steps = new DecoderSteps(intGraph);
  const pre = steps.prefill([5, 6]);
  assert.is(pre.count, 2);
  assert.is(pre.logits!.length, S.vocab, 'the logits row of the last prompt token');
});

for (const platform of ['generic', 'siracusa']) {
  test(`${platform}: the firmware's loop and the host's loop generate the reference's tokens; the pass writes rows 0..P-1 in place`, async () => {
    const out = join(work, platform);
    const { manifest } = generateFirmware({ model, platform, out });
    const g = manifest.generation!;
    assert.ok(g.prompt, 'firmware.json names the prompt pass');
    const address = (name: string): number => manifest.tensors.find((t) => t.name === name)!.address;
    for (const s of g.prompt!.state) {
      const own = g.state.find((p) => p.input === s.input)!;
      assert.is(address(s.output), address(s.input), `${s.output} is written in its cache's buffer`);
      assert.is(address(own.output), address(s.input), `${own.output} too`);
    }
    for (const p of PROMPTS) {
      const want = generateReference(intGraph, p, newTokens(p));
      const chip = await generateOnEmulator(out, p, newTokens(p));
      assert.is(chip.loop, 'chip');
      assert.equal(chip.tokens, want, `prompt ${p}: the firmware's own loop`);
      assert.is(chip.passTokens, Math.min(p.length, P));
      let checked = false;
      const host = await generateOnEmulator(out, p, newTokens(p), { hostLoop: true }, {
        onStep: (t, f) => {
          if (checked) return;
          checked = true;
          // The first step after the pass: rows past max(P, t) still zero (the pass and the steps wrote only theirs).
          for (const s of g.prompt!.state) {
            const a = readManifestTensor(f, s.input);
            const [, , rows, inner] = a.shape;
            for (let i = 0; i < a.data.length; i++) {
              const row = Math.floor(i / inner) % rows;
              if (row > Math.max(P - 1, t)) assert.is(a.data[i], 0, `${s.input}: row ${row} written`);
            }
          }
        },
      });
      assert.is(host.loop, 'host');
      assert.equal(host.tokens, want, `prompt ${p}: the host's loop`);
      assert.is(host.stepCycles.length, 1 + p.length + newTokens(p) - 1 - Math.min(p.length, P), 'the pass, then one run per step');
      assert.ok(Math.abs(chip.totalCycles - host.totalCycles) < 0.01 * host.totalCycles, `chip loop ${chip.totalCycles} vs host loop ${host.totalCycles} cycles`);
    }
  });
}

test('siracusa --engines npu: the pass\'s projections and the step\'s read one copy of each weight in the neural memory; the reference\'s tokens', async () => {
  const out = join(work, 'siracusa-npu');
  const { manifest } = generateFirmware({ model, platform: 'siracusa', out, engines: 'npu' });
  const npu = manifest.layers.filter((l) => l.kernel === 'neureka');
  const pass = npu.filter((l) => l.name.startsWith('prompt.'));
  assert.ok(pass.length > 0 && npu.length > pass.length, `linear layers of both phases on N-EUREKA (${pass.length} of ${npu.length})`);
  const nms = manifest.tensors.filter((t) => t.region === 'NMS_SRAM');
  assert.ok(nms.length > 0, 'weights in the neural memory');
  const alone = join(work, 'alone.int8.onnx');
  writeFileSync(alone, encodeModel(quantizeGraph(step, [windows], 'cal.npz', { context: S.seq }).intGraph, { opset: 13 }));
  const single = generateFirmware({ model: alone, platform: 'siracusa', out: join(work, 'alone-npu'), engines: 'npu' }).manifest;
  const bytes = (m: typeof manifest): number => m.tensors.filter((t) => t.region === 'NMS_SRAM').reduce((a, t) => a + t.bytes, 0);
  assert.is(bytes(manifest), bytes(single), 'the neural memory holds what the step alone holds');
  for (const p of PROMPTS) {
    const r = await generateOnEmulator(out, p, newTokens(p));
    assert.equal(r.tokens, generateReference(intGraph, p, newTokens(p)), `prompt ${p}`);
  }
});

test('siracusa with --sampling: the first token drawn from the pass\'s logits, the rest from the steps\', on the cores and in the host\'s loop', async () => {
  const out = join(work, 'siracusa-sampling');
  generateFirmware({ model, platform: 'siracusa', out, sampling: true });
  const scale = q.plan.act.get('logits')!.scale;
  assert.is(q.plan.act.get(stepRoles(intGraph)!.prompt!.logits)!.scale, scale, 'the pass\'s logits on the step\'s grid');
  for (const { temperature, seed } of [{ temperature: 0.7, seed: 11 }, { temperature: 2, seed: 3 }]) {
    const s = sampling(temperature, seed, scale);
    for (const p of [PROMPTS[0], PROMPTS[1]]) {
      const want = generateReference(intGraph, p, newTokens(p), sampler(s));
      const chip = await generateOnEmulator(out, p, newTokens(p), {}, { sampling: s });
      assert.is(chip.loop, 'chip');
      assert.equal(chip.tokens, want, `T ${temperature}, seed ${seed}, prompt ${p}: on the cores`);
      const host = await generateOnEmulator(out, p, newTokens(p), { hostLoop: true }, { sampling: s });
      assert.equal(host.tokens, want, `T ${temperature}, seed ${seed}, prompt ${p}: the host's loop`);
    }
  }
});

test('siracusa host C: the firmware\'s own loop (the pass, then the steps) generates the reference\'s tokens', () => {
  const out = join(work, 'siracusa');
  for (const p of PROMPTS) {
    const steps = new DecoderSteps(intGraph);
    const host = runHostC(out, steps.loopInputs(p, newTokens(p)));
    assert.equal(steps.loopTokens(host, p, newTokens(p)), generateReference(intGraph, p, newTokens(p)), `prompt ${p}`);
  }
  const sampled = join(work, 'siracusa-sampling');
  const s = sampling(0.7, 11, q.plan.act.get('logits')!.scale);
  const p = PROMPTS[0];
  const steps = new DecoderSteps(intGraph);
  const host = runHostC(sampled, [...steps.loopInputs(p, newTokens(p)), ndarray('int32', [2 + SAMPLING_TABLE], samplingBlock(s))]);
  assert.equal(steps.loopTokens(host, p, newTokens(p)), generateReference(intGraph, p, newTokens(p), sampler(s)), 'sampled');
});

test('a prompt graph that does not match the step is refused in one line; spinnaker2 refuses a pass', () => {
  const bigger = loadOnnxBytes(floatLlama(S, 7, false, S.seq + 1).bytes(), 'prompt.onnx');
  assert.match(genError(() => quantizeGraph(step, [windows], 'cal.npz', { context: S.seq }, bigger)), /more than the context of 8/);
  const other = loadOnnxBytes(floatLlama({ ...S, layers: 1 }, 7, false, P).bytes(), 'prompt.onnx');
  assert.match(genError(() => quantizeGraph(step, [windows], 'cal.npz', { context: S.seq }, other)), /has no output 'present\.1\.key'/);
  assert.match(genError(() => generateFirmware({ model, platform: 'spinnaker2', out: join(work, 's2') })), /prompt pass/);
});

test.run();
