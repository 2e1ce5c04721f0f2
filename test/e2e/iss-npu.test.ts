/**
 * `gen run --on iss` on Siracusa with the chip's other devices: N-EUREKA (emulator/assembly/iss/npu.ts, driven by
 * runtime/c/siracusa/neureka_iss.c) and the HyperRAM DMA (iss/l3.ts, l3_iss.c). The NPU models with --engines
 * cluster+npu run bit-exact (the peer's outputs.npz) with their NPU layers computed by the device: each NPU layer's
 * cycles cover its jobs (the AS path's job cycles for the same registers) and stay within a small factor of the AS
 * path's figure for the layer, where the C functional model on core 0 cost hundreds of times more (measured before
 * the device: miniMobileNet Conv_2 374,823 and Conv_4 1,279,444 cycles against the AS path's 959 and 620). An L3
 * model (--l2 small) is exact and each L3 load layer sleeps exactly the AS path's copy cycles.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { STALL } from '../../runtime/node/iss.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('iss-npu');

/** ISS cycles of an NPU layer at most this many times the AS path's (measured: 0.99 .. 1.13 since the driver's
 * register accesses are inline and its code key calibrated; 2.4 .. 5.8 when the first NPU layers ran, its register
 * writes calls into the HAL file). The functional model on a core was 390 .. 2,100 times. */
const NPU_LAYER_FACTOR = 1.25;

for (const name of ['Models/miniMobileNet', 'Models/miniMobileNetv2']) {
  test(`${name} --engines cluster+npu: exact on the ISS, NPU layers timed by the device`, async () => {
    const f = integerFolders().find((x) => x.name === name)!;
    const out = join(dir, name.replace(/\W+/g, '-'));
    const g = generateFirmware({ model: f.model, platform: 'siracusa', out, sampleInputs: join(f.dir, 'inputs.npz'), engines: 'cluster+npu' });
    const inputs = arrays(join(f.dir, 'inputs.npz'));
    const iss = await runIss(out, inputs);
    const cmp = compareOutputs(g.manifest.outputs, iss.outputs, arrays(join(f.dir, 'outputs.npz')));
    assert.is(cmp.errors, 0, cmp.details.slice(0, 2).join('; '));
    const as = await runFirmware(out, inputs);
    const npuLayers = iss.layers.filter((l) => as.npu.some((j) => j.layer === l.layer));
    assert.ok(npuLayers.length > 0, 'the model has NPU layers');
    for (const l of npuLayers) {
      const asLayer = as.layers.find((x) => x.layer === l.layer)!;
      const jobs = as.npu.filter((j) => j.layer === l.layer).reduce((s, j) => s + (j.end - j.start), 0);
      assert.ok(l.cycles >= jobs, `${l.name}: ISS ${l.cycles} cycles cover the AS path's job cycles ${jobs}`);
      assert.ok(l.cycles <= NPU_LAYER_FACTOR * asLayer.cycles, `${l.name}: ISS ${l.cycles} within ${NPU_LAYER_FACTOR} x the AS path's ${asLayer.cycles}`);
      assert.ok((l.stalls?.[STALL.npu] ?? 0) <= jobs, `${l.name}: core 0 sleeps on the NPU at most its jobs' cycles`);
    }
    assert.ok(iss.stalls[STALL.npu] > 0, 'core 0 waited for a job');
    // The driver's register accesses are stores and loads inline at the device's address (firmgen_neureka.h
    // FG_NEUREKA_BASE, from the platform's device map): no call into the HAL file for each (docs/c-builds.md).
    const symbols = execFileSync('riscv64-unknown-elf-nm', [join(out, 'c', 'network_rv32_xpulp.elf')], { encoding: 'utf8' });
    assert.not.match(symbols, / hal_npu_(read|write)\n/, 'no out-of-line register access');
    assert.match(readFileSync(join(out, 'c', 'Makefile'), 'utf8'), /-DFG_NEUREKA_BASE=0x10201000u/);
  });
}

test('Models/CNN_Linear2 with 100000 bytes of L2: exact on the ISS, each L3 load sleeps the AS path\'s copy cycles', async () => {
  const f = integerFolders().find((x) => x.name === 'Models/CNN_Linear2')!;
  const out = join(dir, 'l3');
  const g = generateFirmware({ model: f.model, platform: 'siracusa', out, l2: 100000 });
  const inputs = arrays(join(f.dir, 'inputs.npz'));
  const iss = await runIss(out, inputs);
  const cmp = compareOutputs(g.manifest.outputs, iss.outputs, arrays(join(f.dir, 'outputs.npz')));
  assert.is(cmp.errors, 0, cmp.details.slice(0, 2).join('; '));
  const as = await runFirmware(out, inputs);
  assert.ok(as.l3.length > 0, 'the model copies from L3');
  const loads = iss.layers.filter((l) => as.l3.some((c) => c.layer === l.layer));
  assert.ok(loads.length > 0);
  for (const l of loads) {
    const copies = as.l3.filter((c) => c.layer === l.layer).reduce((s, c) => s + (c.end - c.start), 0);
    assert.is(l.stalls?.[STALL.dma], copies, `${l.name}: the HyperRAM DMA's cycles`);
    assert.ok(l.cycles >= copies && l.cycles < copies + 1000, `${l.name}: ISS ${l.cycles} = the copies ${copies} + the driver`);
  }
});

test.after(cleanup);
test.run();
