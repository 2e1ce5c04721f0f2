import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';

/*
 * Siracusa with N-EUREKA (issue: the NPU): the convolution and GEMM folders the engine can run match outputs.npz
 * exactly with the NPU forced on, weights in the neural memory and in L2, and the emulator's NPU did the work; the
 * five models still match with engine selection by cost and with the NPU wherever it can run.
 */
const KERNELS = [
  'Kernels/Integer/Conv/PW_2D', 'Kernels/Integer/Conv/PW_2D_RQ/Regular_RQ', 'Kernels/Integer/Conv/PW_2D_RQ/Unsigned_RQ',
  'Kernels/Integer/Conv/DW_2D_RQ', 'Kernels/Integer/Conv/DW_3x3', 'Kernels/Integer/Conv/DW_3x3_RQ',
  'Kernels/Integer/Conv/Regular_3x3', 'Kernels/Integer/Conv/Regular_3x3_RQ',
  'Kernels/Integer/GEMM/Regular_RQPerColumn', 'Kernels/Integer/GEMM/Batch_RQ',
];
const folders = integerFolders();
const work = mkdtempSync(join(tmpdir(), 'firmgen-npu-'));

async function runCase(name: string, engines: 'npu' | 'cluster+npu', weightsIn: 'nms' | 'l2'): Promise<{ npuLayers: number; npuJobs: number }> {
  const f = folders.find((x) => x.name === name);
  if (!f) throw new Error(`no folder ${name}`);
  const out = join(work, `${name.replace(/\//g, '_')}_${engines}_${weightsIn}`);
  const { manifest } = generateFirmware({ model: f.model, platform: 'siracusa', out, engines, weightsIn });
  const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length);
  const expected = arrays(join(f.dir, 'outputs.npz'));
  const r = await runFirmware(out, inputs);
  const c = compareOutputs(manifest.outputs, r.outputs, expected);
  assert.is(c.errors, 0, c.details.join('; '));
  assert.is(c.total, expected.reduce((n, e) => n + e.data.length, 0));
  for (const l of manifest.layers) {
    if (l.engine !== 'none') assert.ok(l.engineNote === undefined || /^(npu|cluster): /.test(l.engineNote), l.engineNote);
  }
  // Utilisation never exceeds its peak: NPU layers against the engine's, the whole run against cluster + NPU.
  for (const l of r.profile.layers) if (l.utilisation !== null) assert.ok(l.utilisation > 0 && l.utilisation <= 1, `${l.name}: ${l.utilisation}`);
  assert.ok(r.profile.total.utilisation !== null && r.profile.total.utilisation <= 1, `total ${r.profile.total.utilisation}`);
  if (r.npu.length > 0) assert.is(r.profile.totalPeakMacsPerCycle, r.profile.peakMacsPerCycle + 1134);
  return {
    npuLayers: manifest.layers.filter((l) => l.engine === 'npu').length,
    npuJobs: r.profile.layers.reduce((n, l) => n + (l.npuJobs ?? 0), 0),
  };
}

for (const name of KERNELS) {
  for (const weightsIn of ['nms', 'l2'] as const) {
    test(`${name}: NPU, weights in ${weightsIn}`, async () => {
      const r = await runCase(name, 'npu', weightsIn);
      assert.is(r.npuLayers, 1, 'one layer on the NPU');
      assert.ok(r.npuJobs >= 1, 'the profile shows NPU jobs');
    });
  }
}

for (const f of folders.filter((x) => x.name.startsWith('Models/'))) {
  for (const engines of ['cluster+npu', 'npu'] as const) {
    test(`${f.name}: ${engines}`, async () => {
      const r = await runCase(f.name, engines, 'nms');
      if (engines === 'npu') assert.ok(r.npuLayers > 0, 'some layers run on the NPU');
    });
  }
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
