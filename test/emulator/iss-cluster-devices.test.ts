/**
 * The cluster devices of the RV32 core (emulator/assembly/iss/cluster*.ts) on hand-written programs: the team
 * barrier's sleep and wake cycles worked out by hand, a DMA copy that lands the bytes and sleeps its core until the
 * transfer's completion cycle, the L1 banks serving one access per cycle, and a deadlock as a named fault.
 * Hart 0 is the fabric controller, harts 1.. the cluster cores; every hart starts at _start with a0 = its index.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { add, assemble, faultLine, FLAG, loadElf, machine, RAM_BASE, ramWords, STALL, STOP, type Machine } from './iss-harness.js';

const EU = 0x1020_4000;
const MCHAN = 0x1020_4400;
const L1 = 0x9000_0000;
/** The event unit's wake latency (cluster-eu.ts EU_WAKE_CYCLES) and the DMA's figures (chips/siracusa.ts). */
const WAKE = 8;
const DMA_LATENCY = 14;
const DMA_BYTES_PER_CYCLE = 8;

async function cluster(source: string, cores: number): Promise<Machine> {
  const m = await machine();
  const l1 = add(m, 'L1', L1, 0x1_0000, m.emu.iss_alloc(0x1_0000), 0, FLAG.read | FLAG.write | FLAG.timed, 0);
  add(m, 'EU', EU, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 2);
  add(m, 'MCHAN', MCHAN, 0x400, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 3);
  loadElf(m, assemble(source), 1 + cores);
  assert.is(m.emu.iss_cluster_config(0, 1, cores, l1, -1), 0);
  return m;
}

function runCluster(m: Machine, harts: number): number {
  let stop;
  do stop = m.emu.iss_cluster_run(harts, 1e6);
  while (stop === STOP.output);
  return stop;
}

// The FC sends `entry` to cluster core 0, sleeps until the task ends, then exits with word 0 of RAM_BASE + 0x1000.
const FC = `
  li t0, ${EU}
  bnez a0, cores
  la t1, task
  sw t1, 0x08(t0)
  sw zero, 0x0c(t0)
  li t1, 1
  sw t1, 0x10(t0)
  lw t2, 0x18(t0)
  li t1, ${RAM_BASE + 0x1000}
  lw a0, 0(t1)
  EXIT
cores:
  lw t3, 0x08(t0)      # sleep on the mailbox (core 0 gets the task)
  lw t4, 0x0c(t0)
  jr t3
`;

/** Core 0 forms a team of 2 and wakes core 1 into `entry` (t0 stays the event unit's base). */
const forkCore1 = (entry: string): string => `  li t0, ${EU}
  li t1, 2
  sw t1, 0x04(t0)          # team of 2
  la t1, ${entry}
  sw t1, 0x08(t0)
  sw zero, 0x0c(t0)
  li t1, 2
  sw t1, 0x10(t0)          # wake core 1 into '${entry}'`;

test('barrier: the early core sleeps until the last arrival + the wake latency; both leave at the same cycle', async () => {
  const m = await cluster(`${FC}
task:
${forkCore1('other')}
  .rept 100
  nop
  .endr
  csrr s2, mcycle          # s2 + 4: the cycle core 0 reaches the barrier
  lw t1, 0x14(t0)          # core 0 arrives late
  csrr t5, mcycle
  li t6, ${RAM_BASE + 0x2000}
  sw t5, 0(t6)
  sw s2, 8(t6)
  li t1, 1
  sw t1, 0x18(t0)          # task end
idle0:
  lw t3, 0x08(t0)
  j idle0
other:
  li t0, ${EU}
  lw t1, 0x14(t0)          # core 1 arrives early
  csrr t5, mcycle
  li t6, ${RAM_BASE + 0x2000}
  sw t5, 4(t6)
idle1:
  lw t3, 0x08(t0)
  j idle1
`, 2);
  assert.is(runCluster(m, 3), STOP.exit, faultLine(m));
  const [c0, c1, arrival] = ramWords(m, RAM_BASE + 0x2000, 3);
  assert.is(c0, c1, 'both cores leave the barrier at the same cycle');
  // the last arrival (csrr takes 4 cycles), the event's WAKE cycles, then the barrier read retires (1 cycle)
  assert.is(c0, arrival + 4 + WAKE + 1);
  // core 0 slept only the wake latency; core 1 from its arrival to core 0's arrival + the latency
  const core1Sleep = m.emu.iss_stalls(2, STALL.sync);
  const core0Sleep = m.emu.iss_stalls(1, STALL.sync);
  // Core 1 was woken at (core 0's wake write + WAKE), then ran 3 instructions to its barrier read, and slept from
  // there until core 0's barrier read + WAKE. Core 0 ran 100 nops and 1 instruction between its wake write and its
  // barrier read: core 1's barrier sleep is 101 + 1 - 3 - WAKE + WAKE cycles (its mailbox sleep comes on top).
  const before = core1Sleep - core0Sleep;
  assert.ok(before > 90, `core 1 slept through core 0's 100 nops (${core1Sleep} vs ${core0Sleep})`);
});

test('DMA: a 1-D copy into L1 lands its bytes; the waiting core sleeps until issue + latency + one cycle per beat', async () => {
  const bytes = 200;
  const m = await cluster(`${FC}
task:
  li t0, ${MCHAN}
  lw t1, 0(t0)             # channel
  li t2, ${bytes | (1 << 17) | (1 << 18)}
  sw t2, 0(t0)
  li t2, ${L1 + 0x100}
  sw t2, 0(t0)
  li t2, ${RAM_BASE + 0x3000}
  csrr s0, mcycle          # s0 + 4: the cycle of the last command word
  sw t2, 0(t0)
  li t3, 1
  sll t3, t3, t1
wait:
  lw t4, 4(t0)
  and t4, t4, t3
  beqz t4, done
  li t5, ${EU}
  lw t6, 0x1c(t5)          # sleep until the next completion
  j wait
done:
  csrr s1, mcycle
  li t6, ${RAM_BASE + 0x2000}
  sw s0, 0(t6)
  sw s1, 4(t6)
  sw t3, 4(t0)             # free the channel
  li t5, ${L1 + 0x100 + bytes - 4}
  lw t4, 0(t5)
  li t6, ${RAM_BASE + 0x1000}
  sw t4, 0(t6)             # the FC exits with the last word copied
  li t0, ${EU}
  li t1, 1
  sw t1, 0x18(t0)
idle:
  lw t3, 0x08(t0)
  j idle
`, 1);
  const src = new Int32Array(m.emu.memory.buffer, m.ram + 0x3000, bytes / 4);
  for (let i = 0; i < src.length; i++) src[i] = 0x01020304 * (i + 1);
  assert.is(runCluster(m, 2), STOP.exit, faultLine(m));
  assert.is(m.emu.iss_exit_code(0), src[src.length - 1], 'the last word arrived in L1');
  const [before, after] = ramWords(m, RAM_BASE + 0x2000, 2);
  const issue = before + 4; // csrr is a 4-cycle CSR read (CV32E40P)
  const complete = issue + DMA_LATENCY + Math.ceil(bytes / DMA_BYTES_PER_CYCLE);
  assert.ok(after >= complete, `the wait ends after the completion at ${complete} (ends ${after})`);
  assert.ok(after <= complete + 12, `and within a few instructions of it (ends ${after})`);
  assert.ok(m.emu.iss_stalls(1, 6) > 0, 'the core slept on the DMA');
});

// Two cores load 16 words each in lockstep: from one bank, the bank serves one access per cycle; from two, none waits.
const bankProgram = (offset: number): string => `${FC}
task:
  li t0, ${EU}
  li t1, 2
  sw t1, 0x04(t0)
  la t1, other
  sw t1, 0x08(t0)
  sw zero, 0x0c(t0)
  li t1, 2
  sw t1, 0x10(t0)
  lw t1, 0x14(t0)          # start together
  li a1, ${L1}
  .rept 16
  lw a2, 0(a1)
  .endr
  lw t1, 0x14(t0)
  li t1, 1
  sw t1, 0x18(t0)
idle0:
  lw t3, 0x08(t0)
  j idle0
other:
  li t0, ${EU}
  lw t1, 0x14(t0)
  li a1, ${L1 + offset}
  .rept 16
  lw a2, 0(a1)
  .endr
  lw t1, 0x14(t0)
idle1:
  lw t3, 0x08(t0)
  j idle1
`;

test('L1 banks: 32 loads from one bank take at least 32 cycles; from two banks no load waits', async () => {
  const same = await cluster(bankProgram(0x40), 2); // bank (0x40 >> 2) & 15 = 0, as L1 + 0
  assert.is(runCluster(same, 3), STOP.exit, faultLine(same));
  const other = await cluster(bankProgram(0x44), 2); // bank 1
  assert.is(runCluster(other, 3), STOP.exit, faultLine(other));
  assert.is(other.emu.iss_bank_conflicts(), 0);
  // Each core alone needs 16 cycles for its loads; one bank serving both needs 32. How the waiting splits depends on
  // the arbitration: one core first (16 cycles of waiting in all) up to strict alternation (each core waits 16).
  const waits = same.emu.iss_bank_conflicts();
  assert.ok(waits >= 16 && waits <= 32, `${waits} cycles of bank waiting`);
  assert.is(same.emu.iss_stalls(1, STALL.memory) + same.emu.iss_stalls(2, STALL.memory), waits);
});

test('every hart asleep: a deadlock fault in one line, not a hang', async () => {
  const m = await cluster(`
  li t0, ${EU}
  bnez a0, 1f
  lw t1, 0x18(t0)          # the FC waits for a task nobody was sent
  EXIT
1:
  lw t1, 0x08(t0)          # the cores wait for work
  EXIT
`, 2);
  assert.is(runCluster(m, 3), STOP.fault);
  assert.match(faultLine(m), /deadlock: every hart sleeps in the event unit/);
});

test('a cluster core whose sp leaves its stack: a named fault with the hart and the sp', async () => {
  const m = await cluster(`${FC}
task:
  li t0, ${RAM_BASE + 0x8000}
  addi sp, t0, -64         # below the stack given to this core
  nop
  EXIT
`, 1);
  m.emu.iss_cluster_stack(1, RAM_BASE + 0x8000, RAM_BASE + 0x9000);
  assert.is(runCluster(m, 2), STOP.fault);
  assert.match(faultLine(m), /^hart 1: stack overflow: sp 0x80007fc0 is outside the core's stack/);
});

test('a DMA transfer outside memory is a named fault', async () => {
  const m = await cluster(`${FC}
task:
  li t0, ${MCHAN}
  lw t1, 0(t0)
  li t2, ${64 | (1 << 17)}
  sw t2, 0(t0)
  li t2, ${L1}
  sw t2, 0(t0)
  li t2, 0x40000000
  sw t2, 0(t0)
  EXIT
`, 1);
  assert.is(runCluster(m, 2), STOP.fault);
  assert.match(faultLine(m), /hart 1: cluster DMA misuse at pc 0x[0-9a-f]{8} .*address 0x40000000/);
});

test('a fork ends the forking core\'s slice: a woken core fetches shared code at its own cycle, not after the forker ran ahead', async () => {
  // Core 0 wakes core 1 into `other`, which calls `shared`; core 0 loops ~800 cycles in two lines of code, then runs
  // `shared` itself. Were core 0 to run on alone after its wake write (the scheduler's solo slice), it would bring
  // `shared`'s lines into the instruction cache ~800 cycles into core 1's future and core 1 would wait for them; the
  // fork's switch runs core 1 first, which fetches the 8 lines of `shared` cold itself: 8 x (2 + 2 + 2 + 20) cycles
  // (icache.ts figures) and a few lines more of its own code.
  const m = await cluster(`.option norvc
${FC}
task:
  li t2, 100
2:
  addi t2, t2, -1          # core 1 goes to sleep on its mailbox meanwhile
  bnez t2, 2b
${forkCore1('other')}
  li t2, 200
1:
  addi t2, t2, -1          # ~800 cycles in two lines of code
  bnez t2, 1b
  jal shared
  lw t1, 0x14(t0)          # barrier
  li t1, 1
  sw t1, 0x18(t0)          # task end
idle0:
  lw t3, 0x08(t0)
  j idle0
other:
  jal shared
  li t0, ${EU}
  lw t1, 0x14(t0)          # barrier
idle1:
  lw t3, 0x08(t0)
  j idle1
  .balign 16
shared:
  .rept 31
  nop
  .endr
  ret
`, 2);
  assert.is(m.emu.iss_icache_config(1, 2), 0);
  assert.is(runCluster(m, 3), STOP.exit, faultLine(m));
  const fetch1 = m.emu.iss_stalls(2, STALL.fetch);
  const COLD_LINE = 2 + 2 + 2 + 20;
  // core 1 also fetches cold the lines of its mailbox loop and of `other` (a few each)
  assert.ok(fetch1 >= 8 * COLD_LINE && fetch1 < 8 * COLD_LINE + 200, `core 1 waited ${fetch1} cycles for instruction fetches`);
});

test.run();
