/** The cluster DMA device driven directly from JS: events, when data lands, per-core queues, misuse faults. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  createEmulator, dmaDetail, readEvents, readFault, readRegions, type EmulatorExports,
} from '../../runtime/node/emulator.js';

async function siracusa(): Promise<{ emu: EmulatorExports; l1: number; l2: number; mem: () => Uint8Array }> {
  const emu = await createEmulator('siracusa');
  const [l1, l2] = readRegions(emu).map((r) => r.linear);
  return { emu, l1, l2, mem: () => new Uint8Array(emu.memory.buffer) };
}

function faultOf(emu: EmulatorExports, call: () => void): string {
  assert.throws(call);
  return readFault(emu) ?? '';
}

const clock = (emu: EmulatorExports): number => Number(emu.total_cycles());

test('a DMA event: issuing agent, layer, the command bits with the channel, the engine interval', async () => {
  const { emu, l1, l2 } = await siracusa();
  const a = emu.dma_alloc();
  emu.dma_copy(a, l1, l2, 100, 1, 10, 64, 0, 0); // 10 rows of 10 bytes every 64: 10 x ceil(10/8) = 20 cycles
  emu.layer_begin(5);
  const b = emu.dma_alloc();
  emu.dma_copy(b, l1 + 512, l2 + 4096, 64, 0, 0, 0, 16, 32);
  emu.dma_wait(b);
  emu.layer_end(5);
  emu.dma_wait(a);
  const dma = readEvents(emu).events.filter((e) => e.kind === 'dma');
  assert.equal(dma.map((e) => [e.agent, e.layer, e.start, e.end]), [[0, -1, 6, 6 + 14 + 20], [0, 5, 12, 12 + 14 + 8]]);
  assert.equal(dmaDetail(dma[0].detail), { channel: 0, bytes: 100, toL1: true, ext2d: true, l12d: false });
  assert.equal(dmaDetail(dma[1].detail), { channel: 1, bytes: 64, toL1: false, ext2d: false, l12d: true });
});

test('data lands at any wait whose clock passes its completion, not only on its own channel', async () => {
  const { emu, l1, l2, mem } = await siracusa();
  mem().fill(9, l2, l2 + 64);
  const a = emu.dma_alloc();
  emu.dma_copy(a, l1, l2, 64, 1, 0, 0, 0, 0); // done at 1 + 3 + 14 + 8 = 26
  const b = emu.dma_alloc();
  emu.dma_copy(b, l1 + 4096, l2 + 4096, 4096, 0, 0, 0, 0, 0); // out of L1, issued at 8: done at 8 + 14 + 512
  assert.is(mem()[l1], 0, 'nothing lands at issue');
  emu.dma_wait(b);
  assert.is(clock(emu), 8 + 14 + 512);
  assert.is(mem()[l1], 9, 'a was complete when the wait for b returned');
  emu.dma_wait(a);
  assert.is(clock(emu), 8 + 14 + 512, 'a wait for a complete channel costs nothing');
});

test('the source is read at completion: a write to it before the wait is what arrives (a firmware bug)', async () => {
  const { emu, l1, l2, mem } = await siracusa();
  mem().fill(1, l2, l2 + 16);
  const a = emu.dma_alloc();
  emu.dma_copy(a, l1, l2, 16, 1, 0, 0, 0, 0);
  mem().fill(2, l2, l2 + 16);
  emu.dma_wait(a);
  assert.equal([...mem().subarray(l1, l1 + 16)], new Array(16).fill(2));
});

test('the command queue is per core: two cores each issue two transfers without stalling', async () => {
  const { emu, l1, l2 } = await siracusa();
  emu.fork(2);
  const chans: number[] = [];
  for (const core of [0, 1]) {
    emu.enter(core);
    const ch = emu.dma_alloc();
    chans.push(ch);
    emu.dma_copy(ch, l1 + core * 2048, l2 + core * 2048, 1024, 1, 0, 0, 0, 0);
    emu.dma_copy(ch, l1 + core * 2048 + 1024, l2 + core * 2048 + 1024, 1024, 1, 0, 0, 0, 0);
    assert.is(Number(emu.cycles()), emu.fork_cycles() + 7, 'alloc + 2 x 3 writes, no stall');
  }
  emu.enter(1);
  emu.dma_wait(chans[1]);
  // One engine into L1: core 0's two transfers, then core 1's, each 14 + 128 cycles.
  assert.is(Number(emu.cycles()), emu.fork_cycles() + 4 + 4 * (14 + 128));
  emu.enter(0);
  emu.dma_wait(chans[0]);
  emu.join();
});

test('a stride shorter than a row: the next-to-last row reaches furthest', async () => {
  const { emu, l1, l2 } = await siracusa();
  const l2End = l2 + 2 * 1024 * 1024;
  const ch = emu.dma_alloc();
  // 200 bytes in rows of 64 every 16: rows end at 64, 80, 96 and (the last, 8 bytes) 56: the extent is 96.
  emu.dma_copy(ch, l1, l2End - 96, 200, 1, 64, 16, 0, 0);
  assert.match(faultOf(emu, () => emu.dma_copy(ch, l1, l2End - 95, 200, 1, 64, 16, 0, 0)),
    /got 96 bytes at 0x1c1fffa1 \(region L2, runs past its end by 1 bytes\)/);
});

test('misuse: no DMA on generic, all channels taken, unknown or free channels, no agent, bad sizes', async () => {
  const generic = await createEmulator('generic');
  assert.is(faultOf(generic, () => generic.dma_alloc()), 'dma_alloc: this chip has no cluster DMA');
  assert.is(generic.dma_channels(), 0);

  const { emu, l1, l2 } = await siracusa();
  for (let i = 0; i < 16; i++) assert.is(emu.dma_alloc(), i);
  assert.is(faultOf(emu, () => emu.dma_alloc()), 'dma_alloc: all 16 channels are allocated (wait for and free one first)');
  emu.dma_free(3);
  assert.is(emu.dma_alloc(), 3, 'the lowest free id');
  assert.is(faultOf(emu, () => emu.dma_wait(16)), 'dma_wait: channel 16 does not exist (0..15)');
  emu.dma_free(5);
  assert.is(faultOf(emu, () => emu.dma_wait(5)), 'dma_wait: channel 5 is not allocated');
  assert.match(faultOf(emu, () => emu.dma_copy(3, l1, l2, 0, 1, 0, 0, 0, 0)), /a transfer moves 1 to 131071 bytes$/);
  assert.match(faultOf(emu, () => emu.dma_copy(3, l1, l2, 64, 1, 8, -8, 0, 0)),
    /external row length and stride must be >= 0 \(0: contiguous\), got 8 and -8$/);
  emu.fork(0);
  assert.is(faultOf(emu, () => emu.dma_alloc()), 'dma_alloc: no agent runs this (call enter(core) after fork or barrier)');
});

test('at most 1024 transfers may wait for their wait', async () => {
  const { emu, l1, l2 } = await siracusa();
  const ch = emu.dma_alloc();
  for (let i = 0; i < 1024; i++) emu.dma_copy(ch, l1 + 8 * i, l2 + 8 * i, 8, 1, 0, 0, 0, 0);
  assert.is(faultOf(emu, () => emu.dma_copy(ch, l1, l2, 8, 1, 0, 0, 0, 0)),
    'dma_copy: more than 1024 transfers issued and not waited for');
  emu.dma_wait(ch);
  // The first issues at 1 + 3; each then completes 14 + 1 cycles after the one before it (one engine).
  assert.is(clock(emu), 4 + 1024 * (14 + 1));
});

test.run();
