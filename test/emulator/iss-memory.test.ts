/**
 * The memory side of the RV32 core: wait cycles of slow regions as memory stalls, the device dispatch of MMIO
 * regions (the simulation-control block), timed regions, and stores into predecoded code.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { add, FLAG, runAsm, STALL, type Machine } from './iss-harness.js';

const slow = (m: Machine): void => {
  add(m, 'SLOW', 0x4000_0000, 0x1000, m.emu.iss_alloc(0x1000), 3, FLAG.read | FLAG.write, 0);
  add(m, 'TIMED', 0x5000_0000, 0x1000, m.emu.iss_alloc(0x1000), 2, FLAG.read | FLAG.write | FLAG.timed, 0);
};

test('every access to a region with wait cycles adds them as memory stalls; timed regions use the access hook', async () => {
  const r = await runAsm(`
    .option norvc
    li t0, 0x40000000
    li t1, 77
    sw t1, 0(t0)
    lw a0, 0(t0)
    lw a1, 4(t0)
    li t2, 0x50000000
    sw t1, 8(t2)
    lbu a2, 8(t2)
    add a0, a0, a2
    EXIT
  `, 1, slow);
  assert.is(r.exit, 154);
  // SLOW: 3 accesses x 3; TIMED: 2 accesses x 2 (the default hook charges the region's wait); lbu -> add: load-use
  assert.is(r.stalls[STALL.memory], 9 + 4);
  assert.is(r.stalls[STALL.loadUse], 1);
  assert.is(r.cycles, r.instructions + 14);
});

test('MMIO: the simulation-control block prints, reads the cycle counter and exits', async () => {
  const r = await runAsm(`
    .option norvc
    li t0, 0x10000000
    li t1, 'h'
    sw t1, 0(t0)
    li t1, 'i'
    sb t1, 0(t0)
    lw a1, 8(t0)
    li t1, 7
    sw t1, 4(t0)
    nop
  `);
  assert.is(r.out, 'hi');
  assert.is(r.exit, 7);
  // the cycle counter read by the 6th instruction: five cycles before it
  assert.is(r.m.emu.iss_reg(0, 11), 5);
  assert.is(r.instructions, 8, 'the exit store retires; the nop after it never runs');
});

test('a store into code that already ran replaces the predecoded instruction', async () => {
  const r = await runAsm(`
    .option norvc
    la t0, 1f
    li t1, 0x02a00513
    jal ra, 1f
    mv s2, a0
    sw t1, 0(t0)
    jal ra, 1f
    EXIT
1:  addi a0, zero, 1
    ret
  `);
  assert.is(r.m.emu.iss_reg(0, 18), 1);
  assert.is(r.exit, 42);
});

test.run();
