import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { integerSample } from '../../generator/quantize/report.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { runOrt } from '../helpers/ort-compare.js';
import { Rng } from '../helpers/random.js';

/*
 * A float Llama-style decoder (torch-export form, random weights) through `gen quantize` and `gen firmware`:
 *   - the float reference interpreter agrees with onnxruntime on the float model (its new float ops: Pow, Sqrt,
 *     Reciprocal, Sigmoid, Neg, ...), so calibration sees the model ORT would run;
 *   - the integer model stays close to the float one (logits SQNR, next-token agreement: measured 33 dB / all);
 *   - the firmware equals the reference of the integer model exactly on generic and siracusa (emulated), and the
 *     host C build of siracusa's.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-llama-'));
const S = SMALL_LLAMA;
const idsOf = (rng: Rng, n: number): NDArray => ndarray('int64', [n, S.seq], rng.ints(n * S.seq, 0, S.vocab - 1));
const bytes = floatLlama().bytes();
const float = loadOnnxBytes(bytes, 'llama.onnx');
const q = quantizeGraph(float, [idsOf(new Rng(5), 48)], 'cal.npz');
const sample = idsOf(new Rng(9), 1);

function sqnrDb(x: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0;
  let e = 0;
  for (let i = 0; i < x.length; i++) {
    s += x[i] ** 2;
    e += (x[i] - y[i]) ** 2;
  }
  return 10 * Math.log10(s / e);
}

test('the float reference runs the exported decoder as onnxruntime does', async () => {
  const ours = runReference(float, [sample]);
  const ort = await runOrt(bytes, float.inputs, [sample], false);
  float.outputs.forEach((o, i) => {
    const a = ours.get(o)!.data;
    let worst = 0;
    for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - ort[i].data[k]));
    assert.ok(worst < 1e-4, `${o}: ${worst} from onnxruntime`);
  });
});

test('the integer decoder tracks the float one (logits SQNR, next-token choice)', () => {
  const ints = runReference(q.intGraph, integerSample(q.intGraph, q.plan, [sample]));
  const floats = runReference(float, [sample]);
  const scale = q.plan.act.get('logits')!.scale;
  const logitsQ = Array.from(ints.get('logits')!.data, (v) => v * scale);
  const logitsF = floats.get('logits')!.data;
  const db = sqnrDb(logitsF, logitsQ);
  let agree = 0;
  for (let p = 0; p < S.seq; p++) {
    const row = (a: ArrayLike<number>): number => {
      let best = 0;
      for (let v = 1; v < S.vocab; v++) if (a[p * S.vocab + v] > a[p * S.vocab + best]) best = v;
      return best;
    };
    if (row(logitsF) === row(logitsQ)) agree++;
  }
  console.log(`  logits SQNR ${db.toFixed(1)} dB, next token agrees at ${agree} of ${S.seq} positions`);
  assert.ok(db > 25, `logits SQNR ${db.toFixed(1)} dB`);
  assert.ok(agree >= S.seq - 1, `next token agrees at ${agree} of ${S.seq}`);
  const ops = new Set(q.intGraph.nodes.map((n) => n.op));
  for (const op of ['iRMSNorm', 'iSoftmax', 'Gather', 'RequantShift']) assert.ok(ops.has(op), `no ${op} in the integer model`);
  assert.not.ok([...ops].some((op) => ['Pow', 'Sqrt', 'Sigmoid', 'Reciprocal', 'Neg', 'Div'].includes(op)), 'a float op left in the integer model');
});

test('the firmware runs the integer decoder exactly (generic, siracusa; siracusa host C)', async () => {
  const model = join(work, 'llama.int8.onnx');
  writeFileSync(model, encodeModel(q.intGraph, { opset: 13 }));
  const ints = integerSample(q.intGraph, q.plan, [sample]);
  const ref = runReference(q.intGraph, ints);
  const expected = q.intGraph.outputs.map((o) => ref.get(o)!);
  for (const platform of ['generic', 'siracusa']) {
    const out = join(work, platform);
    const { manifest, layers } = generateFirmware({ model, platform, out });
    assert.ok(layers.some((l) => l.kernel !== 'alias' && l.kernel.name === 'gather'), `${platform}: no run-time Gather`);
    const r = await runFirmware(out, ints);
    const c = compareOutputs(manifest.outputs, r.outputs, expected);
    assert.is(c.errors, 0, `${platform}: ${c.details.join('; ')}`);
    if (platform === 'siracusa') {
      const h = compareOutputs(manifest.outputs, runHostC(out, ints), expected);
      assert.is(h.errors, 0, `host C: ${h.details.join('; ')}`);
    }
  }
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
