/** Cluster DMA transfers in the trace (one lane per engine) and in the profile (bytes in and out per layer). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readManifest } from '../../runtime/node/manifest.js';
import { buildProfile } from '../../runtime/node/profile.js';
import { formatProfile } from '../../runtime/node/profile-table.js';
import { reportHtml } from '../../runtime/node/report/html.js';
import { buildTrace, dmaLane } from '../../runtime/node/trace.js';
import { checkTraceStructure } from '../helpers/trace-check.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from '../emulator/fixture.js';

// Mode 0: each core moves its 512-byte eighth of x into L1 and back out to y. Mode 1: one transfer in, one out,
// issued back to back by the master (opposite engines: they overlap).
const NETWORK = `
import { dma_channel_alloc, dma_channel_free, dma_copy_1d, dma_wait } from "./hal/dma";
import { cluster_fork, core_id } from "./hal/cluster";
import { chip_to_linear, region_base } from "./hal/memory";
import * as chip from "./hal/chip";
const L1 = region_base(0);
const X = chip_to_linear(0x1C00_0000);
const Y = chip_to_linear(0x1C00_2000);
const mode = load<i32>(chip_to_linear(0x1C01_0000));
function share(_: usize): void {
  const off = <usize>(core_id() * 512);
  const ch = dma_channel_alloc();
  dma_copy_1d(ch, L1 + off, X + off, 512, true); dma_wait(ch);
  dma_copy_1d(ch, L1 + off, Y + off, 512, false); dma_wait(ch);
  dma_channel_free(ch);
}
chip.layer_begin(0);
if (mode == 0) {
  cluster_fork(share, 0);
} else {
  const a = dma_channel_alloc(); dma_copy_1d(a, L1, X, 1024, true);
  const b = dma_channel_alloc(); dma_copy_1d(b, L1 + 2048, Y, 1024, false);
  dma_wait(a); dma_wait(b); dma_channel_free(a); dma_channel_free(b);
}
chip.layer_end(0);
`;
const dir = makeFirmware({
  platform: 'siracusa',
  network: NETWORK,
  layers: [{ id: 0, name: 'dma' }],
  tensors: [
    { name: 'x', role: 'input', dtype: 'uint8', shape: [4096], region: 'L2', address: 0x1c00_0000, bytes: 4096 },
    { name: 'mode', role: 'input', dtype: 'int32', shape: [1], region: 'L2', address: 0x1c01_0000, bytes: 4 },
    { name: 'y', role: 'output', dtype: 'uint8', shape: [4096], region: 'L2', address: 0x1c00_2000, bytes: 4096 },
  ],
});
const fixtureDir = (): string => dir;
const run = (mode: number) => runFirmware(dir, [ndarray('uint8', [4096], new Array<number>(4096).fill(1)), ndarray('int32', [1], [mode])]);

test('each core moves its share: 16 transfers on two engine lanes, inside the layer, never overlapping per lane', async () => {
  const r = await run(0);
  const m = readManifest(fixtureDir());
  const trace = buildTrace(m, r);
  const p = buildProfile(m, r);
  // The fixture's manifest has no clock: the trace draws one cycle as one microsecond.
  const totalUs = (Number(trace.otherData.totalCycles) * 1e6) / Number(trace.otherData.clockHz);
  const slices = checkTraceStructure(JSON.stringify(trace), { agents: 1 + 8 + 2, layers: ['dma'], totalUs });
  for (const toL1 of [true, false]) {
    const lane = (slices.get(dmaLane(8, toL1)) ?? []).sort((a, b) => a.ts - b.ts);
    assert.is(lane.length, 8, 'one transfer per core and direction');
    for (const s of lane) assert.is(s.cat, 'dma');
    for (let i = 1; i < lane.length; i++) assert.ok(lane[i].ts >= lane[i - 1].ts + lane[i - 1].dur - 1e-6, 'an engine runs one transfer at a time');
  }
  assert.equal(p.layers[0].dma, { in: 4096, out: 4096 });
  assert.equal(p.total.dma, { in: 4096, out: 4096 });
  assert.match(formatProfile(p), /DMA in\s+DMA out/);
  // No N-EUREKA job: zero in the profile, no NPU columns, no NPU track (test/emulator/neureka-hal.test.ts has them).
  assert.equal([p.layers[0].npuJobs, p.layers[0].npuCycles, p.total.npuJobs, p.total.npuCycles], [0, 0, 0, 0]);
  assert.not.match(formatProfile(p), /NPU/);
  assert.not.ok(trace.traceEvents.some((e) => e.cat === 'npu'));
  assert.match(reportHtml(m, p, trace), />DMA in \(to L1\)</);
});

test('opposite directions overlap in time on their two lanes', async () => {
  const r = await run(1);
  const m = readManifest(fixtureDir());
  const trace = buildTrace(m, r);
  const dma = trace.traceEvents.filter((e) => e.cat === 'dma');
  assert.is(dma.length, 2);
  const [a, b] = dma;
  assert.is.not(a.tid, b.tid);
  assert.ok(a.ts! < b.ts! + b.dur! && b.ts! < a.ts! + a.dur!, 'the two transfers overlap');
});

test.run();
