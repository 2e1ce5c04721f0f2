/** Siracusa's HyperRAM DMA driven directly from JS: blocking copies, their cycles (hand-worked), events, faults. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { siracusa as siracusaPlatform } from '../../generator/platforms/siracusa/platform.js';
import { farCopyCycles } from '../../generator/platforms/types.js';
import { Rng } from '../helpers/random.js';
import { createEmulator, l3Detail, readEvents, readFault, readRegions, type EmulatorExports } from '../../runtime/node/emulator.js';

async function siracusa(): Promise<{ emu: EmulatorExports; l1: number; l2: number; l3: number; mem: () => Uint8Array }> {
  const emu = await createEmulator('siracusa');
  const r = readRegions(emu);
  const at = (name: string): number => r.find((x) => x.name === name)!.linear;
  return { emu, l1: at('L1'), l2: at('L2'), l3: at('L3'), mem: () => new Uint8Array(emu.memory.buffer) };
}

function faultOf(emu: EmulatorExports, call: () => void): string {
  assert.throws(call);
  return readFault(emu) ?? '';
}

const clock = (emu: EmulatorExports): number => Number(emu.total_cycles());

// docs/timing.md "L3 (HyperRAM) DMA": setup 50, then per started 1 KiB burst 33 cycles of latency, and the data at
// 332 bytes per 360 cycles, rounded up.
test('a copy costs setup + 33 per 1 KiB burst + bytes x 360 / 332 (rounded up), and blocks the caller', async () => {
  const { emu, l2, l3, mem } = await siracusa();
  mem().fill(7, l3, l3 + 3000);
  emu.l3_copy(l2 + 64, l3, 3000, 0);
  // 3 bursts: 99; 3000 x 360 / 332 = 3253.01.. -> 3254
  assert.is(clock(emu), 50 + 99 + 3254);
  assert.is(mem()[l2 + 64], 7, 'the data is there when the call returns');
  assert.is(mem()[l2 + 64 + 2999], 7);
  assert.is(mem()[l2 + 64 + 3000], 0);
  assert.is(emu.l3_transfer_cycles(1), 33 + 2, '1 byte: one burst, ceil(360 / 332) = 2');
  assert.is(emu.l3_transfer_cycles(1024), 33 + 1111, '1024 x 360 / 332 = 1110.36..');
  assert.is(emu.l3_transfer_cycles(1025), 66 + 1112);
  assert.is(emu.l3_setup_cycles(), 50);
});

test('L2 to L3 writes L3; the event names caller, layer, bytes and direction', async () => {
  const { emu, l2, l3, mem } = await siracusa();
  mem().fill(5, l2, l2 + 100);
  emu.layer_begin(3);
  emu.l3_copy(l2, l3 + 4096, 100, 1);
  emu.layer_end(3);
  assert.is(mem()[l3 + 4096 + 99], 5);
  const l3Events = readEvents(emu).events.filter((e) => e.kind === 'l3');
  assert.is(l3Events.length, 1);
  const e = l3Events[0];
  assert.equal([e.agent, e.layer, e.start, e.end], [0, 3, 0, 50 + 33 + 109]); // 100 x 360 / 332 = 108.43..
  assert.equal(l3Detail(e.detail), { bytes: 100, toL3: true });
});

test('a cluster core may call it too: its own clock moves, not the master\'s', async () => {
  const { emu, l2, l3 } = await siracusa();
  emu.fork(0);
  emu.enter(2);
  emu.l3_copy(l2, l3, 332, 0);
  emu.join();
  assert.is(Number(emu.agent_cycles(3)), emu.fork_cycles() + 50 + 33 + 360);
  assert.is(clock(emu), emu.fork_cycles() + 50 + 33 + 360 + emu.join_cycles());
});

test('misuse is a fault naming the side: L1 is not on the HyperRAM DMA, the cluster DMA does not reach L3', async () => {
  const { emu, l1, l2, l3 } = await siracusa();
  assert.match(faultOf(emu, () => emu.l3_copy(l1, l3, 64, 0)), /^l3_copy: 64 bytes L3 to L2: the L2 side must lie inside L2, got .*L1/);
  assert.match(faultOf(emu, () => emu.l3_copy(l2, l2 + 4096, 64, 1)), /^l3_copy: 64 bytes L2 to L3: the L3 side must lie inside L3, got .*L2/);
  assert.match(faultOf(emu, () => emu.l3_copy(l2, l3 + 16 * 1024 * 1024 - 32, 64, 0)), /the L3 side must lie inside L3/);
  assert.match(faultOf(emu, () => emu.l3_copy(l2, l3, 0, 0)), /the length must be 1 \.\. 16 MiB - 1 bytes/);
  const ch = emu.dma_alloc();
  assert.match(faultOf(emu, () => emu.dma_copy(ch, l1, l3, 64, 1, 0, 0, 0, 0)), /the external side must lie inside L2, got 64 bytes at .*L3/);
});

test('the generator\'s model of a copy (platform description) equals the emulator\'s on random sizes', async () => {
  const { emu } = await siracusa();
  const rng = new Rng(11);
  for (const bytes of [1, 1023, 1024, 1025, ...rng.ints(200, 1, 2 * 1024 * 1024)]) {
    assert.is(farCopyCycles(siracusaPlatform.far!, bytes), emu.l3_setup_cycles() + emu.l3_transfer_cycles(bytes), `${bytes} bytes`);
  }
});

test('generic has no L3 DMA', async () => {
  const emu = await createEmulator('generic');
  assert.match(faultOf(emu, () => emu.l3_copy(0, 0, 4, 0)), /this chip has no L3 DMA/);
});

test.run();
