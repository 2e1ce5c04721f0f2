import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { argmax } from '../../generator/reference/generate.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from '../helpers/cli.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { Rng } from '../helpers/random.js';

/*
 * The command line of the language-model flow on a small random decoder: gen quantize --context, gen firmware,
 * gen run --prompt-ids / --prompt with a tokenizer, and the one-line errors (exit 2) of its misuses.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-cli-generate-'));
const S = SMALL_LLAMA;
const step = join(work, 'step.onnx');
const cal = join(work, 'cal.npz');
const int8 = join(work, 'step.int8.onnx');
const fw = join(work, 'fw');
const tokenizer = join(work, 'tokenizer.json');
writeFileSync(step, floatLlama(S, 7, true).bytes());
writeFileSync(cal, encodeNpz(new Map([['ids', ndarray('int64', [6, S.seq], new Rng(2).ints(6 * S.seq, 0, S.vocab - 1))]])));
writeFileSync(tokenizer, JSON.stringify({ kind: 'char', vocab: ['<unk>', ...'abcdefghijklmnopqrstuvw'], unk: 0 }));

const oneLine = (r: { code: number; stderr: string }, pattern: RegExp): void => {
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, pattern);
};

test('quantize a step graph: --context is required, then generate from ids and from text', () => {
  oneLine(gen('quantize', step, '--calibration', cal, '-o', int8), /give the context in tokens with --context/);
  oneLine(gen('quantize', step, '--calibration', cal, '-o', int8, '--context', '0'), /--context 0: expected a whole number/);
  const q = gen('quantize', step, '--calibration', cal, '-o', int8, '--context', String(S.seq), '--heldout', cal);
  assert.is(q.code, 0, q.stderr);
  assert.match(q.stdout, /perplexity on 6 held-out windows \(42 tokens\): float [0-9.]+, int8 [0-9.]+/);
  const f = gen('firmware', '--platform', 'generic', int8, '-o', fw);
  assert.is(f.code, 0, f.stderr);
  const r = gen('run', fw, '--prompt-ids', '1,2', '--tokens', '4');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /5 steps in the firmware's own loop \(prompt 2 tokens, one step each\): \d+ cycles/);
  const h = gen('run', fw, '--prompt-ids', '1,2', '--tokens', '4', '--host-loop');
  assert.is(h.code, 0, h.stderr);
  assert.match(h.stdout, /new tokens: 4, cycles per token min \d+/);
  assert.is(/^tokens: ([\d ]+)$/m.exec(h.stdout)![1], /^tokens: ([\d ]+)$/m.exec(r.stdout)![1], 'the same tokens either way');
  const t = gen('run', fw, '--prompt', 'ab', '--tokens', '3', '--tokenizer', tokenizer);
  assert.is(t.code, 0, t.stderr);
  assert.match(t.stdout, /^ab[a-w\uFFFD]{3}\n/);
});

test('gen quantize --prompt-graph: one model and firmware with the parallel prompt pass; gen run says what the pass took', () => {
  const promptFile = join(work, 'prompt.onnx');
  writeFileSync(promptFile, floatLlama(S, 7, false, 4).bytes());
  const joined = join(work, 'joined.int8.onnx');
  oneLine(gen('quantize', promptFile, '--calibration', cal, '-o', joined, '--prompt-graph', promptFile), /--prompt-graph joins a step graph with caches/);
  const q = gen('quantize', step, '--calibration', cal, '-o', joined, '--context', String(S.seq), '--prompt-graph', promptFile);
  assert.is(q.code, 0, q.stderr);
  const pfw = join(work, 'pfw');
  const f = gen('firmware', '--platform', 'generic', joined, '-o', pfw);
  assert.is(f.code, 0, f.stderr);
  const r = gen('run', pfw, '--prompt-ids', '1,2,3,4,5', '--tokens', '3');
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /the prompt pass \(4 of 5 prompt tokens at once\) and 3 steps in the firmware's own loop: \d+ cycles/);
  const h = gen('run', pfw, '--prompt-ids', '1,2,3,4,5', '--tokens', '3', '--host-loop');
  assert.is(h.code, 0, h.stderr);
  assert.match(h.stdout, /prompt: 5 tokens, \d+ cycles \(the parallel pass of 4 tokens \d+ cycles, one step per token after it\)/);
  assert.is(/^tokens: ([\d ]+)$/m.exec(h.stdout)![1], /^tokens: ([\d ]+)$/m.exec(r.stdout)![1], 'the same tokens either way');
  // --per-token: a new token's cycles by layer kernel; the rows add up to the cycles of a token spent in layers.
  const p = gen('run', pfw, '--prompt-ids', '1,2,3,4,5', '--tokens', '3', '--per-token');
  assert.is(p.code, 0, p.stderr);
  const head = /per token \(mean of 2 steps\): (\d+) cycles, (\d+) in layers/.exec(p.stdout);
  assert.ok(head, p.stdout);
  const rows = [...p.stdout.matchAll(/^ {2}([a-z0-9-]+) +(\d+) +[\d.]+ %$/gm)];
  assert.ok(rows.some((r) => r[1] === 'gemm') && rows.some((r) => r[1] === 'cache-write'), p.stdout);
  const sum = rows.reduce((a, r) => a + Number(r[2]), 0);
  assert.ok(Math.abs(sum - Number(head![2])) <= rows.length, `rows ${sum} vs ${head![2]} in layers`);
  assert.ok(Number(head![2]) <= Number(head![1]));
  oneLine(gen('run', pfw, '--inputs', cal, '--per-token'), /--per-token goes with --prompt or --prompt-ids/);
  oneLine(gen('firmware', '--platform', 'spinnaker2', joined, '-o', join(work, 's2fw')), /prompt pass .*runs steps only/);
});

test('gen firmware --sampling: --temperature --seed sample on the cores, the host\'s loop drawing the same tokens', () => {
  const sfw = join(work, 'sfw');
  const f = gen('firmware', '--platform', 'generic', int8, '-o', sfw, '--sampling');
  assert.is(f.code, 0, f.stderr);
  const tokensOf = (stdout: string): string => /^tokens: ([\d ]+)$/m.exec(stdout)![1];
  const draws = new Set<string>();
  for (const [temperature, seed] of [['0.8', '5'], ['2', '123456789']]) {
    const chip = gen('run', sfw, '--prompt-ids', '1,2', '--tokens', '5', '--temperature', temperature, '--seed', seed);
    assert.is(chip.code, 0, chip.stderr);
    assert.match(chip.stdout, new RegExp(`6 steps in the firmware's own loop \\(prompt 2 tokens, one step each, sampled on the cores \\(temperature ${temperature}, seed ${seed}\\)\\)`));
    const host = gen('run', sfw, '--prompt-ids', '1,2', '--tokens', '5', '--temperature', temperature, '--seed', seed, '--host-loop');
    assert.is(host.code, 0, host.stderr);
    assert.match(host.stdout, /new tokens: 5, cycles per token/);
    assert.is(tokensOf(chip.stdout), tokensOf(host.stdout), `T ${temperature}, seed ${seed}: the same tokens either way`);
    // The firmware without the sampler samples in the host's loop: the same tokens again.
    const plain = gen('run', fw, '--prompt-ids', '1,2', '--tokens', '5', '--temperature', temperature, '--seed', seed);
    assert.is(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /sampled in the host's loop: this firmware has no sampler/);
    assert.is(tokensOf(plain.stdout), tokensOf(chip.stdout));
    draws.add(tokensOf(chip.stdout));
  }
  assert.is(draws.size, 2, 'two temperatures and seeds, two draws');
  const greedy = gen('run', sfw, '--prompt-ids', '1,2', '--tokens', '5');
  const plainGreedy = gen('run', fw, '--prompt-ids', '1,2', '--tokens', '5');
  assert.is(greedy.code, 0, greedy.stderr);
  assert.is(tokensOf(greedy.stdout), tokensOf(plainGreedy.stdout), 'without --temperature: the argmax');
  for (const seed of ['-1', '1.5', 'x', '4294967296', '']) {
    oneLine(gen('run', sfw, '--prompt-ids', '1', '--tokens', '2', '--temperature', '1', '--seed', seed), /seed .*: expected a whole number from 0 to 4294967295/);
  }
  for (const t of ['0', 'hot', '']) oneLine(gen('run', sfw, '--prompt-ids', '1', '--tokens', '2', '--temperature', t), /temperature .*: expected a number > 0/);
  oneLine(gen('run', sfw, '--prompt-ids', '1', '--tokens', '2', '--seed', '3'), /--seed goes with --temperature/);
  const nope = join(work, 'nope');
  oneLine(gen('firmware', '--platform', 'spinnaker2', int8, '-o', nope, '--sampling'), /--sampling: this platform's generation loop chooses by argmax only/);
  assert.not.ok(existsSync(nope), 'nothing written');
});

test('--no-cache: a prompt graph recomputes its window per token; tokens equal the reference\'s', () => {
  const promptModel = join(work, 'prompt.onnx');
  const promptInt8 = join(work, 'prompt.int8.onnx');
  const pfw = join(work, 'pfw');
  writeFileSync(promptModel, floatLlama(S, 7, false).bytes());
  assert.is(gen('quantize', promptModel, '--calibration', cal, '-o', promptInt8).code, 0);
  assert.is(gen('firmware', '--platform', 'generic', promptInt8, '-o', pfw).code, 0);
  const r = gen('run', pfw, '--prompt-ids', '3,5,7', '--tokens', '5', '--no-cache');
  assert.is(r.code, 0, r.stderr);
  const got = /^tokens: ([\d ]+)$/m.exec(r.stdout)![1].trim().split(' ').map(Number);
  const g = loadOnnxFile(promptInt8);
  const seq = [3, 5, 7];
  for (let k = 0; k < 5; k++) {
    const window = ndarray('int32', [1, S.seq], [...seq, ...new Array(S.seq - seq.length).fill(0)]);
    seq.push(argmax(runReference(g, [window]).get('logits')!.data, (seq.length - 1) * S.vocab, S.vocab));
  }
  assert.equal(got, seq.slice(3));
  oneLine(gen('run', fw, '--prompt-ids', '1', '--tokens', '2', '--no-cache'), /--no-cache takes a prompt graph's firmware/);
  oneLine(gen('run', pfw, '--prompt-ids', '1', '--tokens', '2'), /no decoder step graph/);
  oneLine(gen('firmware', '--platform', 'generic', promptInt8, '-o', join(work, 'pnope'), '--sampling'), /--sampling takes a decoder step graph with the generation loop/);
  assert.not.ok(existsSync(join(work, 'pnope')), 'nothing written');
});

test('misuses of gen run --prompt are one line and exit 2', () => {
  oneLine(gen('run', fw, '--prompt-ids', '1,2', '--tokens', String(S.seq)), /exceed the firmware's context of 8/);
  oneLine(gen('run', fw, '--prompt-ids', `1,${S.vocab}`), new RegExp(`token ${S.vocab} is outside the vocabulary`));
  oneLine(gen('run', fw, '--prompt-ids', 'a,b'), /--prompt-ids a,b: expected token ids/);
  oneLine(gen('run', fw, '--prompt', 'ab'), /--prompt needs a tokenizer/);
  oneLine(gen('run', fw, '--prompt-ids', '1', '--tokens', '3', '--temperature', '-1', '--quant', join(work, 'step.int8.quant.json')), /temperature -1: expected a number > 0/);
  oneLine(gen('run', fw, '--prompt-ids', '1', '--on', 'host'), /--prompt runs in the emulator/);
  oneLine(gen('run', fw), /give --inputs <npz> \(or --prompt/);
  writeFileSync(join(work, 'bpe.json'), JSON.stringify({ kind: 'bpe' }));
  oneLine(gen('run', fw, '--prompt', 'ab', '--tokens', '2', '--tokenizer', join(work, 'bpe.json')), /tokenizer kind must be "char"/);
  oneLine(gen('run', fw, '--prompt', 'ab', '--tokens', '2', '--tokenizer', join(work, 'missing.json')), /cannot read the tokenizer/);
  const none = join(work, 'none.int8.onnx');
  oneLine(gen('quantize', step, '--calibration', cal, '-o', none, '--context', String(S.seq), '--heldout', join(work, 'missing.npz')), /missing\.npz: cannot read/);
  assert.not.ok(existsSync(none), 'nothing written after a bad --heldout');
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
