/**
 * The profile and trace of every Models folder of ../shared/deeploy-tests on both core platforms: the layer rows
 * plus setup, between-layer gaps and teardown account for every cycle of the total, exactly; the trace has the
 * structure a viewer loads (one named thread per agent, every layer, slices inside the run, no overlap per core).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { buildProfile, type Profile } from '../../runtime/node/profile.js';
import { runFirmware, type RunResult } from '../../runtime/node/run.js';
import { buildTrace } from '../../runtime/node/trace.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { checkTraceStructure } from '../helpers/trace-check.js';

const s = suite('profile of the deeploy models');
const work = mkdtempSync(join(tmpdir(), 'firmgen-profile-'));
const models = integerFolders().filter((f) => f.name.startsWith('Models/'));

s('finds the Models folders', () => {
  assert.ok(models.length >= 5, `${models.length} folders`);
});

function checkSums(p: Profile, r: RunResult, where: string): void {
  const layers = p.layers.reduce((n, l) => n + l.cycles, 0);
  assert.is(layers + p.setup.cycles + p.between.cycles + p.teardown.cycles, p.total.cycles, `${where}: rows add up`);
  assert.is(p.total.cycles, r.cycles, `${where}: total is the master clock`);
  assert.ok(p.setup.cycles >= 0 && p.between.cycles >= 0 && p.teardown.cycles >= 0, `${where}: no negative span`);
  const shares = p.layers.reduce((n, l) => n + l.share, 0) + p.setup.share + p.between.share + p.teardown.share;
  assert.ok(Math.abs(shares - 1) < 1e-9, `${where}: shares sum to ${shares}`);
}

for (const platform of ['siracusa', 'generic']) {
  for (const f of models) {
    s(`${platform} ${f.name}`, async () => {
      const out = join(work, `${platform}_${f.name.replace(/\//g, '_')}`);
      const { manifest } = generateFirmware({ model: f.model, platform, out });
      const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, manifest.inputs.length);
      const r = await runFirmware(out, inputs);
      const p = buildProfile(readManifest(out), r);
      checkSums(p, r, f.name);
      for (const l of p.layers) {
        const ml = manifest.layers.find((x) => x.id === l.layer)!;
        assert.is(l.macs, ml.macs);
        if (ml.kernel !== 'alias') {
          assert.ok(l.cycles > 0, `layer ${l.layer} has cycles`);
          assert.ok(l.us > 0, `layer ${l.layer} has microseconds`);
          const home = l.memory[manifest.memory.region];
          assert.ok(home && home.read > 0 && home.written > 0, `layer ${l.layer} moves bytes in ${manifest.memory.region}`);
        }
        if (l.utilisation !== null) assert.ok(l.utilisation > 0 && l.utilisation <= 1, `utilisation ${l.utilisation}`);
      }
      assert.ok(Math.abs(p.total.us - (r.cycles * 1e6) / manifest.clockHz) < 1e-6);
      assert.is(p.total.macs, manifest.layers.reduce((n, l) => n + l.macs, 0));

      const slices = checkTraceStructure(JSON.stringify(buildTrace(readManifest(out), r)), {
        // The master, each cluster core, and one lane per DMA engine the run used (tiled firmware only).
        agents: 1 + r.coreCycles.length + new Set(r.dma.map((d) => d.toL1)).size,
        layers: manifest.layers.filter((l) => l.kernel !== 'alias').map((l) => l.name),
        totalUs: p.total.us,
      });
      for (const [tid, list] of slices) {
        const sorted = [...list].sort((a, b) => a.ts - b.ts);
        for (let i = 1; i < sorted.length; i++) {
          assert.ok(sorted[i].ts >= sorted[i - 1].ts + sorted[i - 1].dur - 1e-6, `thread ${tid}: ${sorted[i].name} overlaps`);
        }
      }
      for (let c = 1; c <= r.coreCycles.length; c++) {
        assert.ok(slices.get(c)?.some((x) => x.cat === 'kernel'), `core ${c - 1} has kernel slices`);
      }
    });
  }
}

s.after(() => rmSync(work, { recursive: true, force: true }));
s.run();
