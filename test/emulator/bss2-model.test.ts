/**
 * The emulator's BrainScaleS-2 analog core against the generator's reference model (generator/platforms/brainscales2/
 * analog/), bit for bit: fixed-pattern noise on for several chip seeds, temporal noise off (and on, seeded: the
 * streams are drawn in the same order); without noise, equal to SEMANTICS.md 3's mock formula; the faults.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AnalogChip, mockMatmul, type ChipConfig } from '../../generator/platforms/brainscales2/analog/chip-model.js';
import { XorShift32 } from '../../generator/platforms/brainscales2/analog/random.js';
import { createEmulator, readFault, readRegions, type EmulatorExports } from '../../runtime/node/emulator.js';

interface Emu {
  emu: EmulatorExports;
  dram: number;
}

async function chip(cfg: ChipConfig): Promise<Emu> {
  const emu = await createEmulator('brainscales2');
  emu.bss2_chip(cfg.chipSeed, cfg.fixedPattern ? 1 : 0, cfg.noiseSeed, cfg.noiseStd);
  return { emu, dram: readRegions(emu)[0].linear };
}

/** Test data from a seeded stream of its own (not the model's). */
function ints(seed: number, n: number, lo: number, hi: number): number[] {
  const r = new XorShift32(seed | 1);
  return Array.from({ length: n }, () => lo + (r.next() % (hi - lo + 1)));
}

function bytes(e: Emu): Uint8Array {
  return new Uint8Array(e.emu.memory.buffer);
}

/** Writes a block and runs every input vector on it, in the emulator and in the reference; returns both outputs. */
function both(e: Emu, ref: AnalogChip, a: number, row0: number, col0: number, rows: number, cols: number, w: number[], xs: number[][], ns: number, gain: number): [number[], number[]] {
  const mem = bytes(e);
  const W = e.dram;
  for (let i = 0; i < w.length; i++) mem[W + i] = w[i] & 0xff;
  e.emu.bss2_configure(a, row0, col0, rows, cols, W, cols);
  ref.configure(a, row0, col0, rows, cols, (r, c) => w[r * cols + c]);
  const X = e.dram + 0x10_0000;
  const Y = e.dram + 0x20_0000;
  const got: number[] = [];
  const want: number[] = [];
  for (const x of xs) {
    mem.set(x, X);
    e.emu.bss2_run(a, row0, col0, rows, cols, X, Y, ns, 5, gain);
    got.push(...new Int8Array(e.emu.memory.buffer, Y, cols));
    want.push(...ref.run(a, row0, col0, rows, cols, x, ns, gain));
  }
  return [got, want];
}

for (const seed of [1, 7, 2026]) {
  test(`chip seed ${seed}: fixed-pattern noise on, temporal off, equal to the reference bit for bit`, async () => {
    const cfg: ChipConfig = { chipSeed: seed, fixedPattern: true, noiseSeed: 0, noiseStd: 0 };
    const e = await chip(cfg);
    const ref = new AnalogChip(cfg);
    for (const [a, row0, col0, rows, cols, ns] of [[0, 0, 0, 128, 256, 1], [1, 0, 0, 128, 256, 3], [1, 17, 40, 100, 200, 2], [0, 127, 255, 1, 1, 1]]) {
      const w = ints(seed * 31 + a, rows * cols, -63, 63);
      const xs = [0, 1, 2, 3].map((i) => ints(seed * 97 + i + row0, rows, 0, 31));
      const [got, want] = both(e, ref, a, row0, col0, rows, cols, w, xs, ns, 0.002);
      assert.equal(got, want);
      // the outputs use the int8 range: not all clipped, not all zero
      assert.ok(got.some((v) => v !== 0) && got.some((v) => v > -128 && v < 127));
    }
    for (const [a, r, c] of [[0, 0, 0], [1, 100, 37], [0, 127, 255]]) {
      assert.is(e.emu.bss2_effective_weight(a, r, c), (ref as unknown as { eff: Float64Array[] }).eff[a][r * 256 + c]);
    }
  });
}

test('two chip seeds give different outputs from the same weights and inputs (the fixed pattern is seeded)', async () => {
  const run = async (s: number): Promise<number[]> => {
    const cfg: ChipConfig = { chipSeed: s, fixedPattern: true, noiseSeed: 0, noiseStd: 0 };
    return both(await chip(cfg), new AnalogChip(cfg), 0, 0, 0, 128, 64, ints(5, 128 * 64, -63, 63), [ints(6, 128, 0, 31)], 1, 0.002)[0];
  };
  const a = await run(1);
  assert.equal(await run(1), a);
  assert.not.equal(await run(2), a);
});

test('temporal noise on (seeded): equal to the reference too, and a different noise seed changes it', async () => {
  const cfg: ChipConfig = { chipSeed: 3, fixedPattern: true, noiseSeed: 11, noiseStd: 2.0 };
  const w = ints(8, 128 * 256, -63, 63);
  const xs = [0, 1, 2].map((i) => ints(40 + i, 128, 0, 31));
  const [got, want] = both(await chip(cfg), new AnalogChip(cfg), 1, 0, 0, 128, 256, w, xs, 1, 0.002);
  assert.equal(got, want);
  const quiet = { ...cfg, noiseStd: 0 };
  const [still] = both(await chip(quiet), new AnalogChip(quiet), 1, 0, 0, 128, 256, w, xs, 1, 0.002);
  assert.not.equal(got, still);
});

test('no fixed pattern, no temporal noise: the mock formula of SEMANTICS.md 3', async () => {
  const cfg: ChipConfig = { chipSeed: 9, fixedPattern: false, noiseSeed: 0, noiseStd: 0 };
  const w = ints(12, 128 * 256, -63, 63);
  const xs = [0, 1].map((i) => ints(50 + i, 128, 0, 31));
  const [got] = both(await chip(cfg), new AnalogChip(cfg), 0, 0, 0, 128, 256, w, xs, 2, 0.002);
  assert.equal(got, mockMatmul(xs.flat(), w, 2, 128, 256, 2, 0.002));
});

test('time and counters of a run and a block write (chips/brainscales2.ts figures)', async () => {
  const e = await chip({ chipSeed: 1, fixedPattern: true, noiseSeed: 0, noiseStd: 0 });
  const t0 = Number(e.emu.cycles());
  e.emu.bss2_configure(0, 0, 0, 100, 200, e.dram, 200);
  const t1 = Number(e.emu.cycles());
  // two synapses per weight, a byte each, 2 core cycles per byte over Gigabit Ethernet
  assert.is(t1 - t0, 2 * 100 * 200 * 2);
  e.emu.bss2_run(0, 0, 0, 100, 200, e.dram, e.dram + 4096, 3, 5, 0.002);
  const t2 = Number(e.emu.cycles());
  // inputs and outputs over the link, then 3 sends x 100 rows x 5 FPGA cycles + 250, 2 core cycles per FPGA cycle
  assert.is(t2 - t1, (100 + 200) * 2 + (3 * 100 * 5 + 250) * 2);
  assert.equal([0, 1, 2, 3, 5, 6].map((i) => Number(e.emu.bss2_stat(i))), [1, 1, (3 * 100 * 5 + 250) * 2, 2 * 100 * 200 + 300, 40000, 20000]);
});

function fault(e: Emu, f: () => void): string {
  try {
    f();
  } catch {
    return readFault(e.emu) ?? "fault without a message";
  }
  return 'no fault';
}

test('faults name the command, the block or address, and the layer', async () => {
  const e = await chip({ chipSeed: 1, fixedPattern: true, noiseSeed: 0, noiseStd: 0 });
  const d = e.dram;
  assert.is(fault(e, () => e.emu.bss2_configure(2, 0, 0, 1, 1, d, 1)), 'brainscales2 configure: no synapse array 2 (the chip has arrays 0 and 1) outside any layer');
  assert.is(fault(e, () => e.emu.bss2_run(0, 100, 0, 29, 1, d, d + 64, 1, 5, 0.002)), 'brainscales2 run: rows 100..128 outside the array\'s 128 signed rows outside any layer');
  e.emu.layer_begin(4);
  assert.match(fault(e, () => e.emu.bss2_run(0, 0, 200, 1, 57, d, d + 64, 1, 5, 0.002)), /^brainscales2 run: columns 200\.\.256 outside the array's 256 columns in layer 4/);
  bytes(e)[d] = 32;
  assert.match(fault(e, () => e.emu.bss2_run(0, 0, 0, 1, 1, d, d + 64, 1, 5, 0.002)), /^brainscales2 run: input 32 outside \[0, 31\] \(5 bit\) in layer 4/);
  bytes(e)[d] = 64;
  assert.match(fault(e, () => e.emu.bss2_configure(1, 0, 0, 1, 1, d, 1)), /^brainscales2 configure: weight 64 at row 0, column 0 of the block outside \[-63, 63\]/);
  const end = d + 64 * 1024 * 1024;
  assert.match(fault(e, () => e.emu.bss2_run(0, 0, 0, 8, 1, end - 4, d, 1, 5, 0.002)), /^brainscales2 run: inputs \(8 bytes at 0x83fffffc \(region DRAM\) outside the chip's memory/);
  assert.match(fault(e, () => e.emu.bss2_run(0, 0, 0, 1, 1, d, d + 8, 0, 5, 0.002)), /num_sends must be 1\.\.255/);
});

test.run();
