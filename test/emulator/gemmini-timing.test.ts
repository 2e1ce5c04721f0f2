/**
 * Gemmini's timing, worked by hand from the model of docs/gemmini.md "Timing" with the figures of
 * emulator/assembly/chips/gemmini.ts: host issue 6 cycles per command; DMA requests one per cycle, 80 cycles to the
 * first beat of a read, 30 from a write's last beat to its acknowledgement, 16 bytes per beat, 16 requests in flight;
 * the array streams a block in 16 cycles, new weights shift in for 16 cycles after the previous stream starts, results
 * land 32 cycles after the stream; the store path reads a row per cycle through a 4-cycle pipeline; reservation
 * stations of 8 (load), 16 (execute), 4 (store) entries.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gemminiDetail, readEvents } from '../../runtime/node/emulator.js';
import {
  ACC, compute, configEx, configLd, configSt, DRAM, fault, GARBAGE, gemmini, int8s, loopWs, mvin, mvout, preload, putI8, WS,
} from './gemmini-driver.js';

const now = (c: Awaited<ReturnType<typeof gemmini>>): number => Number(c.emu.cycles());
const busy = (c: Awaited<ReturnType<typeof gemmini>>): number => Number(c.emu.gemmini_busy_until());

test('mvin of 16 aligned 16-byte rows: issued 6..21, data 86..101, the last row lands at 103; the host does not wait', async () => {
  const c = await gemmini();
  mvin(c, DRAM, 0, 16, 16);
  assert.is(now(c), 6);
  assert.is(busy(c), 103);
});

test('64-byte rows: 4 beats each on the bus: done at 90 + 4n; a second mvin waits for the 16-request window', async () => {
  const c = await gemmini();
  configLd(c, 64); // host 6
  mvin(c, DRAM, 0, 64, 16); // host 12: requests 12..27, data from 92, 4 beats each: last done 92 + 64 = 156, lands 157
  assert.is(busy(c), 157);
  // host 18: request 16 waits for request 0 (done 96): issue 96, data max(176, 156) = 176..180; then one per 4 cycles
  // as the window frees: request 16 + n done at 180 + 4n, the last (n = 15) at 240, lands 241
  mvin(c, DRAM + 0x1000, 100, 64, 16);
  assert.is(busy(c), 241);
});

test('a row crossing a 64-byte boundary takes two requests (8 + 8 bytes, 1 beat each)', async () => {
  const c = await gemmini();
  mvin(c, DRAM + 0x38, 0, 16, 1); // issue 6 -> data 86 -> 87; issue 7 -> data 87 -> 88; lands 89
  assert.is(busy(c), 89);
});

test('an mvin of zeros (address 0) writes a row per cycle without main-memory traffic', async () => {
  const c = await gemmini();
  mvin(c, 0, 0, 16, 16); // from 6, 16 rows
  assert.is(busy(c), 22);
});

test('load reservation station: the 9th mvin waits until the 1st completes', async () => {
  const c = await gemmini();
  // mvin k (1 row) is issued at 6(k + 1), its request done at 6(k + 1) + 81, it lands one cycle later
  for (let k = 0; k < 8; k++) mvin(c, DRAM + 16 * k, k, 16, 1);
  assert.is(now(c), 48);
  mvin(c, DRAM + 128, 8, 16, 1); // entry of mvin 0 frees at 88
  assert.is(now(c), 88);
  assert.is(busy(c), 88 + 82);
});

test('mvin A, mvin B, preload, compute, mvout: hazards chain the units; the fence waits for the last write', async () => {
  const c = await gemmini();
  putI8(c, DRAM, int8s(512, 1));
  configEx(c, { dataflow: WS }); // 6
  configLd(c, 16); // 12
  configSt(c, 16); // 18
  mvin(c, DRAM, 0, 16, 16); // 24: requests 24..39 done 105..120, lands 121
  // 30: its requests wait for the 16-request window: request 16 + n issues at 105 + n, done 186 + n; lands 202
  mvin(c, DRAM + 256, 16, 16, 16);
  preload(c, 16, ACC, 16, 16, 16, 16); // 36
  // 42: the weights (rows 16..31, written at 202) shift in 202..218; the stream 218..234; C lands at 266
  compute(c, true, 0, GARBAGE);
  // 48: the accumulator rows are ready at 266; rows read 267..282, +4 pipeline, one write request each (1 beat),
  // acknowledged 30 cycles after its beat: the first 271 + 1 + 30 = 302, the last 317
  mvout(c, DRAM + 0x1000, ACC, 16, 16);
  assert.is(now(c), 48);
  assert.is(busy(c), 317);
  assert.is(fault(c, () => c.emu.gemmini_finish()),
    'gemmini: commands still running when the firmware returned (busy until cycle 317, the host at 48): gemmini_fence before reading their results');
  c.emu.gemmini_fence();
  c.emu.gemmini_finish();
  assert.is(now(c), 317);
  const ev = readEvents(c.emu).events.filter((e) => e.kind === 'gemmini');
  assert.equal(ev.map((e) => [gemminiDetail(e.detail).funct, gemminiDetail(e.detail).unit, e.start, e.end]), [
    [2, 'load', 24, 121],
    [2, 'load', 40, 202],
    [4, 'execute', 218, 234],
    [3, 'store', 266, 317],
  ]);
  assert.ok(ev.every((e) => e.agent === 0 && e.layer === -1 && !gemminiDetail(e.detail).unrolled));
});

/** A (M x K) at DRAM and B (K x N) at DRAM + 1 MiB, int8, and the weight-stationary configuration for C = A.B. */
function loadMatmul(c: Awaited<ReturnType<typeof gemmini>>, M: number, K: number, N: number): void {
  putI8(c, DRAM, int8s(M * K, 2));
  putI8(c, DRAM + 0x10_0000, int8s(K * N, 3));
  configEx(c, { dataflow: WS });
  configLd(c, K, 1, 0, 16, 0);
  configLd(c, N, 1, 0, 16, 1);
  configSt(c, N, 0, 0.001);
}

test('loop_ws 64x256x128 (512 blocks): loads overlap the array; it stays busy at least 512 x 16 cycles', async () => {
  const c = await gemmini();
  const [M, K, N] = [64, 256, 128];
  loadMatmul(c, M, K, N);
  loopWs(c, { I: 4, J: 8, K: 16, padI: 0, padJ: 0, padK: 0, A: DRAM, B: DRAM + 0x10_0000, D: 0, C: DRAM + 0x20_0000,
    strideA: K, strideB: N, strideD: 0, strideC: N, exAccumulate: 0 });
  c.emu.gemmini_fence();
  const ev = readEvents(c.emu).events.filter((e) => e.kind === 'gemmini');
  const ex = ev.filter((e) => gemminiDetail(e.detail).unit === 'execute');
  const loads = ev.filter((e) => gemminiDetail(e.detail).unit === 'load');
  const stores = ev.filter((e) => gemminiDetail(e.detail).unit === 'store');
  assert.is(ex.length, 4 * 8 * 16);
  // moves of up to 4 blocks (64 bytes of int8): A 4 rows x 4 of its 16 k blocks, B 16 x 2, C 4 x 2
  assert.is(loads.length, 4 * 4 + 16 * 2);
  assert.is(stores.length, 4 * 2);
  assert.ok(ev.every((e) => gemminiDetail(e.detail).unrolled));
  const total = now(c);
  const arrayBusy = ex.reduce((s, e) => s + (e.end - e.start), 0);
  assert.is(arrayBusy, 512 * 16);
  // overlap: the run is shorter than its load, execute and store intervals laid end to end
  const serial = [...loads, ...ex, ...stores].reduce((s, e) => s + (e.end - e.start), 0);
  assert.ok(total >= arrayBusy && total < serial, `total ${total}, array ${arrayBusy}, serial ${serial}`);
  console.log(`loop_ws 64x256x128: ${total} cycles, array busy ${arrayBusy} (${(100 * arrayBusy / total).toFixed(1)}% of the 16x16 peak)`);
});

test('two loop_ws back to back (double-buffered halves): the array does not wait for the next loop loads', async () => {
  const c = await gemmini();
  const [M, K, N] = [64, 256, 128];
  loadMatmul(c, M, K, N);
  // the two column halves of C = A.B, each a loop of 4 x 4 x 16 blocks
  for (const j of [0, 1]) {
    loopWs(c, { I: 4, J: 4, K: 16, padI: 0, padJ: 0, padK: 0, A: DRAM, B: DRAM + 0x10_0000 + 64 * j, D: 0,
      C: DRAM + 0x20_0000 + 64 * j, strideA: K, strideB: N, strideD: 0, strideC: N, exAccumulate: 0 });
  }
  c.emu.gemmini_fence();
  const ev = readEvents(c.emu).events.filter((e) => e.kind === 'gemmini');
  const ex = ev.filter((e) => gemminiDetail(e.detail).unit === 'execute');
  const loads = ev.filter((e) => gemminiDetail(e.detail).unit === 'load');
  assert.is(ex.length, 2 * 4 * 4 * 16);
  assert.is(loads.length, 2 * (4 * 4 + 16));
  // the array idles between the loops for less than one DMA read latency (80): the second loop's operands were
  // moved in while the first loop computed (serialized, its first mvin would start after the first loop's stores)
  const streams = ex.map((e) => [e.start, e.end]).sort((a, b) => a[0] - b[0]);
  const gap = streams[256][0] - streams[255][1];
  console.log(`two loops: array idle ${gap} cycles between them`);
  assert.ok(gap < 80, `array idle ${gap} cycles between the loops`);
});

test.run();
