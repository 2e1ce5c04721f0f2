/**
 * The RV32 core on RV32I, M, C and Zicsr: results against values worked out here (JS integer arithmetic, never the
 * core) and cycle counts worked out by hand from the CV32E40P timing rules (emulator/assembly/iss/timing.ts).
 * Timing programs use `.option norvc` so that no jump target lands on a half-word by accident.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lpSetup, pLoadPi } from './iss-xpulp.js';
import { assemble, compileC, loadElf, machine, RAM_BASE, ramWords, regs, runAsm, runToStop, STALL, STOP } from './iss-harness.js';

const DATA = RAM_BASE + 0x1_0000;
const u = (v: number): number => v >>> 0;

test('RV32I ALU and shifts give the values of 32-bit two\'s complement arithmetic', async () => {
  const r = await runAsm(`
    li a0, -7
    li a1, 3
    li a2, 0x12345678
    add s2, a0, a1
    sub s3, a0, a1
    xor s4, a0, a1
    or s5, a0, a1
    and s6, a0, a1
    slt s7, a0, a1
    sltu s8, a0, a1
    sll s9, a2, a1
    srl s10, a0, a1
    sra s11, a0, a1
    slti t0, a0, -8
    sltiu t1, a1, -1
    xori t2, a2, -1
    srai t3, a2, 31
    srli t4, a0, 28
    lui t5, 0xfffff
    auipc t6, 1
    EXIT
  `);
  const x = regs(r.m);
  assert.equal(x.slice(18, 28), [-4, -10, -7 ^ 3, -7 | 3, -7 & 3, 1, 0, 0x12345678 << 3, u(-7) >>> 3 | 0, -7 >> 3]);
  assert.equal([x[5], x[6], x[7], x[28], x[29], x[30]], [0, 1, ~0x12345678, 0, u(-7) >>> 28, 0xfffff000 | 0]);
  // auipc t6, 1 is the 20th instruction (li 0x12345678 is lui + addi): pc = base + 19 * 4 with norvc? not here:
  // the program is compressed, so only check it is pc-relative to the code region
  assert.ok(u(x[31]) - RAM_BASE - 0x1000 < 0x100);
});

test('loads and stores of every width, signed and unsigned, at their addresses', async () => {
  const r = await runAsm(`
    li s0, ${DATA}
    li t0, 0x80ff7f01
    sw t0, 0(s0)
    lb a0, 0(s0)
    lb a1, 3(s0)
    lbu a2, 3(s0)
    lh a3, 2(s0)
    lhu a4, 2(s0)
    lw a5, 0(s0)
    sb t0, 4(s0)
    sh t0, 8(s0)
    sw t0, 12(s0)
    EXIT
  `);
  const x = regs(r.m);
  assert.equal(x.slice(10, 16), [1, -128, 0x80, 0x80ff - 0x10000, 0x80ff, 0x80ff7f01 | 0]);
  assert.equal(ramWords(r.m, DATA + 4, 3), [1, 0x7f01, 0x80ff7f01 | 0]);
});

test('cycles: one per instruction, +1 load-use, taken branch 3, jump 2, jalr hazard +1', async () => {
  const straight = await runAsm(`
    .option norvc
    li a0, 1
    addi a0, a0, 2
    add a0, a0, a0
    EXIT
  `);
  assert.is(straight.exit, 6);
  assert.is(straight.instructions, 5);
  assert.is(straight.cycles, 5);

  // lui, lw, add (uses the load: +1), lw, nop, add (a gap: no stall), li, ecall
  const loadUse = await runAsm(`
    .option norvc
    li s0, ${DATA}
    lw t0, 0(s0)
    add t1, t0, t0
    lw t2, 0(s0)
    nop
    add t3, t2, t2
    EXIT
  `);
  assert.is(loadUse.instructions, 8);
  assert.is(loadUse.stalls[STALL.loadUse], 1);
  assert.is(loadUse.cycles, 9);

  // li 1, beq not taken 1, bne taken 3, EXIT 2 (the nop is skipped)
  const branch = await runAsm(`
    .option norvc
    li t0, 1
    beq t0, zero, 1f
    bne t0, zero, 1f
    nop
1:  EXIT
  `);
  assert.is(branch.instructions, 5);
  assert.is(branch.stalls[STALL.branch], 2);
  assert.is(branch.cycles, 7);

  // jal 2, addi 1, ret 2 (ra was written two instructions earlier: no hazard), EXIT 2
  const jump = await runAsm(`
    .option norvc
    jal ra, 2f
    EXIT
2:  addi t0, t0, 1
    ret
  `);
  assert.is(jump.instructions, 5);
  assert.is(jump.stalls[STALL.branch], 2);
  assert.is(jump.cycles, 7);

  // auipc 1, addi 1 (writes t1), jalr through t1 right after: 2 + 1 hazard, EXIT 2
  const hazard = await runAsm(`
    .option norvc
    auipc t1, 0
    addi t1, t1, 16
    jalr zero, 0(t1)
    nop
    EXIT
  `);
  assert.is(hazard.instructions, 5);
  assert.is(hazard.stalls[STALL.branch], 2);
  assert.is(hazard.cycles, 7);
});

test('M: products and their cycles (mul 1, mulh/mulhsu/mulhu 5)', async () => {
  const r = await runAsm(`
    .option norvc
    li a0, -123456789
    li a1, 987654321
    mul s2, a0, a1
    mulh s3, a0, a1
    mulhsu s4, a0, a1
    mulhu s5, a0, a1
    mulhsu s6, a1, a0
    EXIT
  `);
  const a = BigInt(-123456789), b = BigInt(987654321);
  const hi = (v: bigint): number => Number(BigInt.asIntN(32, v >> 32n));
  const x = regs(r.m);
  assert.is(x[18], Number(BigInt.asIntN(32, a * b)));
  assert.is(x[19], hi(a * b));
  assert.is(x[20], hi(a * b)); // b is positive: signed x unsigned = signed x signed
  assert.is(x[21], hi(BigInt.asUintN(32, a) * b));
  assert.is(x[22], hi(b * BigInt.asUintN(32, a)));
  // li -123456789 and li 987654321 are lui + addi each: 4, mul 1, four mulh* 5 each, EXIT 2
  assert.is(r.instructions, 11);
  assert.is(r.stalls[STALL.multi], 16);
  assert.is(r.cycles, 4 + 1 + 20 + 2);
});

test('M: division results incl. division by zero and overflow, cycles 3 + leading zeros of the divisor', async () => {
  const cases: [string, number, number, number][] = [
    // op, a, b, expected result
    ['div', 1000, 7, 142],
    ['rem', -1000, 7, -6],
    ['divu', -1, 0x10000, 0xffff],
    ['remu', -1, 0x10000, 0xffff],
    ['div', 1000, 0, -1],
    ['divu', 1000, 0, -1],
    ['rem', 1000, 0, 1000],
    ['remu', 1000, 0, 1000],
    ['div', -0x80000000, -1, -0x80000000],
    ['rem', -0x80000000, -1, 0],
    ['divu', 0x7fffffff, -0x80000000, 0],
    ['div', 1000, 1, 1000],
  ];
  for (const [op, a, b, expect] of cases) {
    const r = await runAsm(`
      .option norvc
      li a0, ${a}
      li a1, ${b}
      ${op} a0, a0, a1
      EXIT
    `);
    assert.is(r.exit, expect, `${op} ${a}, ${b}`);
    const lead = Math.clz32(b);
    // li's: 1 or 2 instructions each (lui + addi when the value needs both)
    const liLen = (v: number): number => (v >= -2048 && v < 2048) || (v & 0xfff) === 0 ? 1 : 2;
    assert.is(r.stalls[STALL.multi], 2 + lead, `${op} ${a}, ${b} stalls`);
    assert.is(r.cycles, liLen(a) + liLen(b) + 3 + lead + 2, `${op} ${a}, ${b} cycles`);
  }
});

test('misaligned accesses cost one more cycle when they split (word not aligned, halfword across a word)', async () => {
  const r = await runAsm(`
    .option norvc
    li s0, ${DATA}
    li t0, 0x11223344
    sw t0, 0(s0)
    sw t0, 4(s0)
    lw a0, 1(s0)
    lh a1, 3(s0)
    lh a2, 1(s0)
    lhu a3, 2(s0)
    sw t0, 10(s0)
    EXIT
  `);
  const x = regs(r.m);
  assert.is(x[10], 0x44112233);
  assert.is(x[11], 0x4411);
  assert.is(x[12], 0x2233);
  assert.is(x[13], 0x1122);
  assert.is(r.stalls[STALL.misaligned], 3); // lw +1, lh at 3 +1, sw at 10 +1
  assert.is(r.cycles, r.instructions + 3);
});

test('Zicsr: mcycle/minstret read the counts before the instruction and cost 4, mhartid 1, hwloop CSRs 1', async () => {
  const r = await runAsm(`
    .option norvc
    nop
    nop
    csrr a0, mcycle
    csrr a1, minstret
    csrr a2, mhartid
    li t0, 5
    csrw 0x802, t0
    csrr a3, 0x802
    csrrw a4, mscratch, t0
    csrr a5, mscratch
    EXIT
  `);
  const x = regs(r.m);
  assert.equal(x.slice(10, 16), [2, 3, 0, 5, 0, 5]);
  // nop nop 2, mcycle 4, minstret 4, mhartid 1, li 1, csrw 1, csrr 1, mscratch 1 + 1, EXIT 2
  assert.is(r.cycles, 2 + 4 + 4 + 1 + 1 + 1 + 1 + 2 + 2);
  assert.is(r.stalls[STALL.multi], 6);
});

test('every RV32C form decodes to its base instruction', async () => {
  const r = await runAsm(`
    .option rvc
    li s0, ${DATA}
    c.li a0, -5
    c.addi a0, 3
    c.lui a1, 0x12
    c.mv a2, a0
    c.add a2, a1
    c.li a3, 12
    c.li a4, 10
    c.sub a3, a4
    c.xor a4, a3
    c.or a4, a3
    c.and a4, a0
    c.srli a1, 4
    c.li a5, -16
    c.srai a5, 2
    c.andi a5, 13
    mv t3, a5
    c.slli a0, 3
    c.sw a2, 4(s0)
    c.lw s1, 4(s0)
    c.addi16sp sp, -32
    c.swsp a0, 8(sp)
    c.lwsp t0, 8(sp)
    c.addi4spn a5, sp, 16
    c.addi16sp sp, 32
    c.jal 2f
    c.j 3f
2:  c.bnez s1, 4f
    c.li t4, 1
4:  c.beqz a4, 5f
    c.li t6, 7
5:  c.jr ra
3:  la t1, 6f
    c.jalr t1
    c.ebreak
6:  addi t2, ra, 0
    c.jr ra
  `, STOP.ebreak);
  const x = regs(r.m);
  const sp = RAM_BASE + 0x40_0000 - 16;
  assert.is(x[10], -16, 'c.li c.addi c.slli');
  assert.is(x[11], 0x1200, 'c.lui c.srli');
  assert.is(x[12], 0x12000 - 2, 'c.mv c.add');
  assert.is(x[13], 2, 'c.sub');
  assert.is(x[14], 10, 'c.xor c.or c.and');
  assert.is(x[28], 12, 'c.srai c.andi');
  assert.is(x[9], 0x12000 - 2, 'c.sw c.lw');
  assert.is(x[5], -16, 'c.swsp c.lwsp');
  assert.is(u(x[15]), sp - 32 + 16, 'c.addi16sp c.addi4spn');
  assert.is(u(x[2]), sp, 'c.addi16sp back');
  assert.is(x[29], 0, 'c.bnez taken');
  assert.is(x[31], 7, 'c.beqz not taken');
  // c.jalr linked the address of the c.ebreak, where c.jr ra then stopped the hart
  assert.is(u(x[7]), m32(r.m.emu.iss_pc(0)));
  assert.is(r.m.emu.iss_loop_reg(0, 2), 0);
});

const m32 = (v: number): number => v >>> 0;

test('a 32-bit instruction at a half-word jump target costs one more cycle', async () => {
  const r = await runAsm(`
    .option rvc
    c.j 1f
    c.nop
    c.nop
    .option norvc
1:  addi t0, zero, 1
    EXIT
  `);
  // c.j at +0 jumps to +6: 2 + 1, addi 1, EXIT 2
  assert.is(r.instructions, 4);
  assert.is(r.stalls[STALL.branch], 2);
  assert.is(r.cycles, 6);
});

test('ecall: exit (a7 93), write (a7 64), else a trap to mtvec that mret returns from; wfi stops', async () => {
  const r = await runAsm(`
    .option norvc
    la t0, handler
    csrw mtvec, t0
    li a7, 5
    ecall
    mv s3, a0
    la a1, msg
    li a2, 3
    li a0, 1
    li a7, 64
    ecall
    mv s4, a0
    EXIT
handler:
    csrr s2, mcause
    csrr t1, mepc
    addi t1, t1, 4
    csrw mepc, t1
    li a0, 11
    mret
msg: .ascii "ok\\n"
  `);
  const x = regs(r.m);
  assert.equal([x[18], x[19], x[20]], [11, 11, 3]);
  assert.is(r.out, 'ok\n');
  const w = await runAsm(`
    li a0, 1
    wfi
    EXIT
  `, STOP.wfi);
  assert.is(w.instructions, 2);
});

test('cycles and stalls do not depend on how the runs are sliced (harts take turns in small budgets)', async () => {
  const c = compileC(`
    #include <stdio.h>
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    int main(void) { volatile int d = 7; printf("%d %d\\n", fib(15), 100000 / d); return 0; }
  `);
  // hardware loops, a load used across the back edge, a misaligned jump target, a jalr right after its address
  const loops = assemble(`
    .option norvc
    la a0, vals
    li a2, 3
    ${lpSetup(0, 'a2', '1f')}
    add t0, t0, t1
    addi t2, t2, 1
1:  ${pLoadPi('lw', 't1', 'a0', 4)}
    .option rvc
    c.j 2f
    c.nop
    c.nop
    .option norvc
2:  auipc t3, 0
    addi t3, t3, 12
    jalr zero, 0(t3)
    nop
    EXIT
    .data
vals: .word 1, 2, 3, 4
  `);
  for (const elf of [c.elf, loops]) {
    const whole = await machine();
    loadElf(whole, elf);
    const ref = runToStop(whole);
    assert.is(ref.stop, STOP.exit);
    for (const budget of [1, 3, 64]) {
      const m = await machine();
      loadElf(m, elf);
      const r = runToStop(m, 0, 1e9, budget);
      assert.is(r.out, ref.out);
      assert.is(r.instructions, ref.instructions, `budget ${budget}`);
      assert.is(r.cycles, ref.cycles, `budget ${budget}`);
      assert.equal(r.stalls, ref.stalls, `budget ${budget}`);
    }
  }
});

test('each hart has its own registers, counters and mhartid', async () => {
  const m = await machine();
  loadElf(m, assemble(`
    csrr a0, mhartid
    addi a0, a0, 40
    EXIT
  `), 3);
  const exits = [2, 0, 1].map((h) => {
    const r = runToStop(m, h);
    assert.is(r.stop, STOP.exit);
    return r.exit;
  });
  assert.equal(exits, [42, 40, 41]);
  assert.is(m.emu.iss_instructions(1), 4);
});

test.run();
