/**
 * N-EUREKA and the HyperRAM DMA as devices of the RV32 core (emulator/assembly/iss/npu.ts, iss/l3.ts) on hand-written
 * programs: a job programmed by register stores lands the outputs worked out by hand at its end (not before), and the
 * core's event wait sleeps exactly until then, the job lasting the documented formula (neureka-driver.ts
 * documentedCycles, docs/neureka.md "Timing"); an L3 copy lands its bytes and sleeps the core for the documented
 * setup + bursts + link time (docs/timing.md "L3 (HyperRAM) DMA"); L3 is out of the cores' reach; and device faults
 * are one line with the AS path's text and the hart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeWeights } from '../../generator/platforms/siracusa/npu/weights.js';
import { deviceFaultLine } from '../../runtime/node/iss.js';
import { add, assemble, FLAG, loadElf, machine, RAM_BASE, ramWords, runToStop, STALL, STOP, type Machine } from './iss-harness.js';
import { documentedCycles, jobRegisters, REG, type ConvSpec } from './neureka-driver.js';

const NPU = 0x1020_1000;
const EU = 0x1020_4000;
const EU_NPU_SLEEP = 0x24;
const L3DMA = 0x1a10_2000;
const L1 = 0x9000_0000;
const L3 = 0x8480_0000;
const NMS = 0x8400_0000;
/** Buffers in L1 (offsets). */
const X_AT = 0x000;
const W_AT = 0x100;
const OUT_AT = 0x800;
/** Where the program stores what it read (RAM). */
const RESULT = RAM_BASE + 0x2000;

// 1x1, 2 input channels, 2 output channels, 3 pixels (HWC); weights co0 = [1, -1], co1 = [2, 3], int32 output.
// By hand: pixel 0: 1 - 2 = -1, 2 + 6 = 8; pixel 1: 3 - 4 = -1, 6 + 12 = 18; pixel 2: 250, 500.
const TINY: ConvSpec = {
  mode: '1x1', bits: 8, cin: 2, cout: 2, h: 1, w: 3, pad: [0, 0, 0, 0], signedIn: false,
  x: [1, 2, 3, 4, 250, 0], weight: (co, ci) => [[1, -1], [2, 3]][co][ci],
};

interface Npu { m: Machine; l1: number; l1Index: number }

async function npuMachine(source: string): Promise<Npu> {
  const m = await machine();
  const l1 = m.emu.iss_alloc(0x1_0000);
  const l1Index = add(m, 'L1', L1, 0x1_0000, l1, 0, FLAG.read | FLAG.write, 0);
  add(m, 'N-EUREKA', NPU, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 4);
  add(m, 'EU', EU, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 2);
  loadElf(m, assemble(source));
  m.emu.iss_npu_config(l1Index, -1, -1, NMS);
  return { m, l1, l1Index };
}

/** Stores of the 24 job registers of `s` (buffers in L1), t0 = the NPU's base. */
function program(s: ConvSpec, out = L1 + OUT_AT): string {
  const regs = jobRegisters(s, { x: L1 + X_AT, w: L1 + W_AT, out, scale: 0, shift: 0, bias: 0 });
  return regs.map((v, i) => `  li t5, ${v | 0}\n  sw t5, ${0x20 + 4 * i}(t0)`).join('\n');
}

function place(n: Npu, s: ConvSpec): void {
  const bytes = new Uint8Array(n.m.emu.memory.buffer);
  s.x.forEach((v, i) => { bytes[n.l1 + X_AT + i] = v & 0xff; });
  bytes.set(encodeWeights({ mode: s.mode, bits: s.bits, cout: s.cout, cin: s.cin, weight: s.weight }), n.l1 + W_AT);
}

/** Runs hart 0; a device fault traps: its one line. */
function faultOf(m: Machine, run: () => void): string {
  try {
    run();
  } catch (e) {
    return deviceFaultLine(m.emu, e);
  }
  return 'no fault';
}

test('a job lands its outputs at its end; the event wait sleeps the core exactly until then', async () => {
  const n = await npuMachine(`
  li t0, ${NPU}
  li t6, ${EU}
  li a1, ${L1 + OUT_AT}
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY)}
  sw zero, ${REG.TRIGGER}(t0)      # cycle c: the job runs from c + 1 (after the store) for J cycles
  lw s2, ${REG.STATUS}(t0)         # c + 1: queued or running
  lw s3, 0(a1)                     # c + 2: not landed yet
  lw s1, ${EU_NPU_SLEEP}(t6)       # c + 3: sleeps J - 2 cycles
  lw s4, 0(a1)                     # landed
  lw s5, ${REG.STATUS}(t0)         # empty
  lw s6, ${REG.FINISHED}(t0)
  li t2, ${RESULT}
  sw t1, 0(t2)
  sw s2, 4(t2)
  sw s3, 8(t2)
  sw s4, 12(t2)
  sw s5, 16(t2)
  sw s6, 20(t2)
  li a0, 0
  EXIT
`);
  place(n, TINY);
  const r = runToStop(n.m);
  assert.is(r.stop, STOP.exit, r.fault);
  const [id, busy, before, after, idle, finished] = ramWords(n.m, RESULT, 6);
  assert.equal([id, busy, before, after, idle, finished], [0, 1, 0, -1, 0, 1]);
  assert.equal(Array.from(new Int32Array(n.m.emu.memory.buffer, n.l1 + OUT_AT, 6)), [-1, 8, -1, 18, 250, 500]);
  const job = documentedCycles(TINY);
  assert.is(n.m.emu.iss_stalls(0, STALL.npu), job - 2, `the job lasts ${job} cycles (docs/neureka.md)`);
  assert.is(n.m.emu.iss_npu_finish(), 1, 'one job, observed');
});

test('two jobs back to back: the second starts at the first one\'s end', async () => {
  const second = L1 + OUT_AT + 0x100;
  const n = await npuMachine(`
  li t0, ${NPU}
  li t6, ${EU}
  li a1, ${L1 + OUT_AT}
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY)}
  sw zero, ${REG.TRIGGER}(t0)      # job 0 from c + 1
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY, second)}
  sw zero, ${REG.TRIGGER}(t0)      # job 1 from job 0's end
  lw s1, ${EU_NPU_SLEEP}(t6)       # job 0's end
  lw s2, 0x100(a1)                 # job 1's first output: not landed yet
  lw s1, ${EU_NPU_SLEEP}(t6)       # job 1's end
  lw s3, 0x100(a1)                 # landed
  li t2, ${RESULT}
  sw s2, 0(t2)
  sw s3, 4(t2)
  li a0, 0
  EXIT
`);
  place(n, TINY);
  const r = runToStop(n.m);
  assert.is(r.stop, STOP.exit, r.fault);
  assert.equal(ramWords(n.m, RESULT, 2), [0, -1]);
  assert.equal(Array.from(new Int32Array(n.m.emu.memory.buffer, n.l1 + OUT_AT + 0x100, 6)), [-1, 8, -1, 18, 250, 500]);
  // The core spent a few tens of cycles programming job 1 while job 0 ran: it then sleeps through the rest of job 0
  // and all of job 1 (2 x job, less that programming and the first wait's own cycle).
  const job = documentedCycles(TINY);
  const slept = n.m.emu.iss_stalls(0, STALL.npu);
  assert.ok(slept > job && slept < 2 * job, `slept ${slept} of 2 x ${job}`);
  assert.is(n.m.emu.iss_npu_finish(), 2);
});

test('L1 contention: a cluster core\'s L1 accesses during a job wait the job\'s TCDM load, whole cycles as it adds up', async () => {
  // docs/timing.md "L1 contention": load = streamer accesses x 32 / (job cycles x 64). TINY (1x1, one subtile of
  // each, weights in L1): 36 pixels + 2 weight words (one per output channel), and the int32 stores, 4 words per
  // output pixel: 1 x 1 x 3 x 4 = 12. Expected: 20 accesses x 50 x 32 / (88 x 64) = 5.68, 5 whole cycles.
  const streamer = 36 + 2 + 12;
  const job = documentedCycles(TINY);
  const loadQ16 = Math.floor((streamer * 32 * 65536) / (job * 64));
  const LOADS = 20; // all inside the job (they take 20 cycles of its 88)
  const m = await machine();
  const l1 = m.emu.iss_alloc(0x1_0000);
  const l1Index = add(m, 'L1', L1, 0x1_0000, l1, 0, FLAG.read | FLAG.write | FLAG.timed, 0);
  add(m, 'N-EUREKA', NPU, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 4);
  add(m, 'EU', EU, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 2);
  loadElf(m, assemble(`
  li t0, ${NPU}
  li t6, ${EU}
  li a1, ${L1 + 0x4000}
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY)}
  sw zero, ${REG.TRIGGER}(t0)
  .rept ${LOADS}
  lw t2, 0(a1)                     # one bank, this core alone: no core-core conflict
  .endr
  lw s1, ${EU_NPU_SLEEP}(t6)
  .rept ${LOADS}
  lw t2, 0(a1)                     # after the job: no contention
  .endr
  li a0, 0
  EXIT
`));
  // Hart 0 is cluster core 0 (the fabric controller, hart 1, does not run): its L1 accesses go through the banks.
  assert.is(m.emu.iss_cluster_config(1, 0, 1, l1Index, -1), 0);
  m.emu.iss_npu_config(l1Index, -1, -1, NMS);
  const bytes = new Uint8Array(m.emu.memory.buffer);
  TINY.x.forEach((v, i) => { bytes[l1 + X_AT + i] = v; });
  bytes.set(encodeWeights({ mode: TINY.mode, bits: TINY.bits, cout: TINY.cout, cin: TINY.cin, weight: TINY.weight }), l1 + W_AT);
  const r = runToStop(m);
  assert.is(r.stop, STOP.exit, r.fault);
  assert.is(job, 88);
  assert.is(m.emu.iss_stalls(0, STALL.memory), Math.floor((LOADS * loadQ16) / 65536), `${LOADS} accesses x load ${loadQ16 / 65536}`);
  assert.is(m.emu.iss_stalls(0, STALL.memory), 5);
  assert.is(m.emu.iss_bank_conflicts(), 0);
});

test('device faults are one line with the AS path\'s text and the hart', async () => {
  const reg = await npuMachine(`
  li t0, ${NPU}
  lw t1, 0x18(t0)
  EXIT
`);
  assert.is(faultOf(reg.m, () => runToStop(reg.m)), 'hart 0: npu_read: offset 0x00000018 is not a register outside any layer');

  const twice = await npuMachine(`
  li t0, ${NPU}
  lw t1, ${REG.ACQUIRE}(t0)
  lw t1, ${REG.ACQUIRE}(t0)
  EXIT
`);
  assert.is(faultOf(twice.m, () => runToStop(twice.m)),
    'hart 0: npu_read: ACQUIRE while job 0 is acquired and not triggered (write TRIGGER first) outside any layer');

  const ptr = await npuMachine(`
  li t0, ${NPU}
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY, RAM_BASE + 0x5000)}
  sw zero, ${REG.TRIGGER}(t0)
  EXIT
`);
  assert.is(faultOf(ptr.m, () => runToStop(ptr.m)), 'hart 0: neureka TRIGGER: OUTFEAT_PTR: the job writes chip addresses ' +
    '0x80005000..0x80005017, which must lie inside L1 (the NPU reaches L1 only) (it starts in region RAM) outside any layer');

  const sleep = await npuMachine(`
  li t6, ${EU}
  lw t1, ${EU_NPU_SLEEP}(t6)
  EXIT
`);
  assert.is(faultOf(sleep.m, () => runToStop(sleep.m)),
    'hart 0: npu_event_wait: no N-EUREKA job is queued or running: the core would sleep forever outside any layer');

  const unseen = await npuMachine(`
  li t0, ${NPU}
  lw t1, ${REG.ACQUIRE}(t0)
${program(TINY)}
  sw zero, ${REG.TRIGGER}(t0)
  li a0, 0
  EXIT
`);
  place(unseen, TINY);
  assert.is(runToStop(unseen.m).stop, STOP.exit);
  assert.match(faultOf(unseen.m, () => unseen.m.emu.iss_npu_finish()),
    /^hart 0: npu_finish: job 0 \(triggered in no layer, ends at cycle \d+\) was never observed finished by a core \(neureka_wait\): its outputs never landed$/);
});

// ---- the HyperRAM DMA ----

/** docs/timing.md "L3 (HyperRAM) DMA": setup 50, 33 cycles per started 1 KiB burst, 332 bytes per 360 cycles. */
const l3Cycles = (bytes: number): number => 50 + Math.ceil(bytes / 1024) * 33 + Math.ceil((bytes * 360) / 332);

async function l3Machine(source: string): Promise<{ m: Machine; l3: number }> {
  const m = await machine();
  const l3 = m.emu.iss_alloc(0x1_0000);
  const l3Index = add(m, 'L3', L3, 0x1_0000, l3, 0, 0, 0);
  add(m, 'HyperRAM DMA', L3DMA, 0x100, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 5);
  loadElf(m, assemble(source));
  m.emu.iss_l3_config(0, l3Index); // L2: the harness's RAM (region 0)
  return { m, l3 };
}

const copy = (l2: number, l3: number, bytes: number, toL3: number): string => `
  li t1, ${l2}
  sw t1, 0(t0)
  li t1, ${l3}
  sw t1, 4(t0)
  li t1, ${bytes}
  sw t1, 8(t0)
  li t1, ${toL3}
  sw t1, 12(t0)`;

test('an L3 copy lands its bytes and sleeps the core for setup + bursts + link time; cores cannot reach L3', async () => {
  const src = RAM_BASE + 0x8000;
  const back = RAM_BASE + 0xa000;
  const { m, l3 } = await l3Machine(`
  li t0, ${L3DMA}
${copy(src, 0x100, 2048, 1)}
${copy(back, 0x100, 1500, 0)}
  li a0, 0
  EXIT
`);
  const bytes = new Uint8Array(m.emu.memory.buffer);
  for (let i = 0; i < 2048; i++) bytes[m.ram + 0x8000 + i] = (i * 7 + 3) & 0xff;
  const r = runToStop(m);
  assert.is(r.stop, STOP.exit, r.fault);
  assert.equal(Array.from(bytes.subarray(l3 + 0x100, l3 + 0x100 + 2048)), Array.from(bytes.subarray(m.ram + 0x8000, m.ram + 0x8000 + 2048)));
  assert.equal(Array.from(bytes.subarray(m.ram + 0xa000, m.ram + 0xa000 + 1500)), Array.from(bytes.subarray(m.ram + 0x8000, m.ram + 0x8000 + 1500)));
  assert.is(bytes[m.ram + 0xa000 + 1500], 0, 'no byte past the length');
  assert.is(m.emu.iss_stalls(0, STALL.dma), l3Cycles(2048) + l3Cycles(1500));
  assert.is(m.emu.iss_l3_copy_cycles(2048), l3Cycles(2048));

  const load = await l3Machine(`
  li t0, ${L3}
  lw t1, 0(t0)
  EXIT
`);
  assert.match(runToStop(load.m).fault, /^hart 0: load from a region without read access .* \(region L3\)$/);
});

test('L3 copy faults: the AS path\'s texts', async () => {
  const cases: [string, string][] = [
    [copy(L1, 0, 64, 0), 'hart 0: l3_copy: 64 bytes L3 to L2: the L2 side must lie inside L2, got 0x90000000 outside any layer'],
    [copy(RAM_BASE, 0xff00, 0x200, 1), 'hart 0: l3_copy: 512 bytes L2 to L3: the L3 side must lie inside L3, got 0x8480ff00 outside any layer'],
    [copy(RAM_BASE, 0, 0, 1), 'hart 0: l3_copy: 0 bytes L2 to L3: the length must be 1 .. 16 MiB - 1 bytes outside any layer'],
  ];
  for (const [body, want] of cases) {
    const run = await l3Machine(`
  li t0, ${L3DMA}
${body}
  EXIT
`);
    assert.is(faultOf(run.m, () => runToStop(run.m)), want);
  }
});

test.run();
