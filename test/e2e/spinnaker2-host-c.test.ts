/**
 * SpiNNaker2's C firmware: every deeploy-tests folder the platform runs and a two-layer MLP on 3 PEs (more tiles than workers), built
 * with the host compiler against the host HAL (runtime/c/spinnaker2/host), match outputs.npz / the reference exactly;
 * and the firmware, C and AS, is byte for byte the same for every model: the model is only in memory/dram.bin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';
import { mlpCase } from '../helpers/s2-model.js';
import { s2Supported } from './spinnaker2-folders.js';

const { dir, cleanup } = workDir('s2-host-c');
const folders = integerFolders().filter((f) => s2Supported(f.name));

for (const f of folders) {
  test(f.name, () => {
    const out = join(dir, f.name.replace(/\//g, '_'));
    const { manifest } = generateFirmware({ model: f.model, platform: 'spinnaker2', out });
    const c = compareOutputs(manifest.outputs, runHostC(out, arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length)),
      arrays(join(f.dir, 'outputs.npz')));
    assert.is(c.errors, 0, c.details.join('; '));
  });
}

test('an MLP on 3 PEs', () => {
  const m = mlpCase(join(dir, 'mlp'), { rows: 3, sizes: [300, 500, 20], seed: 3 });
  const out = join(dir, 'mlp-out');
  const { manifest } = generateFirmware({ model: m.model, platform: 'spinnaker2', out, sampleInputs: m.sample, pes: 3 });
  const c = compareOutputs(manifest.outputs, runHostC(out, m.inputs), m.expected);
  assert.is(c.errors, 0, c.details.join('; '));
});

function sources(out: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const sub of ['as', 'c']) {
    for (const e of readdirSync(join(out, sub), { withFileTypes: true, recursive: true })) {
      if (e.isFile() && /\.(ts|c|h)$|Makefile$/.test(e.name)) {
        const path = join(e.parentPath, e.name);
        files.set(relative(out, path), readFileSync(path, 'utf8'));
      }
    }
  }
  return files;
}

test('the firmware is the same for every model', () => {
  const a = sources(join(dir, folders[0].name.replace(/\//g, '_')));
  const b = sources(join(dir, 'mlp-out'));
  assert.ok(a.size > 10);
  assert.equal([...a.keys()].sort(), [...b.keys()].sort());
  for (const [k, v] of a) assert.ok(v === b.get(k), `${k} differs between two models`);
});

test.after(cleanup);
test.run();
