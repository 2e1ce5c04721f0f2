/**
 * N-EUREKA through the AS HAL (runtime/as/neureka.ts) in hand-written firmware run by the runtime: the HAL's
 * acquire / set / trigger / wait protocol, a job never waited for (the runtime's npu_finish fault), and the NPU in the
 * profile (jobs and busy cycles per layer, the table's columns) and in the Perfetto trace (an "NPU" track).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { encodeWeights } from '../../generator/platforms/siracusa/npu/weights.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { buildProfile } from '../../runtime/node/profile.js';
import { formatProfile } from '../../runtime/node/profile-table.js';
import { runFirmware } from '../../runtime/node/run.js';
import { buildTrace, npuLane } from '../../runtime/node/trace.js';
import { checkTraceStructure } from '../helpers/trace-check.js';
import { makeFirmware } from './fixture.js';
import { documentedCycles, jobRegisters, type ConvSpec } from './neureka-driver.js';

// The firmware copies x and the encoded weights into L1, programs the job registers given as an input, and runs the
// job: mode 0 once (neureka_wait), mode 1 three times (the third acquire waits for a free entry) with the cluster
// computing meanwhile (neureka_wait_all), mode 2 forgets the wait. Layer 5 is open throughout.
const NETWORK = `
import {
  neureka_acquire, neureka_set, neureka_trigger, neureka_wait, neureka_wait_all, NEUREKA_JOB_REGS,
} from "./hal/neureka";
import { chip_to_linear, region_base } from "./hal/memory";
import { cluster_fork } from "./hal/cluster";
import { ELEMENT } from "./hal/cost";
import * as chip from "./hal/chip";

const L1 = region_base(0);
const X = chip_to_linear(0x1C00_0000);
const W = chip_to_linear(0x1C00_0100);
const R = chip_to_linear(0x1C00_0200);
const mode = load<i32>(chip_to_linear(0x1C00_0300));
const Y = chip_to_linear(0x1C00_0400);
const IDS = chip_to_linear(0x1C00_0500);

function job(): i32 {
  const id = neureka_acquire();
  for (let i = 0; i < NEUREKA_JOB_REGS; i++) neureka_set(i, load<u32>(R + (<usize>i << 2)));
  neureka_trigger();
  return id;
}
function work(_: usize): void { chip.compute(ELEMENT, 100); }

memory.copy(L1, X, 64);
memory.copy(L1 + 0x1000, W, 256);
chip.layer_begin(5);
if (mode == 0) {
  const id = job();
  neureka_wait(id);
  store<i32>(IDS, id);
} else if (mode == 1) {
  for (let i = 0; i < 3; i++) store<i32>(IDS + (<usize>i << 2), job());
  cluster_fork(work, 0);
  neureka_wait_all();
} else {
  job();
}
memory.copy(Y, L1 + 0x2000, 24);
chip.layer_end(5);
`;

const spec: ConvSpec = {
  mode: '1x1', bits: 8, cin: 2, cout: 2, h: 1, w: 3, pad: [0, 0, 0, 0], signedIn: false, x: [1, 2, 3, 4, 250, 0],
  weight: (co, ci) => [[1, -1], [2, 3]][co][ci],
};
const regs = jobRegisters(spec, { x: 0x1000_0000, w: 0x1000_1000, out: 0x1000_2000, scale: 0x1000_3000, shift: 0x1000_3000, bias: 0x1000_3000 });
const weights = encodeWeights({ ...spec });

const dir = makeFirmware({
  platform: 'siracusa',
  network: NETWORK,
  layers: [{ id: 5, name: 'conv' }],
  tensors: [
    { name: 'x', role: 'input', dtype: 'uint8', shape: [64], region: 'L2', address: 0x1c00_0000, bytes: 64 },
    { name: 'w', role: 'input', dtype: 'uint8', shape: [256], region: 'L2', address: 0x1c00_0100, bytes: 256 },
    { name: 'regs', role: 'input', dtype: 'uint32', shape: [24], region: 'L2', address: 0x1c00_0200, bytes: 96 },
    { name: 'mode', role: 'input', dtype: 'int32', shape: [1], region: 'L2', address: 0x1c00_0300, bytes: 4 },
    { name: 'y', role: 'output', dtype: 'int32', shape: [6], region: 'L2', address: 0x1c00_0400, bytes: 24 },
    { name: 'ids', role: 'output', dtype: 'int32', shape: [3], region: 'L2', address: 0x1c00_0500, bytes: 12 },
  ],
});

const run = (mode: number) => {
  const x = new Array<number>(64).fill(0);
  spec.x.forEach((v, i) => (x[i] = v));
  const w = new Array<number>(256).fill(0);
  weights.forEach((v, i) => (w[i] = v));
  return runFirmware(dir, [ndarray('uint8', [64], x), ndarray('uint8', [256], w), ndarray('uint32', [24], regs), ndarray('int32', [1], [mode])]);
};

test('one job through the HAL: outputs, its event, the profile row and the NPU trace track', async () => {
  const r = await run(0);
  assert.equal([...r.outputs[0].data], [-1, 8, -1, 18, 250, 500]);
  assert.is(r.npu.length, 1);
  const j = r.npu[0];
  assert.equal([j.id, j.mode, j.weightBits, j.wmem, j.out32, j.layer, j.agent], [0, '1x1', 8, false, true, 5, 0]);
  assert.is(j.end - j.start, documentedCycles(spec));
  const m = readManifest(dir);
  const p = buildProfile(m, r);
  assert.is(p.layers[0].npuJobs, 1);
  assert.is(p.layers[0].npuCycles, documentedCycles(spec));
  assert.equal([p.total.npuJobs, p.total.npuCycles], [1, documentedCycles(spec)]);
  assert.equal(r.profile, p, 'the run carries the same profile');
  const table = formatProfile(p);
  assert.match(table, /NPU jobs\s+NPU cyc/);
  const trace = buildTrace(m, r);
  // Named threads: the master, 8 cores and the NPU (no DMA lanes: the firmware moves no data by DMA).
  const slices = checkTraceStructure(JSON.stringify(trace), { agents: 1 + 8 + 1, layers: ['conv'], totalUs: r.cycles });
  const tid = npuLane(8);
  assert.ok(trace.traceEvents.some((e) => e.ph === 'M' && e.tid === tid && e.name === 'thread_name' && e.args?.name === 'NPU'));
  const npu = slices.get(tid) ?? [];
  assert.is(npu.length, 1);
  assert.equal([npu[0].ts, npu[0].dur, npu[0].cat], [j.start, j.end - j.start, 'npu']);
});

test('three jobs: the third acquire waits for a free entry; the cluster works meanwhile; wait_all', async () => {
  const r = await run(1);
  assert.equal([...r.outputs[0].data], [-1, 8, -1, 18, 250, 500]);
  assert.equal([...r.outputs[1].data], [0, 1, 2]);
  assert.is(r.npu.length, 3);
  assert.is(r.npu[1].start, r.npu[0].end);
  assert.ok(r.npu[2].start >= r.npu[0].end, 'job 2 was triggered after job 0 freed its entry');
  assert.ok(r.cycles >= r.npu[2].end, 'the master waited for the last job');
  const p = buildProfile(readManifest(dir), r);
  assert.equal([p.layers[0].npuJobs, p.layers[0].npuCycles], [3, 3 * documentedCycles(spec)]);
});

test('a job never waited for is a fault when the firmware returns', async () => {
  try {
    await run(2);
  } catch (e) {
    assert.instance(e, GenError);
    assert.match((e as Error).message, /^fault: npu_finish: job 0 \(triggered in layer 5, ends at cycle \d+\) was never observed finished/);
    return;
  }
  assert.unreachable('mode 2 did not fail');
});

test.run();
