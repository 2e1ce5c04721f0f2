import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { inRv32Sample } from '../helpers/rv32-sample.js';

/**
 * The C output is real: built with the host compiler against the host HAL, it gives the same outputs as the
 * emulated AssemblyScript and as outputs.npz, on every integer folder, Siracusa C. The folders of the rv32 sample
 * (the five Models among them) are checked by rv32.test.ts, against qemu as well; this file runs the others.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-hostc-'));
const all = integerFolders();
const folders = all.filter((f) => !inRv32Sample(f, all));

test('with the rv32 sample, every integer folder is run', () => {
  assert.is(all.length, 55);
  assert.is(all.filter((f) => inRv32Sample(f, all)).length + folders.length, 55);
});

for (const f of folders) {
  test(`host C = emulator = golden: ${f.name}`, async () => {
    const out = join(work, f.name.replace(/\//g, '_'));
    const { manifest } = generateFirmware({ model: f.model, platform: 'siracusa', out });
    const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length);
    const golden = arrays(join(f.dir, 'outputs.npz'));
    const host = runHostC(out, inputs);
    const emulated = (await runFirmware(out, inputs)).outputs;
    const vsGolden = compareOutputs(manifest.outputs, host, golden);
    assert.is(vsGolden.errors, 0, vsGolden.details.join('; '));
    const vsEmulator = compareOutputs(manifest.outputs, host, emulated);
    assert.is(vsEmulator.errors, 0, vsEmulator.details.join('; '));
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
