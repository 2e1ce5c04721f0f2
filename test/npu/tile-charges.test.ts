import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { runFirmware } from '../../runtime/node/run.js';
import { float, OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * The N-EUREKA tile loop's core work (docs/neureka.md "Tile loop"): NPU_JOB and NPU_TILE once for every tile after
 * the first, none for a layer of one tile.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-npu-tiles-'));
const unitsOf = (units: number[], c: (typeof COST_CLASSES)[number]): number => units[COST_CLASSES.indexOf(c)];

/** A 1x1 conv c -> c on hw x hw with per-channel requantization on the cores (int32 write-backs), on the NPU. */
async function run(c: number, hw: number, name: string): Promise<{ tiles: number; units: number[] }> {
  const rng = new Rng(c * 131 + hw);
  const b = new OnnxBuilder('npu-tiles');
  b.input('x', 'uint8', [1, c, hw, hw]);
  b.initializer('w', 'int8', [c, c, 1, 1], rng.ints(c * c, -128, 127));
  b.initializer('bias', 'int32', [c], rng.ints(c, -4000, 4000));
  b.node('Conv', ['x', 'w', 'bias'], ['p'], { kernel_shape: [1, 1], pads: [0, 0, 0, 0], strides: [1, 1], group: 1 });
  b.initializer('y_mul', 'int32', [1, c, 1, 1], rng.ints(c, 8000, 20000));
  b.initializer('y_add', 'int32', [1], [1 << 21]);
  b.node('RequantShift', ['p', 'y_mul', 'y_add'], ['y'], { div: float(2 ** 22), n_levels: float(256), signed: float(0) });
  b.output('y', 'float32');
  const model = join(work, `${name}.onnx`);
  writeFileSync(model, b.bytes());
  const out = join(work, name);
  const { manifest } = generateFirmware({ model, platform: 'siracusa', out, engines: 'cluster+npu' });
  const npu = manifest.layers.filter((l) => l.kernel === 'neureka');
  assert.is(npu.length, 1, 'one layer on the NPU');
  const as = await runFirmware(out, [ndarray('uint8', [1, c, hw, hw], rng.ints(c * hw * hw, 0, 255))]);
  return { tiles: npu[0].tiling?.tiles ?? 1, units: as.units };
}

test('a layer of several tiles: NPU_JOB and NPU_TILE once a tile after the first', async () => {
  const { tiles, units } = await run(32, 24, 'several');
  assert.ok(tiles > 2, `several tiles (${tiles})`);
  assert.is(unitsOf(units, 'NPU_JOB'), tiles - 1);
  assert.is(unitsOf(units, 'NPU_TILE'), tiles - 1);
});

test('a layer of one tile: neither', async () => {
  const { tiles, units } = await run(64, 6, 'one');
  assert.is(tiles, 1);
  assert.is(unitsOf(units, 'NPU_JOB'), 0);
  assert.is(unitsOf(units, 'NPU_TILE'), 0);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
