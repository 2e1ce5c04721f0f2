/**
 * Tiled window ops on the chip: the sweep of helpers/window-cases.ts (every kernel 1..3, stride 1..3, dilation 1..2
 * and pads 0..2 per side along the tiled axis, paired with another geometry along the other) for conv, depthwise
 * conv and max-pool, one model per run so one build covers hundreds of layers. Siracusa with L1s small enough that
 * most layers split into row and channel tiles, double and single buffered, emulated; host C on a subset (the
 * emulator's DMA lands data only at the wait, host C copies at once: a buffer overwritten early shows there);
 * generic and spinnaker2 on a subset. Every output must equal the reference interpreter's exactly.
 * (test/midend/window-tiles.test.ts checks every tile split of every geometry in the planner.)
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware, type FirmwareOptions } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { windowIndices, windowModel, type WindowModel, type WindowOp } from '../helpers/window-cases.js';

const { dir, cleanup } = workDir('window-sweep');
const ALL: WindowOp[] = ['conv', 'depthwise', 'maxpool'];

interface Sweep {
  name: string;
  model: WindowModel;
  platform: string;
  options?: Partial<FirmwareOptions>;
  hostC?: boolean;
}

/** Builds and runs one sweep model; returns how many window layers were split along rows (axis 2) and channels. */
async function runSweep(s: Sweep): Promise<{ rows: number; channels: number }> {
  const { model, sample, expected } = writeCase(join(dir, s.name), s.model);
  const out = join(dir, s.name, 'out');
  const g = generateFirmware({ model, sampleInputs: sample, platform: s.platform, out, ...s.options });
  const run = await runFirmware(out, s.model.inputs);
  const emu = compareOutputs(g.manifest.outputs, run.outputs, expected);
  assert.is(emu.errors, 0, `${s.name} emulated: ${emu.details.join('; ')}`);
  if (s.hostC) {
    const host = compareOutputs(g.manifest.outputs, runHostC(out, s.model.inputs), expected);
    assert.is(host.errors, 0, `${s.name} host C: ${host.details.join('; ')}`);
  }
  const splitAlong = (axis: number): number => g.manifest.layers.filter((l) => l.tiling?.axes.some((a, i) => a === axis && l.tiling!.counts[i] > 1)).length;
  return { rows: splitAlong(2), channels: splitAlong(1) };
}

test('siracusa 2-D, L1 300 double-buffered: every geometry exact, most layers in row and channel tiles', async () => {
  const m = windowModel(ALL, windowIndices(), { seed: 5 });
  const split = await runSweep({ name: 'd2-300', model: m, platform: 'siracusa', options: { l1: 300 } });
  assert.ok(split.rows >= 100 && split.channels >= 100, JSON.stringify(split));
});

test('siracusa 1-D, L1 100 single-buffered: every geometry exact, in length and channel tiles', async () => {
  const m = windowModel(ALL, windowIndices(), { oneD: true, seed: 6 });
  // Planned without the cold code of a further tile shape (CODE_SHAPE): with it the planner splits these short rows
  // less (19 layers in length tiles, not 200: each clipped edge tile is a shape of its own), and the sweep is for them.
  const split = await runSweep({ name: 'd1-100', model: m, platform: 'siracusa', options: { l1: 100, buffering: 'single', planCosts: { CODE_SHAPE: 0 } } });
  assert.ok(split.rows >= 200 && split.channels >= 20, JSON.stringify(split));
});

test('siracusa 2-D subset, L1 280 double-buffered: emulated and host C exact', async () => {
  const m = windowModel(ALL, windowIndices(6, 1), { seed: 7 });
  const split = await runSweep({ name: 'd2-280-c', model: m, platform: 'siracusa', options: { l1: 280 }, hostC: true });
  assert.ok(split.rows >= 20 && split.channels >= 20, JSON.stringify(split));
});

for (const platform of ['generic', 'spinnaker2']) {
  test(`${platform} 2-D subset: exact`, async () => {
    await runSweep({ name: `${platform}-2d`, model: windowModel(ALL, windowIndices(6, 3), { seed: 8 }), platform });
  });
}

test.after(cleanup);
test.run();
