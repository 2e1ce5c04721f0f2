/** Fork/join and barriers through the HAL: data moves as written and clocks follow docs/firmware-abi.md. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { createEmulator } from '../../runtime/node/emulator.js';
import { runFirmware } from '../../runtime/node/run.js';
import { makeFirmware } from './fixture.js';

// Cost class ids (runtime/as/cost.ts), by name from COST_CLASSES, its numbering (test/emulator/cost.test checks they agree).
// A class with a whole number of cycles per unit on every chip (DIV: its table entry is a hand count), so the
// expected clocks need no rounding.
const WORK = COST_CLASSES.indexOf('DIV');
const COPY_BYTE = COST_CLASSES.indexOf('COPY_BYTE');
const CALL = COST_CLASSES.indexOf('CALL');
/** A share's bounds (runtime/as/cost.ts SHARE), charged by share_end. */
const SHARE = COST_CLASSES.indexOf('SHARE');
/** The layer's own work (runtime/as/cost.ts LAYER): once per fork, on core 0 before its first share. */
const LAYER = COST_CLASSES.indexOf('LAYER');
/** A run's first layer's cold start (runtime/as/cost.ts CODE_RUN): with the first fork's LAYER, once a run. */
const CODE_RUN = COST_CLASSES.indexOf('CODE_RUN');

const COPY = `
import { cluster_fork, share_begin, share_end } from "./hal/cluster";
import { chip_to_linear } from "./hal/memory";
import * as chip from "./hal/chip";
import { CALL, COPY_BYTE } from "./hal/cost";

@unmanaged class CopyArgs { src: usize = 0; dst: usize = 0; n: i32 = 0; }

function copyShare(p: usize): void {
  const a = changetype<CopyArgs>(p);
  const b = share_begin(a.n);
  const e = share_end(a.n);
  chip.compute(CALL, 1);
  memory.copy(a.dst + <usize>b, a.src + <usize>b, <usize>(e - b));
  chip.compute(COPY_BYTE, e - b);
}

const args = new CopyArgs();
args.src = chip_to_linear(0x1C00_0000);
args.dst = chip_to_linear(0x1C00_1000);
args.n = 64;
chip.layer_begin(0);
chip.check(args.src, args.n, 0);
chip.check(args.dst, args.n, 1);
cluster_fork(copyShare, changetype<usize>(args));
chip.layer_end(0);
`;

function copyFixture(platform: string, cores?: number): string {
  const base = platform === 'generic' ? 0 : 0x1c00_0000;
  const region = platform === 'generic' ? 'RAM' : 'L2';
  const network = platform === 'generic' ? COPY.replace('0x1C00_0000', '0x0').replace('0x1C00_1000', '0x1000') : COPY;
  return makeFirmware({
    platform,
    cores,
    network,
    layers: [{ id: 0, name: 'copy' }],
    tensors: [
      { name: 'x', role: 'input', dtype: 'int8', shape: [64], region, address: base, bytes: 64 },
      { name: 'y', role: 'output', dtype: 'int8', shape: [64], region, address: base + 0x1000, bytes: 64 },
    ],
  });
}

const x = ndarray('int8', [64], Array.from({ length: 64 }, (_, i) => i - 32));

test('a cluster fork copies the input to the output, each core one share', async () => {
  const out = copyFixture('siracusa');
  // The chip's table with a LAYER of its own: the fitted one is 0 on Siracusa (its fixed costs went to the instruction
  // cache's cold code, docs/timing.md), where the lead core's extra would not show.
  const emu = await createEmulator('siracusa');
  const costs = COST_CLASSES.map((_, k) => emu.cost_cycles(k));
  costs[LAYER] = 100;
  const r = await runFirmware(out, [x], { costs });
  assert.equal([...r.outputs[0].data], [...x.data]);
  assert.equal(r.outputs[0].dtype, 'int8');
  assert.equal(r.outputs[0].shape, [64]);
  assert.equal(r.outputNames, ['y']);

  // 8 cores, 8 bytes each: every core pays fork + CALL + SHARE + 8 COPY_BYTE, core 0 the layer's own work (LAYER)
  // and, the run's first layer, CODE_RUN first; the master then join. Clocks are reported in whole cycles, rounded
  // down (docs/timing.md, "Clocks").
  const share = emu.fork_cycles() + costs[CALL] + costs[SHARE] + 8 * costs[COPY_BYTE];
  const core = Math.floor(share);
  const lead = Math.floor(share + costs[LAYER] + costs[CODE_RUN]);
  assert.equal(r.coreCycles, [lead, ...new Array(7).fill(core)]);
  assert.equal(r.cycles, lead + emu.join_cycles());
  assert.equal(r.layers.length, 1);
  assert.equal(r.layers[0], { layer: 0, name: 'copy', agent: 0, agentName: 'master', start: 0, end: r.cycles, cycles: r.cycles });
});

test('fewer cores from the manifest: shares grow, the team shrinks', async () => {
  const r = await runFirmware(copyFixture('siracusa', 2), [x]);
  assert.equal([...r.outputs[0].data], [...x.data]);
  const emu = await createEmulator('siracusa', 2);
  const share = emu.fork_cycles() + emu.cost_cycles(CALL) + emu.cost_cycles(SHARE) + 32 * emu.cost_cycles(COPY_BYTE);
  const lead = Math.floor(share + emu.cost_cycles(LAYER) + emu.cost_cycles(CODE_RUN));
  assert.equal(r.coreCycles, [lead, Math.floor(share)]);
  assert.equal(r.cycles, lead + emu.join_cycles());
});

test('on generic the master runs the whole team share itself, with no fork overhead', async () => {
  const r = await runFirmware(copyFixture('generic'), [x]);
  assert.equal([...r.outputs[0].data], [...x.data]);
  const emu = await createEmulator('generic');
  assert.equal(r.coreCycles, []);
  assert.equal(r.cycles, Math.floor(emu.cost_cycles(CALL) + emu.cost_cycles(SHARE) + 64 * emu.cost_cycles(COPY_BYTE)));
});

// Phase 1: core c adds 1 to its share of x into y and spends (c+1)*100 WORK (DIV) units; barrier; phase 2: each core
// writes its share of z reversed from y (reading other cores' phase-1 results) and spends (8-c)*10 units.
const PHASES = `
import { cluster_begin, cluster_run, cluster_barrier, cluster_end, core_id, num_cores, share_begin, share_end } from "./hal/cluster";
import { region_base } from "./hal/memory";
import * as chip from "./hal/chip";
import { DIV as WORK } from "./hal/cost";

const L2 = region_base(1);
const X = L2, Y = L2 + 0x100, Z = L2 + 0x200, N: i32 = 64;

function addOne(_: usize): void {
  for (let i = share_begin(N); i < share_end(N); i++) store<i8>(Y + <usize>i, load<i8>(X + <usize>i) + 1);
  chip.compute(WORK, (core_id() + 1) * 100);
}

function reverse(_: usize): void {
  for (let i = share_begin(N); i < share_end(N); i++) store<i8>(Z + <usize>i, load<i8>(Y + <usize>(N - 1 - i)));
  chip.compute(WORK, (num_cores() - core_id()) * 10);
}

chip.layer_begin(7);
cluster_begin();
cluster_run(addOne, 0);
cluster_barrier();
cluster_run(reverse, 0);
cluster_end();
chip.layer_end(7);
`;

test('barrier: phase 2 starts for every core at the slowest phase-1 core plus the barrier cost', async () => {
  const out = makeFirmware({
    platform: 'siracusa',
    network: PHASES,
    tensors: [
      { name: 'x', role: 'input', dtype: 'int8', shape: [64], region: 'L2', address: 0x1c00_0000, bytes: 64 },
      { name: 'z', role: 'output', dtype: 'int8', shape: [64], region: 'L2', address: 0x1c00_0200, bytes: 64 },
    ],
  });
  const r = await runFirmware(out, [x]);
  assert.equal([...r.outputs[0].data], [...x.data].reverse().map((v) => v + 1));

  const emu = await createEmulator('siracusa');
  const el = emu.cost_cycles(WORK);
  const layer = emu.cost_cycles(LAYER) + emu.cost_cycles(CODE_RUN);
  // Core 0 does the layer's own work (LAYER, and CODE_RUN: the run's first layer) before phase 1; the slowest phase-1
  // core is core 7 all the same.
  assert.ok(layer + 100 * el < 800 * el);
  const afterBarrier = emu.fork_cycles() + 8 * 100 * el + emu.barrier_cycles();
  assert.equal(r.coreCycles, Array.from({ length: 8 }, (_, c) => afterBarrier + (8 - c) * 10 * el));
  assert.equal(r.cycles, afterBarrier + 8 * 10 * el + emu.join_cycles());
  assert.equal(r.coreBusy, Array.from({ length: 8 }, (_, c) => ((c + 1) * 100 + (8 - c) * 10) * el + (c === 0 ? layer : 0)));
  assert.equal(r.layers.map((l) => [l.layer, l.start, l.end]), [[7, 0, r.cycles]]);
});

test.run();
