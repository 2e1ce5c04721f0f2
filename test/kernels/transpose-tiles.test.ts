/**
 * Transpose is tiled on Siracusa (midend/tiling/specs.ts): each output tile's input box is the same box with its axes
 * put back, moved by the cluster DMA, transposed by the cores in L1. Exact against the reference interpreter with
 * tiles along every axis, emulated and host C; and faster than the same transpose on L2, where every element pays
 * L2's latency twice (docs/timing.md "L2 from the cluster"), as long as the tiles are not so small that the tile loop's
 * own work (CALL, about a thousand cycles a tile, measured) outweighs it: L1 budgets of a few tiles.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const cases: { shape: number[]; perm: number[]; l1: number }[] = [
  { shape: [2, 24, 40], perm: [2, 0, 1], l1: 1200 },
  { shape: [1, 16, 12, 20], perm: [0, 2, 3, 1], l1: 2600 },
  { shape: [30, 50], perm: [1, 0], l1: 1800 },
];

for (const c of cases) {
  test(`Transpose ${c.shape.join('x')} perm [${c.perm.join(', ')}] in tiles of L1 ${c.l1}: exact, faster than on L2`, async () => {
    const { dir, cleanup } = workDir('transpose-tiles');
    try {
      const n = c.shape.reduce((a, b) => a * b, 1);
      const x = { shape: c.shape, dtype: 'int8' as const, data: Float64Array.from(new Rng(n).ints(n, -128, 127)) };
      const { model, sample, expected: want } = writeCase(dir, {
        builder: new OnnxBuilder('transpose').input('x', 'int8', c.shape).node('Transpose', ['x'], ['y'], { perm: c.perm }).output('y', 'int8'),
        inputs: [x],
      });

      const tiled = generateFirmware({ model, platform: 'siracusa', out: join(dir, 'tiled'), sampleInputs: sample, l1: c.l1 });
      const layer = tiled.manifest.layers.find((l) => l.op === 'Transpose')!;
      assert.ok(layer.tiling && layer.tiling.tiles > 1, `tiled into ${layer.tiling?.tiles} tiles`);
      const run = await runFirmware(join(dir, 'tiled'), [x]);
      const emu = compareOutputs(tiled.manifest.outputs, run.outputs, want);
      assert.is(emu.errors, 0, emu.details.join('; '));
      assert.ok(run.dma.length >= 2 * layer.tiling.tiles, 'every tile moved in and out by the DMA');
      const host = compareOutputs(tiled.manifest.outputs, runHostC(join(dir, 'tiled'), [x]), want);
      assert.is(host.errors, 0, host.details.join('; '));

      generateFirmware({ model, platform: 'siracusa', out: join(dir, 'l2'), sampleInputs: sample, untiled: true });
      const onL2 = await runFirmware(join(dir, 'l2'), [x]);
      assert.equal(Array.from(onL2.outputs[0].data), Array.from(want[0].data));
      assert.ok(run.cycles < onL2.cycles, `tiled ${run.cycles} < on L2 ${onL2.cycles}`);
    } finally {
      cleanup();
    }
  });
}

test.run();
