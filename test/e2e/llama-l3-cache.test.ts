import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { stepRoles } from '../../generator/ir/state.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { DecoderSteps, generateReference } from '../../generator/reference/generate.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { l3Detail, readEvents } from '../../runtime/node/emulator.js';
import { generateOnEmulator } from '../../runtime/node/generate.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runQemu } from '../../runtime/node/qemu.js';
import { readManifestTensor } from '../../runtime/node/run.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { Rng } from '../helpers/random.js';

/*
 * A decoder whose caches do not fit L2 (gen firmware --l2 below them): they live in L3 for the whole generation
 * (generator/midend/l3.ts), a step sends only its new row of each cache there (one HyperRAM DMA write per head) and
 * the attention reads the rows written so far through an L2 copy. What must hold:
 *   - every cache and its update share one L3 address; the firmware (emulated, chip and host loops) generates the
 *     reference interpreter's tokens;
 *   - per step the bytes written to L3 are exactly one row of each cache, only row t of a cache changes, and the
 *     bytes read from L3 grow by one row of each cache per step (the loads stop at the position);
 *   - the C with the caches in L3 (host, rv32 under qemu, the ISS) gives the reference's outputs, caches fed back.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-llama-l3-'));
const S = { ...SMALL_LLAMA, seq: 64 };
const rng = new Rng(29);
const stepGraph = loadOnnxBytes(floatLlama(S, 7, true).bytes(), 'step.onnx');
const windows = ndarray('int64', [6, S.seq], rng.ints(6 * S.seq, 0, S.vocab - 1));
const q = quantizeGraph(stepGraph, [windows], 'cal.npz', { context: S.seq });
const model = join(work, 'step.int8.onnx');
writeFileSync(model, encodeModel(q.intGraph, { opset: 13 }));
const intGraph = inferGraph(q.intGraph);
const roles = stepRoles(intGraph)!;
const prompt = [1, 4, 9];
const NEW = 24;
/** Bytes of one cache row (all heads) and of one cache. */
const ROW = S.hidden;
const CACHE = S.seq * S.hidden;
const out = join(work, 'siracusa');
// L2 of the plan with the caches resident, less the caches and 1 KB: they cannot all stay.
const resident = generateFirmware({ model, platform: 'siracusa', out: join(work, 'resident') }).plan!;
const l2 = resident.used - 2 * S.layers * CACHE - 1024;
const { plan, notes } = generateFirmware({ model, platform: 'siracusa', out, l2 });

test('the caches live in L3 at one address each, written in place, while L2 holds the rest', () => {
  assert.ok(!resident.far, 'with the default L2 nothing goes to L3');
  assert.ok(plan!.far, `nothing in L3 with --l2 ${l2}`);
  assert.ok(plan!.used <= l2, `L2 ${plan!.used} of ${l2}`);
  assert.ok(notes.some((n) => /at home in L3/.test(n)), notes.join('; '));
  for (const p of roles.state) {
    const a = plan!.placements.get(p.input)!;
    const b = plan!.placements.get(p.output)!;
    assert.is(a.region, 'L3', `${p.input} in ${a.region}`);
    assert.equal([b.region, b.offset], [a.region, a.offset], `${p.output} is ${p.input}'s buffer`);
  }
});

test('emulated: the chip\'s loop and the host\'s loop generate the reference\'s tokens', async () => {
  const want = generateReference(intGraph, prompt, NEW);
  const chip = await generateOnEmulator(out, prompt, NEW);
  assert.is(chip.loop, 'chip');
  assert.equal(chip.tokens, want);
  const host = await generateOnEmulator(out, prompt, NEW, { hostLoop: true });
  assert.equal(host.tokens, want);
});

test('per step: one row of each cache written to L3, only that row changes, reads grow by a row per cache', async () => {
  let seen = 0;
  const written: number[] = [];
  const read: number[] = [];
  let before = roles.state.map((p) => new Float64Array(intGraph.tensors.get(p.input)!.shape.reduce((a, d) => a * d, 1)));
  await generateOnEmulator(out, prompt, NEW, {}, {
    onStep: (t, f) => {
      const { events } = readEvents(f.emu, seen);
      seen = Number(f.emu.events_total());
      const l3 = events.filter((e) => e.kind === 'l3').map((e) => l3Detail(e.detail));
      written.push(l3.filter((d) => d.toL3).reduce((a, d) => a + d.bytes, 0));
      read.push(l3.filter((d) => !d.toL3).reduce((a, d) => a + d.bytes, 0));
      assert.ok(l3.filter((d) => d.toL3).every((d) => d.bytes <= ROW), `step ${t}: no write larger than a row`);
      const after = roles.state.map((p) => readManifestTensor(f, p.input).data);
      after.forEach((a, k) => {
        const shape = intGraph.tensors.get(roles.state[k].input)!.shape;
        const inner = shape[3];
        for (let i = 0; i < a.length; i++) {
          if (Math.floor(i / inner) % shape[2] !== t) assert.is(a[i], before[k][i], `step ${t}: ${roles.state[k].input} changed outside row ${t}`);
        }
      });
      before = after.map((a) => Float64Array.from(a));
    },
  });
  const caches = roles.state.length;
  written.forEach((w, t) => assert.is(w, caches * ROW, `step ${t}: bytes written to L3`));
  read.forEach((r, t) => assert.is(r - read[0], caches * ROW * t, `step ${t}: bytes read from L3 beyond step 0's`));
  assert.ok(read[0] < caches * CACHE, `step 0 reads ${read[0]} bytes, less than the caches' ${caches * CACHE}`);
});

test('C with the caches in L3 (host, rv32 under qemu, the ISS): three steps, caches fed back, equal the reference', async () => {
  const runs: [string, (inputs: ReturnType<DecoderSteps['inputs']>) => Promise<{ data: Float64Array }[]>][] = [
    ['host', async (i) => runHostC(out, i)],
    ['qemu', async (i) => runQemu(out, i).outputs],
    ['iss', async (i) => (await runIss(out, i)).outputs],
  ];
  for (const [name, run] of runs) {
    const steps = new DecoderSteps(intGraph);
    for (let t = 0; t < 3; t++) {
      const inputs = steps.inputs(prompt[t], t);
      const ref = runReference(intGraph, inputs);
      const got = await run(inputs);
      intGraph.outputs.forEach((o, i) => assert.equal(Array.from(got[i].data), Array.from(ref.get(o)!.data), `${name}, step ${t}: ${o}`));
      steps.advance(ref);
    }
  }
});

test('host C: the firmware\'s own loop generates the reference\'s tokens with the caches in L3', () => {
  const steps = new DecoderSteps(intGraph);
  const host = runHostC(out, steps.loopInputs(prompt, NEW));
  assert.equal(steps.loopTokens(host, prompt, NEW), generateReference(intGraph, prompt, NEW));
});

test('with the parallel prompt pass: its rows 0..P-1 go to the caches in L3, the same tokens as the reference', async () => {
  const P = 4;
  const promptGraph = loadOnnxBytes(floatLlama(S, 7, false, P).bytes(), 'prompt.onnx');
  const joined = quantizeGraph(stepGraph, [windows], 'cal.npz', { context: S.seq }, promptGraph);
  const file = join(work, 'joined.int8.onnx');
  writeFileSync(file, encodeModel(joined.intGraph, { opset: 13 }));
  const g = inferGraph(joined.intGraph);
  const r = stepRoles(g)!;
  assert.ok(r.prompt, 'the joined model has a prompt pass');
  const full = generateFirmware({ model: file, platform: 'siracusa', out: join(work, 'joined-resident') }).plan!;
  const dir = join(work, 'joined');
  const { plan: p3 } = generateFirmware({ model: file, platform: 'siracusa', out: dir, l2: full.used - 2 * S.layers * CACHE - 1024 });
  for (const s of r.state) assert.is(p3!.placements.get(s.input)!.region, 'L3', `${s.input} in L3`);
  for (const ids of [[1, 4, 9], [3, 7, 0, 12, 5, 6]]) {
    const want = generateReference(g, ids, NEW);
    assert.equal((await generateOnEmulator(dir, ids, NEW)).tokens, want, `chip loop, prompt of ${ids.length}`);
    assert.equal((await generateOnEmulator(dir, ids, NEW, { hostLoop: true })).tokens, want, `host loop, prompt of ${ids.length}`);
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
