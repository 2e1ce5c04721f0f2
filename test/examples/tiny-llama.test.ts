import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readNpz } from '../../generator/onnx/npy.js';
import { onnx } from '../../generator/onnx/proto.js';
import { repoRoot } from '../helpers/paths.js';

/*
 * The shipped tiny Llama example (examples/tiny-llama, trained and exported by its Python scripts, not run here):
 * the files hold the contract the transformer quantizer builds on (tokenizer format, graph input/output names,
 * types and shapes, calibration arrays), and both graphs run in onnxruntime-node give torch's logits
 * (reference.json, written by export.py from the torch model) on a prompt and 5 cached steps, the caches fed back
 * from the graphs' own outputs.
 */

const dir = join(repoRoot, 'examples', 'tiny-llama');
const LAYERS = 8;
const HEADS = 16;
const HEAD_DIM = 4;
const P = 16;

interface Tokenizer { kind: string; vocab: string[]; unk: number }
const tokenizer = JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as Tokenizer;
const V = tokenizer.vocab.length;

interface Reference {
  prompt_ids: number[]; step_ids: number[]; prompt_logits: number[]; step_logits: number[]; vocab: number; tolerance: number;
}
const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference;

const kvNames = (prefix: string) => Array.from({ length: LAYERS }, (_, i) => [`${prefix}.${i}.key`, `${prefix}.${i}.value`]).flat();

interface Port { name: string; type: number; dims: (number | string)[] }
function ports(file: string): { inputs: Port[]; outputs: Port[] } {
  const model = onnx().ModelProto.decode(readFileSync(join(dir, file)));
  const inits = new Set((model.graph?.initializer ?? []).map((t) => t.name));
  const port = (v: onnxProto.onnx.IValueInfoProto): Port => ({
    name: v.name ?? '',
    type: v.type?.tensorType?.elemType ?? 0,
    dims: (v.type?.tensorType?.shape?.dim ?? []).map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue))),
  });
  return {
    inputs: (model.graph?.input ?? []).filter((v) => !inits.has(v.name ?? '')).map(port),
    outputs: (model.graph?.output ?? []).map(port),
  };
}

const INT64 = 7;
const FLOAT = 1;

test('tokenizer.json: char kind, at most 128 symbols, one character each but the unknown symbol', () => {
  assert.is(tokenizer.kind, 'char');
  assert.ok(V <= 128 && V > 1, `${V} symbols`);
  assert.ok(Number.isInteger(tokenizer.unk) && tokenizer.unk >= 0 && tokenizer.unk < V, `unk ${tokenizer.unk}`);
  tokenizer.vocab.forEach((s, i) => { if (i !== tokenizer.unk) assert.is([...s].length, 1, `vocab[${i}] = ${JSON.stringify(s)}`); });
  assert.is(new Set(tokenizer.vocab).size, V, 'no symbol twice');
  assert.is(reference.vocab, V, 'reference.json was made with this vocabulary');
});

test('prompt.onnx: input_ids int64 [1, 16]; logits [1, 16, V]; present.{i}.key/value [1, 16, 16, 4]', () => {
  const { inputs, outputs } = ports('prompt.onnx');
  assert.equal(inputs, [{ name: 'input_ids', type: INT64, dims: [1, P] }]);
  assert.equal(outputs, [
    { name: 'logits', type: FLOAT, dims: [1, P, V] },
    ...kvNames('present').map((name) => ({ name, type: FLOAT, dims: [1, HEADS, P, HEAD_DIM] })),
  ]);
});

test('step.onnx: input_ids [1, 1], position [1], past [1, 16, past_len, 4] -> logits [1, 1, V], present [.., present_len, ..]', () => {
  const { inputs, outputs } = ports('step.onnx');
  assert.equal(inputs, [
    { name: 'input_ids', type: INT64, dims: [1, 1] },
    { name: 'position', type: INT64, dims: [1] },
    ...kvNames('past').map((name) => ({ name, type: FLOAT, dims: [1, HEADS, 'past_len', HEAD_DIM] })),
  ]);
  assert.equal(outputs, [
    { name: 'logits', type: FLOAT, dims: [1, 1, V] },
    ...kvNames('present').map((name) => ({ name, type: FLOAT, dims: [1, HEADS, 'present_len', HEAD_DIM] })),
  ]);
});

test('calibration files: arrays in graph-input order, int64 ids of the vocabulary, caches of the prompt length', () => {
  const prompt = readNpz(join(dir, 'calibration.npz'));
  assert.equal([...prompt.keys()], ['input_ids']);
  const ids = prompt.get('input_ids')!;
  assert.is(ids.dtype, 'int64');
  assert.is(ids.shape.length, 2);
  assert.is(ids.shape[1], P);
  assert.ok(ids.data.every((v) => v >= 0 && v < V));
  const step = readNpz(join(dir, 'calibration-step.npz'));
  assert.equal([...step.keys()], ['input_ids', 'position', ...kvNames('past')]);
  const n = step.get('input_ids')!.shape[0];
  assert.equal(step.get('input_ids')!.shape, [n, 1]);
  assert.equal(step.get('position')!.shape, [n]);
  assert.ok(step.get('position')!.data.every((v) => v === P));
  for (const name of kvNames('past')) assert.equal(step.get(name)!.shape, [n, HEADS, P, HEAD_DIM], name);
});

const ids = (list: number[]) => new ort.Tensor('int64', BigInt64Array.from(list, (v) => BigInt(v)), [1, list.length]);

function maxDiff(got: ArrayLike<number>, want: number[]): number {
  assert.is(got.length, want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return worst;
}

test('onnxruntime-node runs the prompt and 5 cached steps with torch\'s logits (within 1e-4)', async () => {
  const options: ort.InferenceSession.SessionOptions = { graphOptimizationLevel: 'disabled', intraOpNumThreads: 1 };
  const prompt = await ort.InferenceSession.create(join(dir, 'prompt.onnx'), options);
  const step = await ort.InferenceSession.create(join(dir, 'step.onnx'), options);
  const p = reference.prompt_ids.length;
  let out = await prompt.run({ input_ids: ids(reference.prompt_ids) });
  let worst = maxDiff(out.logits.data as Float32Array, reference.prompt_logits);
  const feedBack = (o: ort.InferenceSession.OnnxValueMapType) =>
    Object.fromEntries(kvNames('present').map((n) => [n.replace('present.', 'past.'), o[n]]));
  for (let s = 0; s < reference.step_ids.length; s++) {
    const position = new ort.Tensor('int64', BigInt64Array.from([BigInt(p + s)]), [1]);
    out = await step.run({ input_ids: ids([reference.step_ids[s]]), position, ...feedBack(out) });
    worst = Math.max(worst, maxDiff(out.logits.data as Float32Array, reference.step_logits.slice(s * V, (s + 1) * V)));
    for (const n of kvNames('present')) assert.equal(out[n].dims, [1, HEADS, p + s + 1, HEAD_DIM], `step ${s}: ${n}`);
  }
  await prompt.release();
  await step.release();
  console.log(`  tiny-llama: onnxruntime-node vs torch, prompt of ${p} + ${reference.step_ids.length} steps: max abs logit difference ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-4, `max abs difference ${worst}`);
});

test.run();
