/**
 * `gen run --on iss --hotspots`: every cycle of every hart is charged to exactly one instruction address (the
 * profile's total equals the harts' own counters, instructions too), the profile does not change the run, and the
 * names come from the ELF: on a conv model the layer functions are where the cluster works and the event unit's
 * barrier load is where it sleeps; within one layer's span only that layer's functions run.
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

    // Within one layer's span (`--hotspots <layer>`): that layer's function and none of the others'; its cycles there
    // are what the whole-run profile gave it, its instructions too (it runs nowhere else).
    const last = r.layers[r.layers.length - 1];
    const w = (await runIss(out, inputs, { hotspots: true, hotspotWindow: [last.start, last.end] })).hotspots!;
    const own = new RegExp(`^L_${last.layer}_`);
    const names = w.functions.filter((x) => /^L_\d+_/.test(x.name)).map((x) => x.name);
    assert.ok(names.length > 0 && names.every((n) => own.test(n)), `only layer ${last.layer}'s functions: ${names.join(', ')}`);
    for (const fn of w.functions.filter((x) => own.test(x.name))) {
      const whole = h.functions.find((x) => x.name === fn.name)!;
      assert.is(fn.instructions, whole.instructions, `${fn.name}: its instructions all inside the layer`);
    }
    assert.ok(w.total < h.total / 2, 'a part of the run');
  });
}

test.after(cleanup);
test.run();
