/**
 * L1 bank conflicts and L2 latency (emulator/assembly/banks.ts, docs/timing.md "L1 bank conflicts"): firmware whose
 * cores declare their inner loop's streams, with stall counts worked out by hand below, never read from the emulator.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { createEmulator } from '../../runtime/node/emulator.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../helpers/deeploy.js';

const CALL = COST_CLASSES.indexOf('CALL');
/**
 * The layer's own work, once per fork on core 0 (runtime/as/cost.ts LAYER), and a run's first layer's cold start with
 * it (CODE_RUN): set to 0 here, so the cores' loops start together.
 */
const LAYER = COST_CLASSES.indexOf('LAYER');
const CODE_RUN = COST_CLASSES.indexOf('CODE_RUN');
const NO_LAYER_WORK: number[] = [];
NO_LAYER_WORK[LAYER] = 0;
NO_LAYER_WORK[CODE_RUN] = 0;

/**
 * Each of `cores` cores declares `streams` (per stream: region, base as `BASE + core * CORE_STRIDE`, step) for a loop
 * of COUNT iterations of PERIOD cycles, and charges one CALL; a second phase after a barrier declares nothing.
 */
function firmware(o: { region: number; coreStride: number; step: number; count: number; period: number; streams?: number; secondStep?: number }): string {
  const streams = o.streams ?? 1;
  const extra = streams > 1
    ? `chip.mem_stream(base + 0x800, ${o.secondStep ?? o.step}, ${o.count}, ${o.period}, 1);`
    : '';
  const network = `
import { cluster_fork, core_id } from "./hal/cluster";
import { region_base } from "./hal/memory";
import * as chip from "./hal/chip";
import { CALL } from "./hal/cost";

function loop(_: usize): void {
  chip.compute(CALL, 1);
  const base = region_base(${o.region}) + 0x1000 + <usize>(core_id() * ${o.coreStride});
  chip.mem_stream(base, ${o.step}, ${o.count}, ${o.period}, 0);
  ${extra}
}

chip.layer_begin(0);
cluster_fork(loop, 0);
chip.layer_end(0);
store<i8>(region_base(1) + 0x100, load<i8>(region_base(1)));
`;
  return makeFirmware({
    platform: 'siracusa',
    network,
    layers: [{ id: 0, name: 'loop' }],
    tensors: [
      { name: 'x', role: 'input', dtype: 'int8', shape: [1], region: 'L2', address: 0x1c00_0000, bytes: 1 },
      { name: 'y', role: 'output', dtype: 'int8', shape: [1], region: 'L2', address: 0x1c00_0100, bytes: 1 },
    ],
  });
}

const x = ndarray('int8', [1], [5]);

/** The hand-worked examples replay the cores in lockstep (skew 0) unless they say otherwise; the chip's is measured. */
async function coreExtra(o: Parameters<typeof firmware>[0], bankSkew = 0): Promise<{ extra: number[]; cycles: number }> {
  const r = await runFirmware(firmware(o), [x], { bankSkew, costs: NO_LAYER_WORK });
  assert.equal([...r.outputs[0].data], [5]);
  const emu = await createEmulator('siracusa');
  const base = emu.fork_cycles() + emu.cost_cycles(CALL);
  // Busy cycles include the stalls (the core is stalled inside its loop); the clock too.
  for (let c = 0; c < 8; c++) assert.is(r.coreBusy[c] + emu.fork_cycles(), r.coreCycles[c]);
  return { extra: r.coreCycles.map((c) => c - base), cycles: r.cycles - emu.join_cycles() - base };
}

test('8 cores walking rows 64 bytes apart in lockstep start in one bank, then skew apart: core k stalls k cycles', async () => {
  // Core c reads 16 words from c x 64 (bank 0 for every core), step 4 (the next bank each access), one access per
  // cycle. Cycle 0: all 8 want bank 0, core 0 wins (round robin from 0). Cycle 1: core 0 is in bank 1 alone, cores
  // 1..7 want bank 0, core 1 wins; ... core k wins at cycle k. Afterwards core k is k banks behind core 0: the 8 cores
  // sit in 8 different banks every cycle. So core k stalls exactly k cycles: 0, 1, ..., 7 (28 in all).
  const r = await coreExtra({ region: 0, coreStride: 64, step: 4, count: 16, period: 1 });
  assert.equal(r.extra, [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.is(r.cycles, 7);
});

test('8 cores walking down a column with a row stride of 64 bytes conflict on every access; a stride of 68 never', async () => {
  // Core c starts at row c of a matrix with 64-byte rows and reads one word per row (step 64): every address of
  // every core is in bank 0. The bank grants one core per cycle, round robin: core k's i-th access is granted at
  // cycle 8i + k, so its 16 accesses end after cycle 8 x 15 + k: 121 + k cycles for 16 accesses, 105 + k stalls.
  const conflict = await coreExtra({ region: 0, coreStride: 64, step: 64, count: 16, period: 1 });
  assert.equal(conflict.extra, [105, 106, 107, 108, 109, 110, 111, 112]);
  // Padded to 68 bytes a row: core c starts in bank 17c mod 16 = c and each access moves one bank on (68 / 4 = 17):
  // the 8 cores are in 8 different banks in every cycle, no stall at all.
  const padded = await coreExtra({ region: 0, coreStride: 68, step: 68, count: 16, period: 1 });
  assert.equal(padded.extra, [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('a loop longer than the simulated window: the steady state of its second half is extrapolated', async () => {
  // As above (stride 64, all in bank 0) with 128 iterations; 64 are simulated. Core k's n-th grant is at 8(n-1) + k,
  // so after 32 iterations it has stalled 8 x 31 + k + 1 - 32 = 217 + k, after 64 iterations 441 + k: 224 stalls in
  // 32 iterations of steady state, 7 per iteration; 64 more iterations add 448: 889 + k, which is also exactly what
  // 128 simulated iterations give (8 x 127 + k + 1 - 128).
  const r = await coreExtra({ region: 0, coreStride: 64, step: 64, count: 128, period: 1 });
  assert.equal(r.extra, [889, 890, 891, 892, 893, 894, 895, 896]);
});

test('a loop of period 2 with one access per iteration: cores pair up on the free cycle', async () => {
  // Period 2: an access in slot 0, a compute cycle in slot 1. All 8 cores read bank 0 every iteration (step 64).
  // Cycle 0: core 0 granted; 1: core 1 granted, core 0 computes; 2: core 0 (its 2nd access, the pointer is at 2:
  // cores 2..7 and 0 request, core 2 wins), ... The bank serves one access per cycle and there are 8 x 16 = 128
  // accesses, so the last grant is at cycle 127 at the earliest; round robin hands them out in turn, core k's i-th
  // grant at 8i + k (each core requests again at most 2 cycles after its grant and is served 8 cycles later), its
  // last at 8 x 15 + k, then 1 compute cycle: 8 x 15 + k + 2 = 122 + k cycles for 32 cycles of work, 90 + k stalls.
  const r = await coreExtra({ region: 0, coreStride: 64, step: 64, count: 16, period: 2 });
  assert.equal(r.extra, [90, 91, 92, 93, 94, 95, 96, 97]);
});

test('cores whose loops start apart (the skew) do not meet where the lockstep replay makes them wait', async () => {
  // The first example with core c starting c x 1 cycles later: core c reaches bank 0 at cycle c, when core c - 1 has
  // moved to bank 1: no two cores ever want one bank in one cycle, no stall (lockstep: 0..7).
  const rows = await coreExtra({ region: 0, coreStride: 64, step: 4, count: 16, period: 1 }, 1);
  assert.equal(rows.extra, [0, 0, 0, 0, 0, 0, 0, 0]);
  // The column walk (every access in bank 0) with the cores 16 cycles apart: each core's 16 accesses are over before
  // the next core starts, no stall (lockstep: 105..112).
  const column = await coreExtra({ region: 0, coreStride: 64, step: 64, count: 16, period: 1 }, 16);
  assert.equal(column.extra, [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('the chip\'s skew is the measured one (chips/siracusa-measured.ts, written by the cost fit), not lockstep', async () => {
  const measured = readFileSync(join(REPO, 'emulator/assembly/chips/siracusa-measured.ts'), 'utf8');
  const skew = Number(/SIRACUSA_BANK_SKEW: i32 = (\d+);/.exec(measured)?.[1]);
  assert.ok(skew > 0);
  // Rows 64 bytes apart with a period longer than the skew x 7: the cores never overlap on a bank in the replay.
  const r = await runFirmware(firmware({ region: 0, coreStride: 64, step: 64, count: 1, period: 1 }), [x], { costs: NO_LAYER_WORK });
  const emu = await createEmulator('siracusa');
  const base = emu.fork_cycles() + emu.cost_cycles(CALL);
  assert.equal(r.coreCycles.map((c) => c - base), [0, 0, 0, 0, 0, 0, 0, 0]);
  const lockstep = await coreExtra({ region: 0, coreStride: 64, step: 64, count: 1, period: 1 });
  assert.equal(lockstep.extra, [0, 1, 2, 3, 4, 5, 6, 7]);
});

test('a core reading L2 pays the assumed L2 access on every access, at once', async () => {
  // 100 accesses in L2: 100 x (20 - 1) cycles on top of the cost tables' 1 per access (chips/siracusa-memory.ts).
  const r = await coreExtra({ region: 1, coreStride: 64, step: 64, count: 100, period: 1 });
  assert.equal(r.extra, new Array(8).fill(1900));
  const emu = await createEmulator('siracusa');
  const e = emu as unknown as { l2_access_cycles(): number; l1_banks(): number };
  assert.is(e.l2_access_cycles(), 20);
  assert.is(e.l1_banks(), 16);
});

test('accesses at addresses that follow the data (mem_latency): L2\'s latency each in L2, nothing and no bank slot in L1', async () => {
  // Each core declares 100 such accesses in region `region` (0: L1, 1: L2) beside one L1 stream that would conflict
  // with nothing; in L2 each pays 20 - 1 cycles on top of the cost tables' 1 (chips/siracusa-memory.ts), in L1 none.
  const latency = (region: number): string => makeFirmware({
    platform: 'siracusa',
    network: `
import { cluster_fork, core_id } from "./hal/cluster";
import { region_base } from "./hal/memory";
import * as chip from "./hal/chip";
import { CALL } from "./hal/cost";

function loop(_: usize): void {
  chip.compute(CALL, 1);
  chip.mem_latency(region_base(${region}) + 0x1000 + <usize>(core_id() * 4), 100);
}

chip.layer_begin(0);
cluster_fork(loop, 0);
chip.layer_end(0);
store<i8>(region_base(1) + 0x100, load<i8>(region_base(1)));
`,
    layers: [{ id: 0, name: 'loop' }],
    tensors: [
      { name: 'x', role: 'input', dtype: 'int8', shape: [1], region: 'L2', address: 0x1c00_0000, bytes: 1 },
      { name: 'y', role: 'output', dtype: 'int8', shape: [1], region: 'L2', address: 0x1c00_0100, bytes: 1 },
    ],
  });
  const emu = await createEmulator('siracusa');
  const base = emu.fork_cycles() + emu.cost_cycles(CALL);
  for (const [region, each] of [[1, 1900], [0, 0]]) {
    const r = await runFirmware(latency(region), [x], { costs: NO_LAYER_WORK });
    assert.equal([...r.outputs[0].data], [5]);
    assert.equal(r.coreCycles.map((c) => c - base), new Array(8).fill(each), `region ${region}`);
  }
});

test.run();
