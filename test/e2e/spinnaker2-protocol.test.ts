/**
 * The SpiNNaker2 scheduler/worker protocol end to end: a requantized MLP generated for chips of 2, 3 and 152 PEs
 * (one worker with many tiles, two workers with more tiles than workers, the cost model's choice) runs in the
 * emulator, matches the reference interpreter exactly, and its time stamps tell the protocol's story: workers wake
 * after the scheduler's interrupts in the order raised, configure, compute and signal in order, the scheduler
 * resumes after the last completion, and setup + layers + cleanup add up to the total.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { s2Table } from '../../runtime/node/spinnaker2-times.js';
import { workDir } from '../helpers/kernel-check.js';
import { mlpCase } from '../helpers/s2-model.js';

const { dir, cleanup } = workDir('s2-protocol');
const c = mlpCase(join(dir, 'model'), { rows: 5, sizes: [200, 700, 40], seed: 5 });
// emulator/assembly/chips/spinnaker2.ts: NOC_SEND 3, NOC_LATENCY 32, IRQ_ENTRY 12.
const SEND = 3;
const LATENCY = 32;
const ENTRY = 12;
const outs = new Map<number, string>();

async function run(pes: number) {
  const out = join(dir, `pes${pes}`);
  outs.set(pes, out);
  const { manifest } = generateFirmware({ model: c.model, platform: 'spinnaker2', out, sampleInputs: c.sample, pes });
  const r = await runFirmware(out, c.inputs);
  const cmp = compareOutputs(manifest.outputs, r.outputs, c.expected);
  assert.is(cmp.errors, 0, cmp.details.join('; '));
  assert.ok(r.spinnaker2, 'time stamps read back');
  return r;
}

for (const pes of [2, 3, 152]) {
  test(`${pes} PEs: exact outputs, and the stamps follow the protocol`, async () => {
    const r = await run(pes);
    const t = r.spinnaker2!;
    const layers = t.layers.filter((l) => l.id !== null);
    assert.is(t.layers.length, layers.length + 1);
    for (const l of t.layers) {
      const [begin, woken, done, end] = l.scheduler;
      assert.ok(begin <= woken && woken <= done && done <= end, `scheduler stamps in order (${l.scheduler})`);
      assert.ok(l.workers >= 1 && l.workers <= pes - 1);
      l.worker.forEach((w, j) => {
        assert.ok(w[0] <= w[1] && w[1] <= w[2] && w[2] <= w[3], `worker ${j} stamps in order (${w})`);
        assert.ok(w[0] > begin && w[3] < done, `worker ${j} runs inside the scheduler's layer`);
        // Asleep since the previous layer, each wakes at its interrupt's arrival: raises are NOC_SEND apart.
        if (j > 0) assert.is(w[0] - l.worker[j - 1][0], SEND);
      });
      assert.is(l.worker[0][0], woken - SEND * (l.workers - 1) + LATENCY + ENTRY, 'first arrival = last raise - (w-1) sends + latency');
      const lastSignal = Math.max(...l.worker.map((w) => w[3]));
      assert.ok(done >= lastSignal + SEND + LATENCY + ENTRY, 'the scheduler wakes after the last completion packet');
    }
    if (pes === 2) assert.ok(layers.every((l) => l.workers === 1) && layers[0].tiles > 1, 'one worker runs every tile');
    if (pes === 3) assert.ok(layers[0].workers === 2 && layers[0].tiles > 2, 'more tiles than workers');
    const table = s2Table(t);
    assert.is(table.setup + table.layers.reduce((s, l) => s + l.cycles, 0) + table.cleanup, table.total);
    assert.ok(table.layers.every((l) => l.overhead > 0 && l.overhead < l.cycles));
    // One MLA job per tile on the PE that ran it (worker j is PE j + 1), and its layer span in the event log.
    const s2 = JSON.parse(readFileSync(join(outs.get(pes)!, 'firmware.json'), 'utf8')).spinnaker2;
    for (const l of s2.layers.filter((x: { id: number | null }) => x.id !== null)) {
      l.plan.tilesPerWorker.forEach((n: number, j: number) => {
        assert.is(r.mla.filter((m) => m.layer === l.id && m.agent === j + 1).length, n, `layer ${l.id} worker ${j}`);
        assert.ok(r.layers.some((e) => e.layer === l.id && e.agent === j + 1));
      });
    }
  });
}

test('one worker is slower than the cost model\'s choice, which the estimate predicts within 25 %', async () => {
  const one = s2Table((await run(2)).spinnaker2!);
  const best = s2Table((await run(152)).spinnaker2!);
  assert.ok(best.layers[0].cycles < one.layers[0].cycles);
  for (const l of [...one.layers, ...best.layers]) {
    assert.ok(Math.abs(l.estimate! - l.cycles) / l.cycles < 0.25, `layer ${l.id}: model ${l.estimate}, measured ${l.cycles}`);
  }
});

test.after(cleanup);
test.run();
