/**
 * `gen run --on iss` with the Siracusa cluster on the emulator's RV32 cores (the fabric controller and 8 cluster
 * cores as harts, fork/barrier through the event unit, tiles through the cluster DMA, runtime/c/siracusa/hal_iss.c):
 * bit-exact against the peer's expected outputs on every integer folder, tiled (default L1), untiled and with the
 * NPU engines enabled, and on generic (one hart, portable rv32imc). Also: the cluster runs faster than one core would
 * on the conv models, the team really is 8 cores (every cluster core retires instructions), and each layer's row fits
 * the network's span and counts its own instruction-cache misses.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware, type FirmwareOptions } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('iss-cluster');

const CONFIGS: [string, string, Partial<FirmwareOptions>][] = [
  ['siracusa tiled', 'siracusa', {}],
  ['siracusa untiled', 'siracusa', { untiled: true }],
  ['siracusa cluster+npu', 'siracusa', { engines: 'cluster+npu' }],
  ['generic', 'generic', {}],
];

for (const [label, platform, options] of CONFIGS) {
  test(`every integer folder exact on the RV32 core(s): ${label}`, async () => {
    const bad: string[] = [];
    for (const f of integerFolders()) {
      const out = join(dir, `${label.replace(/\W+/g, '-')}-${f.name.replace(/\W+/g, '-')}`);
      const g = generateFirmware({ model: f.model, platform, out, sampleInputs: join(f.dir, 'inputs.npz'), ...options });
      const r = await runIss(out, arrays(join(f.dir, 'inputs.npz')));
      const cmp = compareOutputs(g.manifest.outputs, r.outputs, arrays(join(f.dir, 'outputs.npz')));
      if (cmp.errors > 0) bad.push(`${f.name}: ${cmp.errors} of ${cmp.total} differ (${cmp.details.slice(0, 2).join('; ')})`);
      if (platform === 'siracusa') {
        assert.is(r.harts, 9, `${f.name}: the fabric controller and 8 cluster cores`);
        const rows = r.layers.reduce((n, l) => n + l.cycles, 0);
        assert.ok(rows <= r.networkCycles, `${f.name}: layer rows ${rows} within the span ${r.networkCycles}`);
        // Each layer's instruction-cache misses: a line from L2 is a private-level miss first, every layer fetches
        // some code of its own cold, and the layers' shares add up to no more than the run's.
        for (const l of r.layers) {
          const [refills, cold] = l.icacheMisses ?? [0, 0];
          assert.ok(cold >= 1 && refills >= cold, `${f.name} layer ${l.layer}: ${refills} private-level misses, ${cold} lines from L2`);
        }
        const sum = (k: 0 | 1): number => r.layers.reduce((n, l) => n + (l.icacheMisses?.[k] ?? 0), 0);
        assert.ok(sum(0) <= r.icacheMisses[0] && sum(1) <= r.icacheMisses[1], `${f.name}: layers' misses ${sum(0)}/${sum(1)} within the run's ${r.icacheMisses}`);
      }
    }
    assert.equal(bad, []);
  });
}

test('the conv models run on 8 cores: faster than on a team of one, every core busy', async () => {
  for (const name of ['Models/CNN_Linear2', 'Models/miniMobileNetv2']) {
    const f = integerFolders().find((x) => x.name === name)!;
    const runs = [];
    for (const cores of [1, 8]) {
      const out = join(dir, `speedup-${cores}-${name.replace(/\W+/g, '-')}`);
      generateFirmware({ model: f.model, platform: 'siracusa', out, sampleInputs: join(f.dir, 'inputs.npz'), cores });
      runs.push(await runIss(out, arrays(join(f.dir, 'inputs.npz'))));
    }
    const [one, eight] = runs;
    assert.ok(eight.hartInstructions.slice(1).every((n) => n > 0.5 * eight.hartInstructions[2]), `${name}: every cluster core works (${eight.hartInstructions})`);
    assert.ok(eight.networkCycles * 3 < one.networkCycles, `${name}: 8 cores ${eight.networkCycles} vs 1 core ${one.networkCycles} cycles`);
  }
});

test.after(cleanup);
test.run();
