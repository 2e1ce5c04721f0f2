/**
 * The SpiNNaker2 chip model through its device calls, driven from JS as the firmware drives them: the region
 * table, the interrupt protocol and its clocks (emulator/assembly/pes.ts), the per-PE DMA with the shared DRAM
 * (pe-dma.ts), the MLA (mla.ts), and the faults that catch protocol mistakes. Timing formulas: docs/timing.md.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmulator, readFault, readRegions, type EmulatorExports, type Region } from '../../runtime/node/emulator.js';

const S2 = 2;

async function chip(pes = 0): Promise<{ emu: EmulatorExports; regions: Region[] }> {
  const emu = await createEmulator('spinnaker2', pes);
  return { emu, regions: readRegions(emu) };
}

function fault(emu: EmulatorExports, f: () => void): string {
  try {
    f();
  } catch {
    return readFault(emu) ?? 'no fault message';
  }
  assert.unreachable('expected a fault');
  return '';
}

const now = (emu: EmulatorExports): number => Number(emu.cycles());

test('regions: the DRAM, then 152 PE SRAMs of 128 KiB, 128 KiB apart; the memory grew to hold them', async () => {
  const { emu, regions } = await chip();
  assert.is(regions.length, 153);
  assert.equal(regions[0], { index: 0, name: 'DRAM', chip: 0x8000_0000, size: 64 << 20, linear: 0x80_0000 });
  regions.slice(1).forEach((r, p) => {
    assert.equal(r, { index: p + 1, name: `PE${p}`, chip: 0x1000_0000 + p * 0x2_0000, size: 0x2_0000, linear: 0x480_0000 + p * 0x2_0000 });
  });
  assert.is(emu.memory.buffer.byteLength, emu.memory_pages() * 65536);
  assert.ok(regions[152].linear + regions[152].size <= emu.memory.buffer.byteLength);
  assert.is(emu.pe_count(), 152);
  assert.is(emu.core_count(), 151);
  assert.is(emu.mla_peak_macs(), 64);
});

test('configure: 2..152 PEs; 1 or 153 is a fault', async () => {
  const { emu } = await chip(4);
  assert.is(readRegions(emu).length, 5);
  assert.is(emu.configure(S2, 2), 1);
  assert.match(fault(emu, () => emu.configure(S2, 1)), /cannot model 1 cores/);
  assert.match(fault(emu, () => emu.configure(S2, 153)), /at most 152/);
});

test('a round: raise (3 cycles + 32 latency), wake (+12 entry), signal, wait resumes at the last arrival + 12', async () => {
  const { emu } = await chip(8);
  emu.compute(3, 100); // ELEMENT: 6 cycles each on the Cortex-M4 (docs/timing.md)
  assert.is(now(emu), 600);
  emu.irq_raise(3, 0x10007, 0x8000_0100);
  emu.irq_raise(5, 8, 0x8000_0200);
  assert.is(now(emu), 606);
  assert.is(emu.irq_next(), 3);
  emu.pe_wake(3);
  assert.is(emu.pe_id(), 3);
  assert.is(now(emu), 603 + 32 + 12);
  assert.equal([emu.irq_key(), emu.irq_payload() >>> 0], [0x10007, 0x8000_0100]);
  emu.compute(3, 10);
  emu.pe_signal(0);
  assert.is(emu.pe_id(), -1);
  emu.pe_wake(5);
  assert.is(now(emu), 606 + 32 + 12);
  emu.compute(3, 1000);
  const done5 = now(emu);
  emu.pe_signal(0);
  assert.is(emu.irq_next(), -1);
  emu.pe_wait(2);
  assert.is(emu.pe_id(), 0);
  assert.is(now(emu), done5 + 3 + 32 + 12);
  assert.is(Number(emu.agent_cycles(3)), 647 + 60 + 3);
  emu.pe_finish();
});

test('faults: wake without interrupt, out of order, signal with open DMA, wait for more signals than sent', async () => {
  const { emu, regions } = await chip(4);
  assert.match(fault(emu, () => emu.pe_wake(2)), /PE 2 has no interrupt pending/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  emu.irq_raise(2, 1, 0);
  assert.match(fault(emu, () => emu.pe_wake(2)), /not the next interrupted PE/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  assert.match(fault(emu, () => emu.irq_raise(1, 0, 0)), /PE 1 already has an interrupt pending/);
  emu.pe_wake(1);
  emu.pe_dma(regions[2].linear, regions[0].linear, 64, 1, 0, 0);
  assert.match(fault(emu, () => emu.pe_signal(0)), /PE 1 signals with DMA transfers not waited for/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  emu.pe_wake(1);
  emu.pe_signal(0);
  assert.match(fault(emu, () => emu.pe_wait(2)), /waits for 2 completion signals, 1 arrived/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  assert.match(fault(emu, () => emu.pe_wait(1)), /PE 1 was interrupted but never ran/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  emu.pe_wake(1);
  assert.match(fault(emu, () => emu.fork(0)), /no cluster/);
  emu.configure(S2, 4);
  emu.irq_raise(1, 0, 0);
  emu.pe_wake(1);
  emu.pe_signal(0);
  assert.match(fault(emu, () => emu.compute(3, 1)), /no agent runs this work/);
});

test('DMA: latency 64 + 4 issue + bytes / 8 alone; the data lands at the wait, not before', async () => {
  const { emu, regions } = await chip(4);
  const dram = new Uint8Array(emu.memory.buffer, regions[0].linear, 4096);
  const sram = new Uint8Array(emu.memory.buffer, regions[1].linear + 0x8000, 4096);
  dram.set(Array.from({ length: 1024 }, (_, i) => i & 255));
  const t = emu.pe_dma(regions[1].linear + 0x8000, regions[0].linear, 1024, 1, 0, 0);
  assert.is(sram[5], 0, 'nothing lands at issue');
  emu.pe_dma_wait(t);
  assert.is(now(emu), 4 + 64 + 1024 / 8);
  assert.equal([...sram.subarray(0, 1024)], [...dram.subarray(0, 1024)]);
  // 2-D on the DRAM side: 4 rows of 16 bytes, 100 bytes apart.
  dram.fill(7, 1000, 1016);
  const t2 = emu.pe_dma(regions[1].linear + 0x9000, regions[0].linear + 700, 64, 1, 16, 100);
  emu.pe_dma_wait(t2);
  const got = new Uint8Array(emu.memory.buffer, regions[1].linear + 0x9000, 64);
  assert.equal([...got.subarray(48, 64)], new Array(16).fill(7));
  assert.equal([...got.subarray(0, 16)], [...dram.subarray(700, 716)]);
  emu.pe_dma_finish();
});

test('DMA: with n PEs in a round each gets 1/n of the DRAM (3/64 cycle per byte each): from 3 on, DRAM-bound', async () => {
  for (const n of [1, 2, 3, 6]) {
    const { emu, regions } = await chip(8);
    for (let p = 1; p <= n; p++) emu.irq_raise(p, 0, 0);
    emu.pe_wake(1);
    const t0 = now(emu);
    emu.pe_dma_wait(emu.pe_dma(regions[2].linear, regions[0].linear, 6400, 1, 0, 0));
    const perByte = Math.max(1 / 8, (n * 3) / 64);
    assert.is(now(emu) - t0, 4 + 64 + 6400 * perByte, `${n} PEs`);
  }
});

test('DMA faults: SRAM of another PE, outside DRAM, more than 131071 bytes', async () => {
  const { emu, regions } = await chip(4);
  assert.match(fault(emu, () => emu.pe_dma(regions[2].linear, regions[0].linear, 64, 1, 0, 0)), /must lie in the issuing PE's own SRAM/);
  assert.match(fault(emu, () => emu.pe_dma(regions[1].linear, regions[0].linear + (64 << 20) - 8, 64, 1, 0, 0)), /must lie in the DRAM/);
  assert.match(fault(emu, () => emu.pe_dma(regions[1].linear, regions[0].linear, 131072, 1, 0, 0)), /1 to 131071 bytes/);
});

test('MLA: int32 products with signedness per operand and strides; 4x16 blocks of K + 16 cycles after 10 of setup', async () => {
  const { emu, regions } = await chip(2);
  const base = regions[1].linear + 0x8000;
  const mem = new DataView(emu.memory.buffer);
  const M = 5;
  const N = 17;
  const K = 33;
  const a = Array.from({ length: M * K }, (_, i) => ((i * 37) % 256) - 128);
  const b = Array.from({ length: K * N }, (_, i) => (i * 91) % 256);
  a.forEach((v, i) => mem.setInt8(base + i, v));
  b.forEach((v, i) => mem.setUint8(base + 0x1000 + i, v));
  const out = base + 0x2000;
  emu.mla_start(base, base + 0x1000, out, M, N, K, K, 1, 1, K, N * 4, 1); // A signed, B unsigned n-major [N][K]
  assert.is(now(emu), 10);
  assert.is(mem.getInt32(out, true), 0, 'results land at the wait');
  assert.match(fault(emu, () => emu.mla_start(base, base, out, 1, 1, 1, 1, 1, 1, 1, 4, 0)), /still running/);
  emu.configure(S2, 2);
  emu.mla_start(base, base + 0x1000, out, M, N, K, K, 1, 1, K, N * 4, 1);
  emu.mla_wait();
  assert.is(now(emu), 10 + 2 * 2 * (K + 16));
  for (let m = 0; m < M; m++) {
    for (let n = 0; n < N; n++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a[m * K + k] * b[n * K + k];
      assert.is(mem.getInt32(out + (m * N + n) * 4, true), s, `(${m}, ${n})`);
    }
  }
  assert.is(emu.mla_busy(), -1);
});

test.run();
