import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { stepRoles } from '../../generator/ir/state.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeFile } from '../../generator/quantize/files.js';
import { DecoderSteps, generateReference } from '../../generator/reference/generate.js';
import { generateOnEmulator } from '../../runtime/node/generate.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { readSidecar } from '../../runtime/node/float-inputs.js';
import { sampler, sampling, samplingBlock, SAMPLING_TABLE } from '../../generator/reference/sample.js';
import { readTokenizer } from '../../runtime/node/tokenizer.js';
import { repoRoot } from '../helpers/paths.js';

/*
 * The example language model (examples/tiny-llama: trained here, exported by torch.onnx.export) end to end:
 *   - gen quantize --context 256 on its step graph, calibrated on 8 of the held-out windows;
 *   - the int8 model's perplexity on 16 other held-out windows within 5 % of the float model's (both run token by
 *     token with their caches, in the reference interpreter);
 *   - 256 greedy steps from a one-character prompt, in the firmware's own loop: the emulated siracusa firmware
 *     generates exactly the reference interpreter's tokens, and the host C build the same (one run each);
 *   - the same 256 steps sampled on the cores (gen firmware --sampling, a temperature and a seed): the reference's
 *     integer sampler's tokens, emulated and host C.
 */

const example = join(repoRoot, 'examples', 'tiny-llama');
const work = mkdtempSync(join(tmpdir(), 'firmgen-tiny-llama-'));
const all = [...readNpz(join(example, 'calibration.npz')).values()][0];
const slice = (from: number, count: number): NDArray => {
  const L = all.shape[1];
  return ndarray('int64', [count, L], all.data.subarray(from * L, (from + count) * L));
};
const cal = join(work, 'cal.npz');
const heldout = join(work, 'heldout.npz');
writeFileSync(cal, encodeNpz(new Map([['input_ids', slice(0, 8)]])));
writeFileSync(heldout, encodeNpz(new Map([['input_ids', slice(32, 16)]])));
const model = join(work, 'step.int8.onnx');
const q = quantizeFile({ model: join(example, 'step.onnx'), calibration: cal, out: model, context: 256, heldout });
const intGraph = inferGraph(loadOnnxFile(model));
const prompt = readTokenizer(join(example, 'tokenizer.json')).encode('T');
const STEPS = 256;
const want = generateReference(intGraph, prompt, STEPS - prompt.length + 1);

test('int8 perplexity on held-out windows within 5 % of the float model', () => {
  const p = q.perplexity!;
  console.log(`  perplexity per character: float ${p.float.toFixed(3)}, int8 ${p.int8.toFixed(3)} on ${p.tokens} tokens`);
  assert.ok(p.int8 <= p.float * 1.05, `int8 ${p.int8} against float ${p.float}`);
});

test('siracusa: 256 steps of the emulated firmware generate the reference interpreter\'s tokens', async () => {
  const out = join(work, 'siracusa');
  generateFirmware({ model, platform: 'siracusa', out });
  const r = await generateOnEmulator(out, prompt, want.length);
  assert.is(r.loop, 'chip');
  assert.equal(r.tokens, want);
  const mean = r.totalCycles / STEPS;
  console.log(`  ${(r.clockHz / mean).toFixed(1)} tokens/s at ${r.clockHz / 1e6} MHz (cluster), ${Math.round(mean)} cycles per step`);
});

/** The host C's inputs for one run of the firmware's own loop (zero caches, the prompt), and the tokens it appended. */
const loop = new DecoderSteps(intGraph);
const loopInputs = (): NDArray[] => loop.loopInputs(prompt, want.length);
const loopTokens = (outputs: NDArray[], count: number): number[] => loop.loopTokens(outputs, prompt, count);

test('siracusa host C: the firmware\'s own loop generates the same tokens in one run', () => {
  assert.equal(loopTokens(runHostC(join(work, 'siracusa'), loopInputs()), want.length), want);
});

test('siracusa --sampling: 256 steps sampled on the cores (T 0.8, seed 2026) draw the reference\'s tokens, emulated and host C', async () => {
  const out = join(work, 'siracusa-sampling');
  generateFirmware({ model, platform: 'siracusa', out, sampling: true });
  const scale = readSidecar(join(work, 'step.int8.quant.json'), 'outputs').find((t) => t.name === stepRoles(intGraph)!.logits)!.scale;
  const s = sampling(0.8, 2026, scale);
  const drawn = generateReference(intGraph, prompt, want.length, sampler(s));
  assert.not.equal(drawn, want, 'sampled, not the greedy tokens');
  const r = await generateOnEmulator(out, prompt, want.length, {}, { sampling: s });
  assert.is(r.loop, 'chip');
  assert.equal(r.tokens, drawn);
  const mean = r.totalCycles / STEPS;
  console.log(`  sampled: ${(r.clockHz / mean).toFixed(1)} tokens/s at ${r.clockHz / 1e6} MHz (cluster), ${Math.round(mean)} cycles per step`);
  assert.equal(loopTokens(runHostC(out, [...loopInputs(), ndarray('int32', [2 + SAMPLING_TABLE], samplingBlock(s))]), want.length), drawn);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
