import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { stepRoles } from '../../generator/ir/state.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { fillsPast, positionBoundOf } from '../../generator/frontend/passes/bound-by-position.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { foldConstants } from '../../generator/quantize/fold.js';
import { makeStateful, runSequences } from '../../generator/quantize/stateful.js';
import { DecoderSteps, generateReference } from '../../generator/reference/generate.js';
import { mulberry32, sampler, sampling, samplingBlock, SAMPLING_TABLE } from '../../generator/reference/sample.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { generateOnEmulator } from '../../runtime/node/generate.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { readManifestTensor, runFirmware } from '../../runtime/node/run.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { Rng } from '../helpers/random.js';

/*
 * A decoder step graph in the exporter's form (past.* -> Concat -> present.*) through gen quantize --context and
 * gen firmware, then greedy generation:
 *   - the stateful float step graph (caches of S rows, CacheWrite, PositionMask), run token by token, gives the
 *     prompt graph's logits at every position (the transformation is exact);
 *   - the firmware generates the reference interpreter's tokens (the argmax on the cores), with the logits of every
 *     step equal, on generic and siracusa (emulated, one emulator across the steps);
 *   - a step writes the cache buffers in place and changes only the row of its position (never a copy of a cache);
 *   - siracusa's host C build gives the reference's outputs step by step (caches fed back by the test).
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-llama-gen-'));
const S = SMALL_LLAMA;
const rng = new Rng(21);
const stepBytes = floatLlama(S, 7, true).bytes();
const stepGraph = loadOnnxBytes(stepBytes, 'step.onnx');
const windows = ndarray('int64', [12, S.seq], rng.ints(12 * S.seq, 0, S.vocab - 1));
const q = quantizeGraph(stepGraph, [windows], 'cal.npz', { context: S.seq });
const model = join(work, 'step.int8.onnx');
writeFileSync(model, encodeModel(q.intGraph, { opset: 13 }));
const intGraph = inferGraph(q.intGraph);
const prompt = [1, 4, 9];
const NEW = S.seq - prompt.length + 1;

test('the stateful step graph, token by token, equals the prompt graph at every position (float)', () => {
  const prompted = loadOnnxBytes(floatLlama(S, 7, false).bytes(), 'prompt.onnx');
  const win = ndarray('int64', [1, S.seq], rng.ints(S.seq, 0, S.vocab - 1));
  const want = runReference(prompted, [win]).get('logits')!.data;
  let worst = 0;
  runSequences(inferGraph(foldConstants(makeStateful(stepGraph, S.seq).graph)), win, (values, _, t) => {
    const got = values.get('logits')!.data;
    for (let v = 0; v < S.vocab; v++) worst = Math.max(worst, Math.abs(got[v] - want[t * S.vocab + v]));
  });
  assert.ok(worst < 1e-5, `largest difference ${worst}`);
});

test('the integer step graph has its caches as state (CacheWrite at the position, softmaxes bounded by it)', () => {
  const roles = stepRoles(intGraph)!;
  assert.ok(roles, 'no generation roles');
  assert.is(roles.state.length, 2 * S.layers);
  assert.is(roles.context, S.seq);
  const bounded = intGraph.nodes.filter((n) => n.op === 'iSoftmax' && n.inputs[1] === roles.position);
  assert.is(bounded.length, S.layers, 'every attention softmax spans the rows written so far');
  for (const p of roles.state) assert.equal(q.plan.act.get(p.input), q.plan.act.get(p.output), `${p.input}: the cache and its update share one grid`);
});

test('the attention MatMuls stop at the position too: the scores\' columns, the value product\'s k (generic, siracusa, with N-EUREKA)', () => {
  const roles = stepRoles(intGraph)!;
  for (const [platform, engines] of [['generic', undefined], ['siracusa', undefined], ['siracusa', 'npu']] as const) {
    const { lowered } = compileModel({ model, platform, engines });
    const bound = (axis: string) => lowered.nodes.filter((n) => n.op === 'MatMul' && positionBoundOf(n) === axis);
    for (const axis of ['n', 'k']) {
      assert.is(bound(axis).length, S.layers, `${platform}: one MatMul bounded along ${axis} per layer`);
      for (const n of bound(axis)) assert.is(n.inputs[3], roles.position, `${platform}: ${n.name} reads the position`);
    }
    // Nobody reads past the position: the scores' MatMul and the softmax leave those entries (the logits of every
    // step stay the reference's, asserted below).
    for (const n of [...bound('n'), ...lowered.nodes.filter((x) => x.op === 'iSoftmax' && x.inputs[1] === roles.position)]) {
      assert.not.ok(fillsPast(n), `${platform}: ${n.name} writes zeros nobody reads`);
    }
  }
});

// SpiNNaker2 runs the step as layers of its DRAM image (ArgMax a row layer, CacheWrite and the embedding an indexed
// layer); its scheduler loops over the steps from the image's generation block.
for (const platform of ['generic', 'siracusa', 'spinnaker2']) {
  test(`${platform}: the firmware generates the reference's tokens, every step's logits equal, caches written in place`, async () => {
    const out = join(work, platform);
    const { manifest } = generateFirmware({ model, platform, out });
    const roles = manifest.generation!;
    const s2 = platform === 'spinnaker2';
    assert.ok(roles.next, 'the next token is chosen on chip (ArgMax)');
    assert.ok(manifest.layers.some((l) => l.op === 'ArgMax' && l.kernel === (s2 ? 's2-rows' : 'argmax')), 'an argmax layer on the cores');
    for (const p of roles.state) {
      const [a, b] = [p.input, p.output].map((n) => manifest.tensors.find((t) => t.name === n)!.address);
      assert.is(a, b, `${p.input} and ${p.output} share one buffer`);
    }
    const want = generateReference(intGraph, prompt, NEW);
    // The reference's logits per step, to compare every step (not only the argmax).
    const refLogits: NDArray[] = [];
    const steps = new DecoderSteps(intGraph);
    const seq = [...prompt, ...want];
    for (let t = 0; t < prompt.length + NEW - 1; t++) refLogits.push(steps.run(seq[t], t).get(roles.logits)!);
    let before = roles.state.map((p) => readZeros(intGraph, p.input));
    const r = await generateOnEmulator(out, prompt, NEW, {}, {
      onStep: (t, f) => {
        assert.equal(Array.from(readManifestTensor(f, roles.logits).data), Array.from(refLogits[t].data), `step ${t}: logits`);
        const after = roles.state.map((p) => readManifestTensor(f, p.input));
        after.forEach((a, k) => {
          const shape = a.shape;
          const inner = shape[3];
          for (let i = 0; i < a.data.length; i++) {
            const row = Math.floor(i / inner) % shape[2];
            if (row !== t) assert.is(a.data[i], before[k].data[i], `step ${t}: ${roles.state[k].input} changed outside row ${t}`);
          }
        });
        before = after;
      },
    });
    assert.equal(r.tokens, want);
    assert.is(r.loop, 'host');
    assert.is(r.stepCycles.length, prompt.length + NEW - 1);
    // The firmware's own loop (one run for every step): the same tokens, about the same cycles.
    const chip = await generateOnEmulator(out, prompt, NEW);
    assert.is(chip.loop, 'chip');
    assert.equal(chip.tokens, want);
    assert.ok(Math.abs(chip.totalCycles - r.totalCycles) < 0.01 * r.totalCycles, `chip loop ${chip.totalCycles} vs host loop ${r.totalCycles} cycles`);
  });
}

function readZeros(g: typeof intGraph, name: string): NDArray {
  return ndarray('int8', g.tensors.get(name)!.shape);
}

// Sampling (reference/sample.ts): firmware generated with the sampler (gen firmware --sampling) draws in its own loop
// exactly the tokens the reference draws for the same temperature and seed, and so does the host's loop.
const SAMPLED: { temperature: number; seed: number }[] = [{ temperature: 0.7, seed: 11 }, { temperature: 1.5, seed: 0 }, { temperature: 3, seed: 4294967295 }];
const logitsScale = (): number => q.plan.act.get('logits')!.scale;

for (const platform of ['generic', 'siracusa']) test(`${platform} with --sampling: the firmware's own loop draws the reference's tokens for each seed`, async () => {
  const out = join(work, `${platform}-sampling`);
  const { manifest } = generateFirmware({ model, platform, out, sampling: true });
  assert.ok(manifest.generation!.sampling, 'the manifest names the sampling block');
  const greedy = generateReference(intGraph, prompt, NEW);
  const off = await generateOnEmulator(out, prompt, NEW);
  assert.is(off.loop, 'chip');
  assert.equal(off.tokens, greedy, 'without a temperature the sampler is off: the argmax');
  const draws = new Set<string>();
  for (const { temperature, seed } of SAMPLED) {
    const s = sampling(temperature, seed, logitsScale());
    const want = generateReference(intGraph, prompt, NEW, sampler(s));
    draws.add(want.join(' '));
    const chip = await generateOnEmulator(out, prompt, NEW, {}, { sampling: s });
    assert.is(chip.loop, 'chip');
    assert.equal(chip.tokens, want, `T ${temperature}, seed ${seed}: on the cores`);
    const host = await generateOnEmulator(out, prompt, NEW, { hostLoop: true }, { sampling: s });
    assert.is(host.loop, 'host');
    assert.equal(host.tokens, want, `T ${temperature}, seed ${seed}: the host's loop`);
  }
  draws.add(greedy.join(' '));
  assert.ok(draws.size >= 3, `the seeds and temperatures draw different tokens here (${[...draws].join(' | ')})`);
});

test('sampling on a firmware without the sampler runs in the host\'s loop, with the same tokens', async () => {
  const s = sampling(0.7, 11, logitsScale());
  const r = await generateOnEmulator(join(work, 'siracusa'), prompt, NEW, {}, { sampling: s });
  assert.is(r.loop, 'host');
  assert.equal(r.tokens, generateReference(intGraph, prompt, NEW, sampler(s)));
});

test('siracusa host C with --sampling: the firmware\'s own loop draws the reference\'s tokens, its PRNG state returned', () => {
  const out = join(work, 'siracusa-sampling');
  const roles = stepRoles(intGraph)!; // the firmware's graph adds the sampling block after these inputs and outputs
  for (const { temperature, seed } of SAMPLED) {
    const s = sampling(temperature, seed, logitsScale());
    const want = generateReference(intGraph, prompt, NEW, sampler(s));
    const steps = new DecoderSteps(intGraph);
    const host = runHostC(out, [...steps.loopInputs(prompt, NEW), ndarray('int32', [2 + SAMPLING_TABLE], samplingBlock(s))]);
    assert.equal(steps.loopTokens(host, prompt, NEW), want, `T ${temperature}, seed ${seed}`);
    let state = seed;
    for (let k = 0; k < NEW; k++) state = mulberry32(state).state;
    assert.is(host[host.length - 1].data[1] >>> 0, state, 'the block returns the state after one draw per token');
  }
});

for (const platform of ['siracusa', 'spinnaker2']) test(`${platform} host C: the firmware's own loop generates the reference's tokens in one run`, () => {
  const out = join(work, platform);
  const steps = new DecoderSteps(intGraph); // zero caches; the control block drives the steps
  const host = runHostC(out, steps.loopInputs(prompt, NEW));
  assert.equal(steps.loopTokens(host, prompt, NEW), generateReference(intGraph, prompt, NEW));
});

test('siracusa host C: three steps with the caches fed back equal the reference', () => {
  const out = join(work, 'siracusa');
  const steps = new DecoderSteps(intGraph);
  for (let t = 0; t < 3; t++) {
    const inputs = steps.inputs(prompt[t], t);
    const ref = runReference(intGraph, inputs);
    const host = runHostC(out, inputs);
    intGraph.outputs.forEach((o, i) => assert.equal(Array.from(host[i].data), Array.from(ref.get(o)!.data), `step ${t}: ${o}`));
    steps.advance(ref);
  }
});

test('sample inputs beside a step graph leave the loop\'s inputs their declared types; the firmware equals the reference elsewhere', async () => {
  // A sample of one step (small ids, position 1, caches within +-3) must bound none of the inputs the loop writes: it
  // made the ids a byte (the loop's int32 write then an internal error) and would have bound later steps' caches.
  const g = inferGraph(q.intGraph);
  const roles = stepRoles(g)!;
  const sample = g.inputs.map((name) => {
    const t = g.tensors.get(name)!;
    const a = ndarray(t.dtype, t.shape);
    if (name === roles.position) a.data[0] = 1;
    else if (name === roles.ids) a.data[0] = 2;
    else if (roles.state.some((p) => p.input === name)) for (let i = 0; i < a.data.length; i++) a.data[i] = (i % 7) - 3;
    return a;
  });
  const file = join(work, 'sample.npz');
  writeFileSync(file, encodeNpz(new Map(g.inputs.map((n, i) => [n, sample[i]]))));
  const out = join(work, 'generic-sampled');
  const { manifest } = generateFirmware({ model, platform: 'generic', out, sampleInputs: file });
  for (const name of [roles.ids, roles.position, ...roles.state.map((p) => p.input)]) {
    assert.is(manifest.tensors.find((t) => t.name === name)!.dtype, g.tensors.get(name)!.dtype, name);
  }
  // Another step: position 5, caches over the whole int8 range.
  const r = new Rng(77);
  const inputs = g.inputs.map((name) => {
    const t = g.tensors.get(name)!;
    const a = ndarray(t.dtype, t.shape);
    if (name === roles.position) a.data[0] = 5;
    else if (name === roles.ids) a.data[0] = S.vocab - 1;
    else if (roles.state.some((p) => p.input === name)) for (let i = 0; i < a.data.length; i++) a.data[i] = r.int(-128, 127);
    return a;
  });
  const ref = runReference(g, inputs);
  const run = await runFirmware(out, inputs);
  g.outputs.forEach((o, i) => assert.equal(Array.from(run.outputs[i].data), Array.from(ref.get(o)!.data), o));
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
