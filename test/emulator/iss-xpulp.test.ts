/**
 * The XpulpV2 subset of the RV32 core (hardware loops, post-increment and register-offset memory access, scalar
 * ALU/MAC, packed SIMD incl. the dot products): results against values worked out here from the CV32E40P v1.0.0
 * manual's definitions, cycles counted by hand (hardware loops branch back for free; dot products and p.mac take
 * one cycle; load-use +1 also across a loop's back edge). Encodings: iss-xpulp.ts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ramWords, regs, runAsm, STALL } from './iss-harness.js';
import { alu, bitfield, lpCounti, lpEndi, lpSetup, lpSetupi, lpStarti, pBimm, pClip, pLoadPi, pLoadPr, pLoadRr, pStorePi, pStorePr, pStoreRr, pv, pvPackH } from './iss-xpulp.js';

const u = (v: number): number => v >>> 0;

test('hardware loop: lp.setupi runs the body count times with no branch cycles', async () => {
  const r = await runAsm(`
    .option norvc
    ${lpSetupi(0, 5, '1f')}
    addi t0, t0, 1
    addi t1, t1, 2
1:  addi t2, t2, 3
    EXIT
  `);
  const x = regs(r.m);
  assert.equal([x[5], x[6], x[7]], [5, 10, 15]);
  assert.is(r.instructions, 1 + 15 + 2);
  assert.is(r.cycles, 18);
  assert.is(r.stalls[STALL.branch], 0);
  assert.is(r.m.emu.iss_loop_reg(0, 2), 0, 'count register ends at 0');
});

test('hardware loop with count 1 runs the body once', async () => {
  const r = await runAsm(`
    .option norvc
    ${lpSetupi(0, 1, '1f')}
    addi t0, t0, 1
    addi t1, t1, 2
1:  addi t2, t2, 3
    addi t3, t3, 4
    EXIT
  `);
  const x = regs(r.m);
  assert.equal([x[5], x[6], x[7], x[28]], [1, 2, 3, 4]);
  assert.is(r.cycles, 1 + 4 + 2);
});

test('nested hardware loops: loop 1 set up by the long forms around lp.setupi on loop 0', async () => {
  const r = await runAsm(`
    .option norvc
    ${lpCounti(1, 4)}
    ${lpStarti(1, '2f')}
    ${lpEndi(1, '3f')}
2:  ${lpSetupi(0, 3, '1f')}
    addi t0, t0, 1
    addi t0, t0, 1
1:  addi t1, t1, 1
    addi t2, t2, 1
3:  addi t3, t3, 1
    EXIT
  `);
  const x = regs(r.m);
  assert.equal([x[5], x[6], x[7], x[28]], [24, 12, 4, 4]);
  assert.is(r.instructions, 3 + 4 * (1 + 9 + 2) + 2);
  assert.is(r.cycles, r.instructions);
});

test('load-use inside a hardware loop and across its back edge costs one cycle each time', async () => {
  const inside = await runAsm(`
    .option norvc
    la a0, vals
    li a2, 4
    li t0, 0
    ${lpSetup(0, 'a2', '1f')}
    ${pLoadPi('lw', 't1', 'a0', 4)}
    add t0, t0, t1
1:  addi t2, t2, 1
    EXIT
    .data
vals: .word 1, 2, 3, 4
  `);
  assert.is(regs(inside.m)[5], 10);
  assert.is(inside.stalls[STALL.loadUse], 4);
  assert.is(inside.instructions, 2 + 1 + 1 + 1 + 12 + 2);
  assert.is(inside.cycles, inside.instructions + 4);

  // the loop's last instruction loads what its first uses: a stall on iterations 2 and 3 and after the loop
  const edge = await runAsm(`
    .option norvc
    la a0, vals
    li a2, 3
    ${lpSetup(0, 'a2', '1f')}
    add t0, t0, t1
    addi t2, t2, 1
1:  ${pLoadPi('lw', 't1', 'a0', 4)}
    add t3, t3, t1
    EXIT
    .data
vals: .word 1, 2, 3, 4
  `);
  const x = regs(edge.m);
  assert.equal([x[5], x[28]], [3, 3]);
  assert.is(edge.stalls[STALL.loadUse], 3);
  assert.is(edge.instructions, 2 + 1 + 1 + 9 + 1 + 2);
  assert.is(edge.cycles, edge.instructions + 3);
});

test('post-increment and register-offset loads and stores update base registers and memory', async () => {
  const r = await runAsm(`
    la s0, vals
    mv a0, s0
    ${pLoadPi('lw', 't0', 'a0', 4)}
    ${pLoadPi('lbu', 't1', 'a0', -1)}
    ${pLoadPi('lb', 't2', 'a0', 1)}
    ${pLoadPi('lhu', 't3', 'a0', 2)}
    ${pLoadPi('lh', 't4', 'a0', -6)}
    li a1, 8
    ${pLoadPr('lw', 't5', 'a0', 'a1')}
    ${pLoadRr('lh', 't6', 's0', 'a1')}
    ${pLoadRr('lbu', 's2', 's0', 'a1')}
    ${pLoadPr('lb', 's3', 's0', 'a1')}
    la s0, vals
    addi a2, s0, 16
    ${pStorePi('sw', 't0', 'a2', 4)}
    ${pStorePr('sh', 't0', 'a2', 'a1')}
    ${pStoreRr('sb', 't0', 'a2', 'a1')}
    li a3, -4
    ${pStoreRr('sw', 't1', 'a2', 'a3')}
    mv a4, a2
    ${pStorePr('sb', 't0', 'a4', 'a3')}
    EXIT
    .data
    .balign 4
vals: .word 0x80ff7f01, 0x11223344, 0xfffe8000, 0, 0, 0, 0, 0, 0, 0, 0, 0
  `);
  const x = regs(r.m);
  const base = u(x[8]);
  assert.equal([x[5], x[6], x[7], x[28], x[29]], [0x80ff7f01 | 0, 0x44, -128, 0x3344, 0x1122]);
  assert.is(u(x[10]), base + 8, 'a0 after the post-increments');
  assert.equal([x[30], x[31], x[18], x[19]], [0x80ff7f01 | 0, -32768, 0, 1]);
  assert.is(u(x[12]), base + 28, 'p.sw imm and p.sh reg post-increments; p.sb reg-offset leaves a2');
  assert.is(u(x[14]), base + 24, 'p.sb rs3(rs1!) with a negative offset register');
  assert.equal(ramWords(r.m, base + 16, 6), [0x80ff7f01 | 0, 0x7f01, 0x44, 1, 0, 1]);
});

test('SIMD dot products: signed, unsigned and mixed, .b and .h, vector/.sc/.sci, edge values', async () => {
  const r = await runAsm(`
    .option norvc
    li a0, 0x80808080
    li a1, -1
    li a2, 0x7f7f7f7f
    li t0, 0x80008000
    ${pv('dotsp', '', 'b', 's2', 'a0', 'a0')}
    ${pv('dotup', '', 'b', 's3', 'a1', 'a1')}
    ${pv('dotusp', '', 'b', 's4', 'a1', 'a0')}
    ${pv('dotusp', '', 'b', 's5', 'a0', 'a1')}
    li s6, 100
    ${pv('sdotsp', '', 'b', 's6', 'a0', 'a2')}
    li s7, 7
    ${pv('sdotup', '', 'b', 's7', 'a1', 'a2')}
    li s8, -1
    ${pv('sdotusp', '', 'b', 's8', 'a1', 'a0')}
    ${pv('dotsp', '', 'h', 's9', 'a0', 'a0')}
    ${pv('dotsp', '', 'h', 's10', 't0', 't0')}
    ${pv('dotup', '', 'h', 's11', 'a1', 'a1')}
    ${pv('dotusp', '', 'h', 't1', 'a1', 'a0')}
    li t2, 5
    ${pv('sdotsp', '', 'h', 't2', 'a0', 'a2')}
    ${pv('dotsp', 'sc', 'b', 't3', 'a2', 'a0')}
    ${pv('sdotsp', 'sci', 'b', 't4', 'a2', -3)}
    ${pv('dotup', 'sci', 'b', 't5', 'a1', 63)}
    ${pv('dotsp', 'sci', 'h', 't6', 'a2', -32)}
    ${pv('sdotusp', 'sc', 'h', 'a3', 'a1', 't0')}
    ${pv('sdotup', 'sc', 'h', 'a4', 'a1', 'a2')}
    EXIT
  `);
  const x = regs(r.m);
  const h = (v: number): number => v << 16 >> 16;
  assert.is(x[18], 4 * (-128 * -128), 'dotsp.b -128 * -128');
  assert.is(x[19], 4 * 255 * 255, 'dotup.b');
  assert.is(x[20], 4 * 255 * -128, 'dotusp.b: rs1 unsigned, rs2 signed');
  assert.is(x[21], 4 * 128 * -1, 'dotusp.b the other way round');
  assert.is(x[22], 100 + 4 * (-128 * 127), 'sdotsp.b');
  assert.is(x[23], 7 + 4 * 255 * 127, 'sdotup.b');
  assert.is(x[24], -1 + 4 * 255 * -128, 'sdotusp.b');
  assert.is(x[25], 2 * h(0x8080) * h(0x8080), 'dotsp.h');
  assert.is(x[26], (2 * 0x8000 * 0x8000) | 0, 'dotsp.h wraps at 2^31');
  assert.is(x[27], Number(BigInt.asIntN(32, 2n * 65535n * 65535n)), 'dotup.h wraps');
  assert.is(x[6], Math.imul(2 * 65535, h(0x8080)), 'dotusp.h');
  assert.is(x[7], 5 + 2 * h(0x8080) * 0x7f7f, 'sdotsp.h');
  assert.is(x[28], 4 * 127 * -128, 'dotsp.sc.b replicates rs2[7:0]');
  assert.is(x[29], 4 * 127 * -3, 'sdotsp.sci.b sign-extends the immediate');
  assert.is(x[30], 4 * 255 * 63, 'dotup.sci.b');
  assert.is(x[31], 2 * 0x7f7f * -32, 'dotsp.sci.h');
  assert.is(x[13], Math.imul(2 * 65535, h(0x8000)), 'sdotusp.sc.h replicates rs2[15:0]');
  assert.is(x[14], Math.imul(2 * 65535, 0x7f7f), 'sdotup.sc.h');
  assert.is(r.cycles, r.instructions, 'one cycle each');
});

test('SIMD ALU, extract/insert, shuffle and pack', async () => {
  const r = await runAsm(`
    .option norvc
    li a0, 0x7f80ff01
    li a1, 0x01010101
    ${pv('add', '', 'b', 's2', 'a0', 'a1')}
    ${pv('sub', '', 'h', 's3', 'a0', 'a1')}
    ${pv('max', '', 'b', 's4', 'a0', 'a1')}
    ${pv('maxu', '', 'b', 's5', 'a0', 'a1')}
    ${pv('min', '', 'b', 's6', 'a0', 'a1')}
    ${pv('abs', '', 'b', 's7', 'a0', 'zero')}
    ${pv('extract', 'sci', 'b', 's8', 'a0', 2)}
    ${pv('extractu', 'sci', 'h', 's9', 'a0', 1)}
    li s10, 0x11223344
    ${pv('insert', 'sci', 'b', 's10', 'a1', 3)}
    ${pv('pack', '', 'h', 's11', 'a0', 'a1')}
    ${pvPackH('t0', 'a0', 'a1')}
    li t1, 0x55667788
    ${pv('packhi', '', 'b', 't1', 'a0', 'a1')}
    li t2, 0x55667788
    ${pv('packlo', '', 'b', 't2', 'a0', 'a1')}
    li t3, 0x02070005
    li t4, 0xddccbbaa
    ${pv('shuffle2', '', 'b', 't4', 'a0', 't3')}
    ${pv('shuffle', 'sci', 'b', 't5', 'a0', 27)}
    ${pv('add', 'sci', 'h', 't6', 'a1', -2)}
    ${pv('srl', 'sci', 'b', 'a2', 'a0', 1)}
    ${pv('avgu', '', 'b', 'a3', 'a0', 'a1')}
    ${pv('max', 'sc', 'h', 'a4', 'a0', 'a1')}
    ${pv('and', 'sci', 'b', 'a5', 'a0', 0x0f)}
    EXIT
  `);
  const x = regs(r.m);
  assert.is(u(x[18]), 0x80810002, 'add.b wraps per lane');
  assert.is(u(x[19]), 0x7e7ffe00, 'sub.h');
  assert.is(u(x[20]), 0x7f010101, 'max.b signed');
  assert.is(u(x[21]), 0x7f80ff01, 'maxu.b');
  assert.is(u(x[22]), 0x0180ff01, 'min.b signed');
  assert.is(u(x[23]), 0x7f800101, 'abs.b: |-128| = 0x80');
  assert.is(x[24], -128, 'extract.b sign-extends');
  assert.is(x[25], 0x7f80, 'extractu.h');
  assert.is(u(x[26]), 0x01223344, 'insert.b keeps the other lanes');
  assert.is(u(x[27]), 0xff010101, 'pack');
  assert.is(u(x[5]), 0x7f800101, 'pack.h');
  assert.is(u(x[6]), 0x01017788, 'packhi.b');
  assert.is(u(x[7]), 0x55660101, 'packlo.b');
  assert.is(u(x[29]), 0xcc7faaff, 'shuffle2.b picks rs1 or the old rd per lane');
  assert.is(u(x[30]), 0x01ff807f, 'shuffleI0.sci.b reverses with selector 27');
  assert.is(u(x[31]), 0x00ff00ff, 'add.sci.h');
  assert.is(u(x[12]), 0x3f407f00, 'srl.sci.b');
  assert.is(u(x[13]), 0x40400001, 'avgu.b');
  assert.is(u(x[14]), 0x7f800101, 'max.sc.h: halves of a0 against 0x0101');
  assert.is(u(x[15]), 0x0f000f01, 'and.sci.b');
});

test('scalar XpulpV2: clip, min/max, abs, extensions, MAC, bit ops, immediate branches', async () => {
  const r = await runAsm(`
    .option norvc
    li a0, 300
    li a1, -300
    li a2, 127
    li a3, 255
    li a4, 0x50
    ${pClip(false, 's2', 'a0', 8)}
    ${pClip(false, 's3', 'a1', 8)}
    ${pClip(true, 's4', 'a0', 9)}
    ${pClip(true, 's5', 'a1', 9)}
    ${alu('p.clipr', 's6', 'a1', 'a2')}
    ${alu('p.clipur', 's7', 'a0', 'a3')}
    ${alu('p.min', 's8', 'a0', 'a1')}
    ${alu('p.maxu', 's9', 'a0', 'a1')}
    ${alu('p.abs', 's10', 'a1')}
    li t0, 0x18000
    ${alu('p.exths', 's11', 't0')}
    ${alu('p.extbz', 't1', 'a1')}
    li t2, 10
    ${alu('p.mac', 't2', 'a0', 'a2')}
    li t3, 10
    ${alu('p.msu', 't3', 'a0', 'a2')}
    ${alu('p.ff1', 't4', 'a4')}
    ${alu('p.fl1', 't5', 'a4')}
    ${alu('p.cnt', 't6', 'a4')}
    ${bitfield('p.extract', 'a5', 'a1', 3, 4)}
    ${bitfield('p.extractu', 'a6', 'a1', 3, 4)}
    ${bitfield('p.insert', 'gp', 'a4', 7, 8)}
    ${bitfield('p.bset', 's1', 'zero', 2, 4)}
    li s0, -5
    ${pBimm(false, 's0', -5, '1f')}
    li s0, 99
1:  ${pBimm(true, 's0', -5, '2f')}
    addi s0, s0, 1
2:  EXIT
  `);
  const x = regs(r.m);
  assert.equal(x.slice(18, 28), [127, -128, 255, 0, -128, 255, -300, -300, 300, -32768]);
  assert.equal([x[6], x[7], x[28], x[29], x[30]], [0xd4, 10 + 300 * 127, 10 - 300 * 127, 4, 6]);
  assert.is(x[31], 2, 'p.cnt');
  assert.equal([x[15], x[16], x[3], x[9]], [-3, 13, 0x5000, 0x70]);
  assert.is(x[8], -4, 'beqimm taken over li 99, bneimm not taken');
  // li 0x18000 is lui + addi; everything else one instruction; the taken p.beqimm costs 3
  assert.is(r.stalls[STALL.branch], 2);
  assert.is(r.cycles, r.instructions + 2);
});

test.run();
