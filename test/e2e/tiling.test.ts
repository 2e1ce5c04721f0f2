import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';

/**
 * Siracusa with small L1s (the sizes the memory-planning issue lists), single and double buffering: every
 * configuration tiles, moves tiles by DMA (whose data lands only at the wait, so a missing wait shows) and still
 * matches outputs.npz exactly.
 */
const MATRIX: Record<string, number[]> = {
  'Kernels/Integer/Conv/Regular_2D_RQ': [8000, 6000, 4000],
  'Kernels/Integer/Conv/DW_2D_RQ': [5121, 2561],
  'Kernels/Integer/Conv/StriddedPadded_2D_RQ': [600],
  'Kernels/Integer/MatMul/Regular': [64000, 32000, 16000],
  'Kernels/Integer/RMSNorm': [4096, 2048, 1024],
  'Kernels/Integer/Softmax/Regular': [1600, 800, 500],
  'Kernels/Integer/Hardswish/Regular_RQ': [800],
  'Kernels/Integer/Concat': [64000, 32000, 16000],
  'Kernels/Integer/GEMM/Batch_RQ': [20000],
  // Square tiles of GEMMs with a per-row requantization: two 32x32 column tiles of a 32x64 output, and the last of
  // 7-row tiles of a 32x4 output (4x4): a per-row parameter must not be read as the per-channel (C,1) form there.
  'Kernels/Integer/GEMM/Regular_RQPerRow': [8900],
  'Kernels/Integer/GEMM/TransB_RQ': [2500],
  'Models/CNN_Linear2': [60000, 45000, 30000, 15000],
  'Models/miniMobileNet': [60000, 24000, 12000, 6000, 3000],
  'Models/miniMobileNetv2': [60000, 32000, 16000, 8000],
  'Kernels/Integer/Attention': [60000, 20000, 10000, 5000],
};

const work = mkdtempSync(join(tmpdir(), 'firmgen-tiling-'));
const folders = new Map(integerFolders().map((f) => [f.name, f]));

test('every folder of the matrix exists', () => {
  for (const name of Object.keys(MATRIX)) assert.ok(folders.has(name), name);
});

for (const [name, sizes] of Object.entries(MATRIX)) {
  for (const l1 of sizes) {
    for (const buffering of ['single', 'double'] as const) {
      test(`${name} L1 ${l1} ${buffering}`, async () => {
        const f = folders.get(name)!;
        const out = join(work, `${name.replace(/\//g, '_')}_${l1}_${buffering}`);
        const r = generateFirmware({ model: f.model, platform: 'siracusa', out, l1, buffering });
        assert.ok(r.tiling && r.tiling.l1Peak <= l1, `tile buffers fit: ${r.tiling?.l1Peak} <= ${l1}`);
        const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, r.manifest.inputs.length);
        const run = await runFirmware(out, inputs);
        const c = compareOutputs(r.manifest.outputs, run.outputs, arrays(join(f.dir, 'outputs.npz')));
        assert.is(c.errors, 0, c.details.join('; '));
        if (r.tiling!.layers.size > 0) assert.ok(run.dma.length > 0, 'tiles moved by DMA');
        rmSync(out, { recursive: true, force: true });
      });
    }
  }
}

test('a model whose smallest tile does not fit names the tensor, L1, and both byte counts', () => {
  const f = folders.get('Models/CNN_Linear2')!;
  assert.throws(
    () => generateFirmware({ model: f.model, platform: 'siracusa', out: join(work, 'too-small'), l1: 300 }),
    (e: Error) => /tensor 'input': the smallest tile needs \d+ bytes of L1 .* 300 bytes are available/.test(e.message),
  );
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
