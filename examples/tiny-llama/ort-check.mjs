// Runs prompt.onnx and step.onnx in onnxruntime-node (the project's golden runtime) on the prompt and the 5 greedy
// steps export.py recorded in reference.json, feeding each step the caches ORT itself produced, and
// compares the logits with torch's: max abs difference printed, exit 1 above 1e-4.
//   node examples/tiny-llama/ort-check.mjs [dir]        (after python3 export.py)
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? here; // where prompt.onnx, step.onnx and reference.json are (default: beside this script)
const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
const TOLERANCE = 1e-4;
const options = { graphOptimizationLevel: 'disabled' };
const prompt = await ort.InferenceSession.create(join(dir, 'prompt.onnx'), options);
const step = await ort.InferenceSession.create(join(dir, 'step.onnx'), options);
const ids = (list) => new ort.Tensor('int64', BigInt64Array.from(list.map(BigInt)), [1, list.length]);

function maxDiff(got, want) {
  if (got.length !== want.length) throw new Error(`logits have ${got.length} values, torch ${want.length}`);
  let worst = 0;
  for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  return worst;
}

const p = ref.prompt_ids.length;
let out = await prompt.run({ input_ids: ids(ref.prompt_ids) });
let worst = maxDiff(out.logits.data, ref.prompt_logits);
const kv = (o) => Object.fromEntries(Object.keys(o).filter((k) => k.startsWith('present.')).map((k) => [k.replace('present.', 'past.'), o[k]]));
let past = kv(out);
for (let s = 0; s < ref.step_ids.length; s++) {
  const position = new ort.Tensor('int64', BigInt64Array.from([BigInt(p + s)]), [1]);
  out = await step.run({ input_ids: ids([ref.step_ids[s]]), position, ...past });
  worst = Math.max(worst, maxDiff(out.logits.data, ref.step_logits.slice(s * ref.vocab, (s + 1) * ref.vocab)));
  const dims = out['present.0.key'].dims;
  if (dims[2] !== p + s + 1) throw new Error(`step ${s}: present.0.key has length ${dims[2]}, expected ${p + s + 1}`);
  past = kv(out);
}
console.log(`onnxruntime-node ${ort.env.versions?.common ?? ''} vs torch, prompt of ${p} + ${ref.step_ids.length} steps: max abs logit difference ${worst.toExponential(3)}`);
if (!(worst < TOLERANCE)) {
  console.error(`ort-check: the ONNX graphs differ from torch by ${worst} (> ${TOLERANCE})`);
  process.exit(1);
}
