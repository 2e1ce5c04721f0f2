/**
 * BrainScaleS-2 on every integer folder of the peer's vectors. The folders' products have signed inputs or more than
 * two dimensions, so they stay on the digital core and must equal outputs.npz exactly (platformSuite), all but
 * CNN_Linear1, whose classifier reads a ReLU's output and goes to the analog arrays: that folder equals the reference
 * of the analog model (the chip's values, not the int8 model's), and with --analog off equals outputs.npz.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { platformSuite } from './platform-suite.js';

const ANALOG = 'Models/CNN_Linear1';

platformSuite('brainscales2', (name) => name !== ANALOG);

const folder = integerFolders().find((f) => f.name === ANALOG);
const work = mkdtempSync(join(tmpdir(), 'firmgen-bss2-deeploy-'));

test(`${ANALOG}: the classifier on the arrays, equal to the analog reference; --analog off equals outputs.npz`, async () => {
  assert.ok(folder, 'the folder is there');
  const inputs = arrays(join(folder!.dir, 'inputs.npz'));
  const analog = generateFirmware({ model: folder!.model, platform: 'brainscales2', out: join(work, 'analog') });
  assert.is(analog.lowered.nodes.filter((n) => n.op === 'Bss2Matmul').length, 1);
  const ref = runReference(referenceGraph(analog.platform, analog.graph), inputs.slice(0, analog.graph.inputs.length));
  const r = await runFirmware(join(work, 'analog'), inputs.slice(0, analog.manifest.inputs.length));
  assert.equal(r.outputs.map((o) => Array.from(o.data)), analog.graph.outputs.map((o) => Array.from(ref.get(o)!.data)));
  const digital = generateFirmware({ model: folder!.model, platform: 'brainscales2', out: join(work, 'digital'), analog: 'off' });
  const d = await runFirmware(join(work, 'digital'), inputs.slice(0, digital.manifest.inputs.length));
  const expected = arrays(join(folder!.dir, 'outputs.npz'));
  const c = compareOutputs(digital.manifest.outputs, d.outputs, expected);
  assert.is(c.errors, 0, c.details.join('; '));
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
