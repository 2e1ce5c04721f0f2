/**
 * BrainScaleS-2 on every integer folder of the peer's vectors. A folder whose products all stay on the digital core
 * (signed inputs, batched products, ...) equals outputs.npz exactly. A folder with layers on the analog arrays (a
 * product or convolution reading a non-negative activation) gives the chip's values, not the int8 model's: it equals
 * the reference of the lowered graph with the analog model (temporal noise on, seeded), and with --analog off it
 * equals outputs.npz.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';

const s = suite('e2e brainscales2');
const work = mkdtempSync(join(tmpdir(), 'firmgen-e2e-bss2-'));
const folders = integerFolders();
const analogFolders: string[] = [];

s('finds the 55 integer folders', () => {
  assert.is(folders.length, 55);
});

for (const f of folders) {
  s(f.name, async () => {
    const out = join(work, f.name.replace(/\//g, '_'));
    const c = generateFirmware({ model: f.model, platform: 'brainscales2', out });
    const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, c.manifest.inputs.length);
    const expected = arrays(join(f.dir, 'outputs.npz'));
    const r = await runFirmware(out, inputs);
    assert.ok(r.cycles > 0, 'cycles are counted');
    const analog = c.lowered.nodes.filter((n) => n.op === 'Bss2Matmul').length;
    if (analog === 0) {
      const cmp = compareOutputs(c.manifest.outputs, r.outputs, expected);
      assert.is(cmp.errors, 0, cmp.details.join('; '));
      assert.is(cmp.total, expected.reduce((n, e) => n + e.data.length, 0));
      return;
    }
    analogFolders.push(f.name);
    const ref = runReference(referenceGraph(c.platform, c.graph), inputs);
    assert.equal(r.outputs.map((o) => Array.from(o.data)), c.graph.outputs.map((o) => Array.from(ref.get(o)!.data)));
    const digital = generateFirmware({ model: f.model, platform: 'brainscales2', out: `${out}_digital`, analog: 'off' });
    const d = await runFirmware(`${out}_digital`, inputs);
    const cmp = compareOutputs(digital.manifest.outputs, d.outputs, expected);
    assert.is(cmp.errors, 0, cmp.details.join('; '));
  });
}

s('some folders have analog layers (convolutions and products after a ReLU)', () => {
  assert.ok(analogFolders.length >= 5, analogFolders.join(', '));
  console.log(`analog layers in: ${analogFolders.join(', ')}`);
});

s.after(() => rmSync(work, { recursive: true, force: true }));
s.run();
