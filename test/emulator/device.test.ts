/** Clock and event semantics of the device API, driven directly from JS (no firmware needed). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { createEmulator, readEvents, readFault, type EmulatorExports } from '../../runtime/node/emulator.js';

// A class with a whole number of cycles per unit on every chip (DIV: its table entry is a hand count), so the
// expected clocks need no rounding.
const WORK = 8;
const MAC_CONV = 0;
const cycles = (v: bigint): number => Number(v);

function faultOf(emu: EmulatorExports, call: () => void): string {
  assert.throws(call);
  return readFault(emu) ?? '';
}

test('fork/join: the master waits for the slowest core, plus fork and join overheads', async () => {
  const emu = await createEmulator('siracusa');
  emu.compute(WORK, 10); // master work before the fork
  const before = cycles(emu.total_cycles());
  assert.is(emu.fork(0), 8);
  for (let c = 0; c < 8; c++) {
    emu.enter(c);
    emu.compute(WORK, 100 * (c === 5 ? 3 : 1));
  }
  emu.join();
  const el = emu.cost_cycles(WORK);
  assert.is(before, 10 * el);
  assert.is(cycles(emu.total_cycles()), before + emu.fork_cycles() + 300 * el + emu.join_cycles());
  assert.is(cycles(emu.agent_cycles(1)), before + emu.fork_cycles() + 100 * el);
  assert.is(cycles(emu.agent_cycles(6)), before + emu.fork_cycles() + 300 * el);
  assert.is(cycles(emu.agent_busy(6)), 300 * el);
});

test('fractional costs accumulate exactly: 32 conv MACs cost 32 x MAC_CONV cycles, not 32 roundings', async () => {
  const emu = await createEmulator('siracusa');
  // MAC_CONV is a fraction of a cycle, a whole number of cycles per 32 (the conv's 4x2 loop: kernels/streams.ts).
  const per = emu.cost_cycles(MAC_CONV);
  assert.ok(per < 1 && Number.isInteger(32 * per), `MAC_CONV ${per}`);
  for (let i = 0; i < 32; i++) emu.compute(MAC_CONV, 1);
  assert.is(cycles(emu.total_cycles()), 32 * per);
});

/*
 * A division's time follows its divisor on the CV32E40P-class cores (the core's user manual: div/rem take 3 to 35
 * cycles by the divisor's leading zero bits; the ISS's rule, emulator iss/timing.ts divExtra): 3 + clz(divisor).
 * Elsewhere (SpiNNaker2's Cortex-M4F) every division costs DIV's table entry.
 */
for (const platform of ['siracusa', 'generic']) {
  test(`${platform}: divide(units, divisor) charges 3 cycles plus the divisor's leading zero bits a division`, async () => {
    const emu = await createEmulator(platform);
    // divisor -> cycles of one division: no leading zero (a negative divisor's raw bits), 15, 31, and 0 (32)
    for (const [divisor, each] of [[-2147483648, 3], [-7, 3], [0x10000, 18], [1, 34], [0, 35], [0x7fffffff, 4]]) {
      const before = cycles(emu.total_cycles());
      emu.divide(5, divisor);
      assert.is(cycles(emu.total_cycles()) - before, 5 * each, `divisor ${divisor}`);
    }
    // on a cluster core too, as its busy time; and no cost class counts it
    if (platform === 'siracusa') {
      emu.fork(2);
      emu.enter(1);
      emu.divide(2, 0x100);
      emu.join();
      assert.is(cycles(emu.agent_busy(2)), 2 * (3 + 23));
    }
    for (let c = 0; c < COST_CLASSES.length; c++) assert.is(Number(emu.units_of(c)), 0, COST_CLASSES[c]);
  });
}

test('spinnaker2: divide charges DIV a division, whatever the divisor', async () => {
  const emu = await createEmulator('spinnaker2');
  const div = emu.cost_cycles(WORK);
  assert.ok(div > 0 && Number.isInteger(div));
  emu.divide(3, 1);
  emu.divide(3, 0x40000000);
  assert.is(cycles(emu.total_cycles()), 6 * div);
});

test('a team smaller than the cluster leaves the other cores idle', async () => {
  const emu = await createEmulator('siracusa');
  assert.is(emu.fork(2), 2);
  emu.enter(1);
  emu.compute(WORK, 1);
  assert.match(faultOf(emu, () => emu.enter(2)), /^enter: core 2 is not in the team of 2/);
  emu.join();
  assert.is(cycles(emu.agent_cycles(3)), 0);
});

test('misuse of fork, barrier, join and markers is a fault with a reason', async () => {
  const emu = await createEmulator('siracusa');
  assert.match(faultOf(emu, () => emu.join()), /join without a fork/);
  assert.match(faultOf(emu, () => emu.barrier()), /barrier outside a fork/);
  assert.match(faultOf(emu, () => emu.enter(0)), /enter outside a fork/);
  emu.fork(0);
  assert.match(faultOf(emu, () => emu.fork(0)), /nested fork/);
  assert.match(faultOf(emu, () => emu.layer_begin(1)), /no agent runs this/);
  emu.enter(0);
  emu.barrier();
  assert.match(faultOf(emu, () => emu.compute(WORK, 1)), /call enter\(core\) after fork\(\) or barrier\(\)/);
  assert.match(faultOf(emu, () => emu.divide(1, 7)), /^divide: no agent runs this work: call enter\(core\)/);
  // the memory model's declarations, with no agent to charge
  const streams = emu as unknown as { mem_stream(a: number, s: number, c: number, p: number, i: number): void; mem_latency(a: number, c: number): void };
  assert.match(faultOf(emu, () => streams.mem_stream(0, 4, 8, 2, 0)), /^mem_stream: no agent runs this loop: call enter\(core\)/);
  assert.match(faultOf(emu, () => streams.mem_latency(0, 8)), /^mem_latency: no agent runs these accesses: call enter\(core\)/);
  emu.enter(0);
  assert.match(faultOf(emu, () => emu.compute(COST_CLASSES.length, 1)), new RegExp(`unknown cost class ${COST_CLASSES.length}`));
  assert.match(faultOf(emu, () => emu.compute(WORK, -1)), /negative units -1/);
  assert.match(faultOf(emu, () => emu.divide(-2, 7)), /^divide: negative units -2/);
  emu.layer_begin(4);
  assert.match(faultOf(emu, () => emu.layer_begin(5)), /layer 4 is still open on agent 1/);
  assert.match(faultOf(emu, () => emu.layer_end(5)), /agent 1 has not begun that layer/);
});

test('layer events per agent, oldest first', async () => {
  const emu = await createEmulator('siracusa');
  emu.layer_begin(0);
  emu.fork(2);
  emu.enter(0);
  emu.layer_begin(0);
  emu.compute(WORK, 5);
  emu.layer_end(0);
  emu.join();
  emu.layer_end(0);
  const el = emu.cost_cycles(WORK);
  const f = emu.fork_cycles();
  assert.equal(readEvents(emu), {
    dropped: 0,
    events: [
      { kind: 'layer', agent: 1, layer: 0, detail: 0, start: f, end: f + 5 * el },
      // At join, each team core's share of the phase: from the fork to its own clock.
      { kind: 'share', agent: 1, layer: 0, detail: 0, start: f, end: f + 5 * el },
      { kind: 'share', agent: 2, layer: 0, detail: 0, start: f, end: f },
      { kind: 'layer', agent: 0, layer: 0, detail: 0, start: 0, end: f + 5 * el + emu.join_cycles() },
    ],
  });
});

test('share events per core and phase: a barrier starts the next phase at the latest clock plus its cost', async () => {
  const emu = await createEmulator('siracusa');
  emu.layer_begin(3);
  emu.fork(2);
  emu.enter(0);
  emu.compute(WORK, 2);
  emu.enter(1);
  emu.compute(WORK, 6);
  emu.barrier();
  emu.enter(0);
  emu.compute(WORK, 1);
  emu.enter(1);
  emu.join();
  emu.layer_end(3);
  const el = emu.cost_cycles(WORK);
  const f = emu.fork_cycles();
  const p1 = f + 6 * el + emu.barrier_cycles();
  const shares = readEvents(emu).events.filter((e) => e.kind === 'share');
  assert.equal(shares.map((e) => [e.agent, e.layer, e.detail, e.start, e.end]), [
    [1, 3, 0, f, f + 2 * el], [2, 3, 0, f, f + 6 * el],
    [1, 3, 1, p1, p1 + el], [2, 3, 1, p1, p1],
  ]);
});

test('the event ring keeps the newest records and counts the overwritten ones', async () => {
  const emu = await createEmulator('generic');
  const n = emu.events_capacity() + 3;
  for (let i = 0; i < n; i++) {
    emu.layer_begin(i);
    emu.layer_end(i);
  }
  const { events, dropped } = readEvents(emu);
  assert.is(dropped, 3);
  assert.is(events.length, emu.events_capacity());
  assert.is(events[0].layer, 3);
  assert.is(events[events.length - 1].layer, n - 1);
});

test('generic: the team is the master itself, at no cost', async () => {
  const emu = await createEmulator('generic');
  assert.is(emu.fork(0), 1);
  emu.enter(0);
  emu.compute(WORK, 4);
  emu.barrier();
  emu.enter(0);
  emu.compute(WORK, 4);
  emu.join();
  assert.is(cycles(emu.total_cycles()), 8 * emu.cost_cycles(WORK));
});

test.run();
