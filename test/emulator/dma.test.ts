/**
 * The cluster DMA through the AS HAL (runtime/as/dma.ts), in hand-written firmware (dma-fixture.ts): bytes, cycles
 * against the documented formula (docs/timing.md "Cluster DMA"), data landing at the wait, the per-core queue, faults.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { createEmulator, type EmulatorExports } from '../../runtime/node/emulator.js';
import type { RunResult } from '../../runtime/node/run.js';
import { run, X } from './dma-fixture.js';

const bytes = (a: NDArray): number[] => [...a.data];
const stamps = (r: RunResult): number[] => [...r.outputs[1].data];

let params: { lat: number; bpc: number; reg: number } | undefined;
async function dmaParams(): Promise<{ lat: number; bpc: number; reg: number }> {
  const emu: EmulatorExports = await createEmulator('siracusa');
  params ??= { lat: emu.dma_latency_cycles(), bpc: emu.dma_bytes_per_cycle(), reg: emu.dma_register_cycles() };
  return params;
}

async function fault(mode: number): Promise<string> {
  try {
    await run(mode);
  } catch (e) {
    assert.instance(e, GenError);
    return (e as Error).message;
  }
  assert.unreachable(`mode ${mode} did not fail`);
  return '';
}

test('the parameters are HARDWARE.md\'s: 14 cycles latency, 8 bytes/cycle, 2 queued commands, 16 channels', async () => {
  const emu = await createEmulator('siracusa');
  assert.equal([emu.dma_latency_cycles(), emu.dma_bytes_per_cycle(), emu.dma_queue_depth(), emu.dma_channels(),
    emu.dma_max_bytes(), emu.dma_register_cycles()], [14, 8, 2, 16, 131071, 1]);
});

test('1-D L2 -> L1 -> L2 moves the bytes; 1024 bytes take latency + 128 cycles after 3 register writes', async () => {
  const { lat, bpc, reg } = await dmaParams();
  const r = await run(0);
  assert.equal(bytes(r.outputs[0]).slice(0, 1024), X.slice(0, 1024));
  assert.equal(bytes(r.outputs[0]).slice(1024), new Array(3072).fill(0));
  const [t0, issued, waited, issued2, waited2] = stamps(r);
  assert.is(t0, reg); // the channel allocation reads one register
  assert.is(issued - t0, 3 * reg);
  assert.is(waited - issued, lat + 1024 / bpc);
  assert.is(waited2 - issued2, lat + 1024 / bpc);
  assert.equal(r.dma.map((d) => [d.channel, d.bytes, d.toL1, d.ext2d, d.l12d, d.agentName, d.layer, d.start, d.end]), [
    [0, 1024, true, false, false, 'master', 3, issued, waited],
    [0, 1024, false, false, false, 'master', 3, issued2, waited2],
  ]);
});

test('2-D on the external side gathers a block and scatters it back; 16-byte rows cost 2 cycles each', async () => {
  const { lat, bpc, reg } = await dmaParams();
  const r = await run(1);
  const want = new Array(4096).fill(0);
  for (let row = 4; row < 20; row++) for (let c = 8; c < 24; c++) want[row * 64 + c] = X[row * 64 + c];
  assert.equal(bytes(r.outputs[0]), want);
  const [t0, issued, waited] = stamps(r);
  assert.is(issued - t0, 5 * reg); // command, L1, external, row length, stride
  assert.is(waited - issued, lat + 256 / bpc);
  assert.ok(r.dma[0].ext2d && !r.dma[0].l12d);
});

test('2-D on the L1 side; a 12-byte row costs ceil(12 / 8) = 2 cycles, not 1.5', async () => {
  const { lat, bpc } = await dmaParams();
  const r = await run(2);
  const want = new Array(4096).fill(0);
  for (let row = 0; row < 16; row++) for (let c = 0; c < 12; c++) want[row * 32 + c] = X[row * 12 + c];
  assert.equal(bytes(r.outputs[0]), want);
  const [, issued, waited] = stamps(r);
  assert.is(waited - issued, lat + 16 * Math.ceil(12 / bpc));
  assert.ok(!r.dma[0].ext2d && r.dma[0].l12d);
});

test('2-D on both sides, each with its own rows', async () => {
  const r = await run(3);
  // In: 16-byte rows of x every 64 -> L1 rows every 32. Out: 32-byte L1 rows every 32 -> y rows every 64.
  const l1 = new Array(512).fill(0);
  for (let row = 0; row < 16; row++) for (let c = 0; c < 16; c++) l1[row * 32 + c] = X[row * 64 + c];
  const want = new Array(4096).fill(0);
  for (let row = 0; row < 16; row++) for (let c = 0; c < 32; c++) want[row * 64 + c] = l1[row * 32 + c];
  assert.equal(bytes(r.outputs[0]), want);
});

test('two transfers in the same direction serialise: the second completes latency + bytes/8 after the first', async () => {
  const { lat, bpc, reg } = await dmaParams();
  const [t0, i1, i2, w1, w2] = stamps(await run(4));
  assert.is(i1, t0 + 3 * reg);
  assert.is(i2, i1 + 4 * reg); // alloc + 3 writes
  assert.is(w1, i1 + lat + 1024 / bpc);
  assert.is(w2, Math.max(i2, w1) + lat + 1024 / bpc);
});

test('opposite directions overlap: each completes latency + bytes/8 after its own issue', async () => {
  const { lat, bpc } = await dmaParams();
  const r = await run(5);
  const [, i1, i2, w1, w2] = stamps(r);
  assert.is(w1, i1 + lat + 1024 / bpc);
  assert.is(w2, i2 + lat + 1024 / bpc);
  assert.ok(r.dma[1].start < r.dma[0].end);
});

test('a read of L1 before the wait sees the old bytes: a missing wait is visible', async () => {
  const y = bytes((await run(6)).outputs[0]);
  assert.equal(y.slice(0, 64), new Array(64).fill(0x55));
  assert.equal(y.slice(64, 128), X.slice(0, 64));
});

test('the third queued command stalls its core until the first completes, without counting as busy', async () => {
  const { lat, bpc, reg } = await dmaParams();
  const r = await run(7);
  const [t0, i1, i2, i3, w] = stamps(r);
  const d = lat + 1024 / bpc;
  assert.is(i1, t0 + 3 * reg);
  assert.is(i2, i1 + 3 * reg);
  assert.is(i3, i1 + d + 3 * reg); // stalled until the first completed, then its own 3 writes
  assert.is(w, i1 + 3 * d);
  assert.is(r.masterBusy, reg * (1 + 9 + 1)); // alloc, 3 x 3 writes, free: the stall and the wait are idle
});

test("each core issues its share; each engine runs one transfer at a time", async () => {
  const r = await run(8);
  assert.equal(bytes(r.outputs[0]), X);
  const cores = r.dma.filter((d) => d.agent > 0);
  assert.is(cores.length, 16);
  assert.equal(new Set(cores.map((d) => `${d.agentName}:${d.channel}`)).size, 8);
  for (const toL1 of [true, false]) {
    const lane = r.dma.filter((d) => d.toL1 === toL1).sort((a, b) => a.start - b.start);
    for (let i = 1; i < lane.length; i++) assert.ok(lane[i].start >= lane[i - 1].end, 'engine busy twice at once');
  }
});

test('a transfer never waited for is a fault at the end of the run', async () => {
  assert.is(await fault(9), 'fault: dma: the firmware ended with 1 transfer(s) never waited for; the first: ' +
    'channel 0, 64 bytes from 0x10000000 (region L1) to 0x1c002000 (region L2), issued by master in layer 3 \'dma\'');
});

test('transfer faults name the size, the address, the region and the layer', async () => {
  const at = 'fault: dma_copy on channel 0, ';
  assert.is(await fault(10), `${at}131072 bytes into L1: more than one transfer can move: 131071 bytes, the ` +
    '17-bit length of an mchan v7 command; split it');
  assert.is(await fault(11), `${at}64 bytes into L1: the L1 side must lie inside L1, got 64 bytes at 0x1c000000 ` +
    '(region L2) in layer 3 \'dma\'');
  assert.is(await fault(12), `${at}64 bytes into L1: the external side must lie inside L2, got 64 bytes at ` +
    'linear 0x00500000 (no region) in layer 3 \'dma\'');
  assert.is(await fault(13), `${at}64 bytes out of L1: the external side must lie inside L2, got 64 bytes at ` +
    '0x10001000 (region L1) in layer 3 \'dma\'');
  assert.is(await fault(14), `${at}64 bytes into L1: the L1 side must lie inside L1, got 64 bytes at 0x1003fff0 ` +
    '(region L1, runs past its end by 48 bytes) in layer 3 \'dma\'');
  assert.is(await fault(15), `${at}64 bytes into L1: the external side must lie inside L2, got 64 bytes at ` +
    '0x10400000 (region NMS_MRAM) in layer 3 \'dma\'');
  // Rows 0..15 of 64 bytes every 512: the last row ends 15 * 512 + 64 bytes after the start.
  assert.is(await fault(16), `${at}1024 bytes into L1: the external side must lie inside L2, got 7744 bytes ` +
    'at 0x1c1ff000 (region L2, runs past its end by 3648 bytes) in layer 3 \'dma\'');
});

test('channel misuse: a copy on a channel other than the core\'s last allocation, a free before the wait', async () => {
  assert.is(await fault(17), 'fault: dma_copy on channel 0, 64 bytes into L1: on the chip a command counts on the ' +
    'channel its core allocated last, here 1 (master): allocate, then issue');
  assert.is(await fault(18), 'fault: dma_free: channel 0 has 1 transfer(s) not waited for in layer 3 \'dma\'');
});

test.run();
