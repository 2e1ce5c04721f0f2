/**
 * Faults of the RV32 core: every bad program stops its hart with a fault record that reads as one named line (kind,
 * hart, pc, instruction word, address, region), never a trap of the wasm module or a Node crash.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { add, assemble, FLAG, loadElf, machine, regs, runAsm, STOP } from './iss-harness.js';

const hex = (v: number): string => `0x${(v >>> 0).toString(16).padStart(8, '0')}`;

test('illegal instructions: an unknown opcode, the all-zero half-word, an unknown CSR, a write to mhartid', async () => {
  const word = await runAsm(`
    .option norvc
    nop
    .word 0xffffffff
  `, STOP.fault);
  assert.is(word.fault, 'hart 0: illegal instruction at pc 0x80000004 (instruction 0xffffffff), address 0x80000004 (region RAM)');
  assert.is(word.instructions, 1, 'the faulting instruction does not retire');
  assert.is(word.m.emu.iss_pc(0) >>> 0, 0x80000004, 'pc stays on it');

  const zero = await runAsm(`
    .option norvc
    .half 0
  `, STOP.fault);
  assert.is(zero.fault, 'hart 0: illegal instruction at pc 0x80000000 (instruction 0x0000), address 0x80000000 (region RAM)');

  const csr = await runAsm(`
    .option norvc
    csrr a0, 0x7c0
  `, STOP.fault);
  assert.is(csr.fault, 'hart 0: illegal instruction at pc 0x80000000 (instruction 0x7c002573), address 0x80000000 (region RAM)');

  const ro = await runAsm(`
    .option norvc
    csrw mhartid, a0
  `, STOP.fault);
  assert.match(ro.fault, /^hart 0: illegal instruction at pc 0x80000000 \(instruction 0xf1451073\)/);
});

test('misaligned fetch: a hardware loop whose start (written through its CSR) is odd', async () => {
  const r = await runAsm(`
    .option norvc
    la t0, 1f
    addi t0, t0, 1
    csrw 0x800, t0
    la t1, 2f
    csrw 0x801, t1
    li t2, 2
    csrw 0x802, t2
1:  nop
2:  nop
    EXIT
  `, STOP.fault);
  const start = regs(r.m)[5];
  assert.is(r.fault, `hart 0: misaligned instruction fetch at pc ${hex(start)} (region RAM)`);
});

test('fetch outside every region and from a non-executable region', async () => {
  const outside = await runAsm(`
    .option norvc
    li t0, 0x70000000
    jr t0
  `, STOP.fault);
  assert.is(outside.fault, 'hart 0: instruction fetch outside every region at pc 0x70000000 (no region)');
  const mmio = await runAsm(`
    .option norvc
    li t0, 0x10000000
    jr t0
  `, STOP.fault);
  assert.is(mmio.fault, 'hart 0: instruction fetch from a non-executable region at pc 0x10000000 (region SIMCTRL)');
});

test('loads and stores outside every region, across a region end, to read-only memory, to a missing device', async () => {
  const load = await runAsm(`
    .option norvc
    li t0, 0x90000000
    lw a0, 0(t0)
  `, STOP.fault);
  assert.is(load.fault, 'hart 0: load outside every region at pc 0x80000004 (instruction 0x0002a503), address 0x90000000 (no region)');
  const store = await runAsm(`
    .option norvc
    li t0, 0x90000000
    sw a0, 8(t0)
  `, STOP.fault);
  assert.is(store.fault, 'hart 0: store outside every region at pc 0x80000004 (instruction 0x00a2a423), address 0x90000008 (no region)');
  const across = await runAsm(`
    .option norvc
    li t0, 0x803ffffe
    lw a0, 0(t0)
  `, STOP.fault);
  assert.match(across.fault, /load outside every region at pc 0x80000008 .*, address 0x803ffffe \(region RAM\)$/);

  const setup = (m: Parameters<NonNullable<Parameters<typeof runAsm>[2]>>[0]): void => {
    add(m, 'ROM', 0x2000_0000, 0x1000, m.emu.iss_alloc(0x1000), 0, FLAG.read | FLAG.exec, 0);
    add(m, 'DEV', 0x3000_0000, 0x100, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, 99);
  };
  const rom = await runAsm(`
    .option norvc
    li t0, 0x20000000
    sw a0, 0(t0)
  `, STOP.fault, setup);
  assert.is(rom.fault, 'hart 0: store to a read-only region at pc 0x80000004 (instruction 0x00a2a023), address 0x20000000 (region ROM)');
  const dev = await runAsm(`
    .option norvc
    li t0, 0x30000000
    lw a0, 4(t0)
  `, STOP.fault, setup);
  assert.is(dev.fault, 'hart 0: access to an MMIO region without a device model at pc 0x80000004 (instruction 0x0042a503), address 0x30000004 (region DEV)');
  const reg = await runAsm(`
    .option norvc
    li t0, 0x10000000
    lw a0, 0(t0)
  `, STOP.fault);
  assert.match(reg.fault, /access to an unknown device register at pc 0x80000004 .* address 0x10000000 \(region SIMCTRL\)$/);
});

test('a bad ELF image and an image outside the memory map are refused with a named reason', async () => {
  const m = await machine();
  assert.throws(() => loadElf(m, new TextEncoder().encode('not an ELF file at all, but long enough to read a header from it')),
    /^ELF: not an ELF32 little-endian file at 0x00000000 \(no region\)$/);
  const elsewhere = assemble('nop', ['-Wl,-Ttext=0x60000000']);
  assert.throws(() => loadElf(m, elsewhere), /^ELF: a segment lies outside every region at 0x60000000 \(no region\)$/);
});

test('an unsupported semihosting call stops with its number', async () => {
  const r = await runAsm(`
    .option norvc
    li a0, 0x99
    slli x0, x0, 0x1f
    ebreak
    srai x0, x0, 7
  `, STOP.fault);
  assert.is(r.fault, 'hart 0: unsupported semihosting call 153 at pc 0x80000008');
});

test.run();
