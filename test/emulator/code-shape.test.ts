/**
 * A tiled layer's further tile shapes (each its own kernel function) are fetched cold once per core of a team
 * (CODE_SHAPE, runtime/as/cluster.ts), not per tile, not for the first shape, and not on a team of one (the
 * class's stated assumption, runtime/as/cost.ts). Measured by moving CODE_SHAPE alone: the AS cycles grow by that much
 * for each further shape of the plan (the planner's instances), and by nothing where there is one shape or one core.
 * Likewise the tile loop's code for the tiles after the first (CODE_NEXT): once per layer of several tiles, on any
 * team, and never in a layer of one tile. And the tile loop's shared code (CODE_TILES) as far as it was evicted, and
 * a run's first layer's cold start (CODE_RUN) once a run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { platformByName } from '../../generator/platforms/index.js';
import { COST_CLASSES, type CostClass } from '../../generator/platforms/types.js';
import { runFirmware } from '../../runtime/node/run.js';
import { DEEPLOY } from '../helpers/deeploy.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-code-shape-'));
const folder = join(DEEPLOY, 'Kernels', 'Integer', 'Conv', 'Regular_3x3_RQ');
const inputs = [...readNpz(join(folder, 'inputs.npz')).values()];
const base = platformByName('siracusa').costs;
/** Large beside the layer's cycles, so that no DMA wait can hide it. */
const MOVED = 1_000_000;

/** The AS cycles with class `cls` at `value`, the rest the platform's table. */
async function cyclesWith(out: string, cls: CostClass, value: number): Promise<number> {
  const costs = COST_CLASSES.map((c) => (c === cls ? value : base[c]));
  return (await runFirmware(out, inputs, { costs })).cycles;
}

/** The one tiled layer of the conv at `l1` (the target's default when undefined) on `cores`. */
function tiledLayer(out: string, l1: number | undefined, cores: number) {
  const { manifest } = generateFirmware({ model: join(folder, 'network.onnx'), platform: 'siracusa', out, l1, cores });
  const tiled = manifest.layers.filter((l) => l.tiling);
  assert.is(tiled.length, 1);
  return tiled[0].tiling!;
}

for (const [name, l1, cores] of [['three shapes, 8 cores', 3000, 8], ['three shapes, one core', 3000, 1], ['one shape, 8 cores', undefined, 8]] as const) {
  test(`${name}: CODE_SHAPE charged once per core and further shape, on a team only`, async () => {
    const out = join(work, `${l1 ?? 'default'}-${cores}`);
    const { tiles, instances } = tiledLayer(out, l1, cores);
    if (l1 !== undefined) assert.ok(instances === 3 && tiles > instances, `${tiles} tiles of ${instances} shapes`);
    else assert.is(instances, 1);
    const grown = (await cyclesWith(out, 'CODE_SHAPE', MOVED)) - (await cyclesWith(out, 'CODE_SHAPE', 0));
    // Every core of the team meets each further shape in the same phase: the phase's end moves by one charge.
    assert.is(grown, cores > 1 ? (instances - 1) * MOVED : 0);
  });
}

for (const [name, l1, cores] of [['several tiles, 8 cores', 3000, 8], ['several tiles, one core', 3000, 1], ['one tile, 8 cores', undefined, 8]] as const) {
  test(`${name}: CODE_NEXT charged once in a layer of several tiles, on core 0`, async () => {
    const out = join(work, `next-${l1 ?? 'default'}-${cores}`);
    const { tiles } = tiledLayer(out, l1, cores);
    assert.ok(l1 === undefined ? tiles === 1 : tiles > 2, `${tiles} tiles`);
    const grown = (await cyclesWith(out, 'CODE_NEXT', MOVED)) - (await cyclesWith(out, 'CODE_NEXT', 0));
    assert.is(grown, tiles > 1 ? MOVED : 0);
  });
}

/**
 * The tile loop's shared code (CODE_TILES, in sixteenths): all sixteen at a run's first tiled layer, then at each
 * tiled layer the part the code fetched since its last run has evicted from the instruction cache's shared level
 * (64 sets of 4 ways: a line survives a set's refill with probability 3/4), the code since being each earlier layer's
 * compiled bytes (the manifest's) times its kernel functions (its tile shapes).
 */
test('CODE_TILES: whole at the first tiled layer, the evicted part at the later ones', async () => {
  const model = join(DEEPLOY, 'Models', 'miniMobileNet');
  const out = join(work, 'tiles-shared');
  const { manifest } = generateFirmware({ model: join(model, 'network.onnx'), platform: 'siracusa', out });
  let since = -1;
  let expected = 0;
  let evicted = 0;
  for (const l of manifest.layers) {
    if (l.tiling) {
      const parts = since < 0 ? 16 : Math.round(16 * (1 - 0.75 ** (since / 1024)));
      expected += parts;
      if (since >= 0 && parts < 16) evicted++;
      since = 0;
    }
    if (since >= 0) since += (l.code?.bytes ?? 0) * (l.tiling?.instances ?? 1);
  }
  assert.ok(manifest.layers.filter((l) => l.tiling).length > 2 && evicted > 0, 'several tiled layers, some charged in part');
  const run = await runFirmware(out, [...readNpz(join(model, 'inputs.npz')).values()]);
  assert.is(run.units[COST_CLASSES.indexOf('CODE_TILES')], expected);
});

/**
 * A run's first layer's cold start (CODE_RUN): once a run, with its first layer's LAYER, on core 0, whatever the
 * team: moved alone, a network's cycles grow by one charge and only its first layer's.
 */
for (const cores of [8, 1]) {
  test(`CODE_RUN: once a run, at its first layer, ${cores} core(s)`, async () => {
    const model = join(DEEPLOY, 'Models', 'miniMobileNet');
    const out = join(work, `run-${cores}`);
    const { manifest } = generateFirmware({ model: join(model, 'network.onnx'), platform: 'siracusa', out, cores });
    assert.ok(manifest.layers.length > 2);
    const modelInputs = [...readNpz(join(model, 'inputs.npz')).values()];
    const runWith = async (v: number) => runFirmware(out, modelInputs, { costs: COST_CLASSES.map((c) => (c === 'CODE_RUN' ? v : base[c])) });
    const [low, high] = [await runWith(0), await runWith(MOVED)];
    assert.is(high.units[COST_CLASSES.indexOf('CODE_RUN')], 1);
    assert.is(high.cycles - low.cycles, MOVED);
    assert.is(high.layers[0].cycles - low.layers[0].cycles, MOVED);
    high.layers.slice(1).forEach((l, i) => assert.is(l.cycles, low.layers[i + 1].cycles, `layer ${l.layer}`));
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
