/**
 * `gen run --on iss --hotspots`: every cycle of every hart is charged to exactly one instruction address (the
 * profile's total equals the harts' own counters, instructions too), the profile does not change the run, and the
 * names come from the ELF: on a conv model the layer functions are where the cluster works and the event unit's
 * barrier load is where it sleeps.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { formatHotspots } from '../../runtime/node/iss-hotspots.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('iss-hotspots');

for (const platform of ['siracusa', 'generic']) {
  test(`hotspots account for every cycle and instruction: ${platform}`, async () => {
    const f = integerFolders().find((x) => x.name === 'Models/miniMobileNet')!;
    const out = join(dir, platform);
    generateFirmware({ model: f.model, platform, out, sampleInputs: join(f.dir, 'inputs.npz') });
    const inputs = arrays(join(f.dir, 'inputs.npz'));
    const plain = await runIss(out, inputs);
    const r = await runIss(out, inputs, { hotspots: true });
    assert.ok(r.hotspots, 'a profile');
    const h = r.hotspots!;
    const hartCycles = r.hartInstructions.reduce((s, n, k) => s + n + r.hartStalls[k].reduce((a, b) => a + b, 0), 0);
    assert.is(h.total, hartCycles, 'the profile sums to the harts\' cycles');
    assert.is(h.functions.reduce((s, x) => s + x.cycles, 0), hartCycles);
    assert.is(h.functions.reduce((s, x) => s + x.instructions, 0), r.instructions, 'and to their instructions');
    assert.is(r.networkCycles, plain.networkCycles, 'profiling does not change the cycles');
    assert.equal(r.outputs.map((o) => Array.from(o.data as ArrayLike<number>)), plain.outputs.map((o) => Array.from(o.data as ArrayLike<number>)));
    const layerFns = h.functions.filter((x) => /^L_\d+_/.test(x.name));
    assert.ok(layerFns.length > 0, 'layer functions are named');
    assert.ok(h.instructions.length > 0 && h.instructions.every((i) => i.cycles >= i.count), 'an instruction costs at least a cycle');
    if (platform === 'siracusa') {
      assert.ok(h.functions.some((x) => x.name === 'hal_barrier' && x.cycles > 0), 'cores wait at barriers');
    }
    assert.match(formatHotspots(h), /Hottest instructions:/);
  });
}

test.after(cleanup);
test.run();
