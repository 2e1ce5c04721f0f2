/**
 * The fashion-mlp example (issue 7's model: 784-512-256-16, quantized by firmgen) on SpiNNaker2: the emulated
 * firmware equals the reference interpreter exactly on the first 100 shipped test images, the host-built C on the
 * first 10, and the per-layer table from the DRAM time stamps has the three Gemm layers, each on the MLA of at least
 * one worker, adding up with setup and cleanup to the total.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { integerInputs, loadFashion, mismatches, quantizeFashion, referenceOutputs } from '../../examples/fashion-common.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { s2Table } from '../../runtime/node/spinnaker2-times.js';
import { repoRoot } from '../helpers/paths.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-s2-example-'));
const IMAGES = 100;

test('fashion-mlp on spinnaker2: exact on 100 images, and its per-layer table', async () => {
  const f = loadFashion(join(repoRoot, 'examples', 'fashion-mlp'), IMAGES);
  const { q, intModel } = quantizeFashion(f, work);
  const out = join(work, 'firmware');
  const { manifest } = generateFirmware({ model: intModel, platform: 'spinnaker2', out });
  assert.equal(manifest.layers.filter((l) => l.kernel === 's2-gemm').length, 3);
  const inputs = integerInputs(q, f.images);
  const ref = referenceOutputs(q, f.images);
  const emulated = [];
  let times;
  for (const x of inputs) {
    const r = await runFirmware(out, [x]);
    times ??= r.spinnaker2;
    emulated.push(r.outputs[0]);
  }
  assert.is(mismatches(emulated, ref), 0);
  const host = inputs.slice(0, 10).map((x) => runHostC(out, [x])[0]);
  assert.is(mismatches(host, ref.slice(0, 10)), 0);
  const t = s2Table(times!);
  assert.is(t.layers.length, 3);
  assert.ok(t.layers.every((l) => l.type === 'gemm' && l.workers >= 1 && l.overhead > 0));
  assert.is(t.setup + t.layers.reduce((s, l) => s + l.cycles, 0) + t.cleanup, t.total);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
