/**
 * Harness of the RV32 core tests and bench: a fresh emulator instance with a bare machine (one RAM region at the
 * address of qemu's `virt` RAM, a simulation-control MMIO block), assembling/compiling with Debian's bare-metal
 * RISC-V gcc, running an ELF to its stop, and the one-line fault text the chip wiring will print too.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emulatorModule } from '../../runtime/node/emulator.js';
import { faultLine, FLAG, ISS_CALL_INSTRUCTIONS, STALL, STOP, type IssExports } from '../../runtime/node/iss.js';

export { faultLine, FLAG, STALL, STOP, type IssExports };

/** qemu virt RAM base, where the test programs are linked (picolibc: flash 2 MiB then RAM 2 MiB). */
export const RAM_BASE = 0x8000_0000;
export const RAM_SIZE = 0x40_0000;
export const SIMCTRL_BASE = 0x1000_0000;
const DEVICE_SIMCTRL = 1;

export interface Machine {
  emu: IssExports;
  /** Linear address of RAM_BASE. */
  ram: number;
  /** Region names by index, for fault lines. */
  regions: string[];
}

/** A fresh emulator with RAM (RWX) and the simulation-control block. */
export async function machine(): Promise<Machine> {
  const inst = await WebAssembly.instantiate(await emulatorModule(), {});
  const emu = inst.exports as unknown as IssExports;
  emu.iss_reset();
  const ram = emu.iss_alloc(RAM_SIZE);
  if (ram === 0) throw new Error('no linear memory for the RAM');
  const m: Machine = { emu, ram, regions: [] };
  add(m, 'RAM', RAM_BASE, RAM_SIZE, ram, 0, FLAG.read | FLAG.write | FLAG.exec, 0);
  add(m, 'SIMCTRL', SIMCTRL_BASE, 0x100, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, DEVICE_SIMCTRL);
  return m;
}

export function add(m: Machine, name: string, base: number, size: number, linear: number, wait: number, flags: number, device: number): number {
  const i = m.emu.iss_region_add(base >>> 0, size >>> 0, linear, wait, flags, device);
  if (i < 0) throw new Error(`region ${name} rejected`);
  m.regions[i] = name;
  return i;
}

export function loadElf(m: Machine, elf: Uint8Array, harts = 1): void {
  const ptr = m.emu.iss_alloc(elf.length);
  new Uint8Array(m.emu.memory.buffer, ptr, elf.length).set(elf);
  if (m.emu.iss_load_elf(ptr, elf.length) !== 0) throw new Error(faultLine(m));
  for (let h = 0; h < harts; h++) {
    m.emu.iss_set_pc(h, m.emu.iss_elf_entry());
    m.emu.iss_set_reg(h, 2, (RAM_BASE + RAM_SIZE - 16 - h * 0x1000) | 0);
    m.emu.iss_set_reg(h, 10, h);
  }
}

export interface RunResult {
  stop: number;
  exit: number;
  out: string;
  cycles: number;
  instructions: number;
  stalls: number[];
  fault: string;
}

/** Runs hart `hart` in runs of at most `slice` instructions until it stops for a reason other than console output
 * (drained into `out`) or a used-up slice, or `budget` instructions have run. */
export function runToStop(m: Machine, hart = 0, budget = 200_000_000, slice = ISS_CALL_INSTRUCTIONS): RunResult {
  let out = '';
  let stop: number;
  let left = budget;
  for (;;) {
    const before = m.emu.iss_instructions(hart);
    stop = m.emu.iss_run(hart, Math.min(left, slice));
    left -= m.emu.iss_instructions(hart) - before;
    out += drain(m);
    if ((stop !== STOP.output && stop !== STOP.budget) || left <= 0) break;
  }
  return {
    stop,
    exit: m.emu.iss_exit_code(hart),
    out,
    cycles: m.emu.iss_cycles(hart),
    instructions: m.emu.iss_instructions(hart),
    stalls: [0, 1, 2, 3, 4].map((k) => m.emu.iss_stalls(hart, k)),
    fault: stop === STOP.fault ? faultLine(m) : '',
  };
}

/** RAM words at chip address `addr`. */
export function ramWords(m: Machine, addr: number, n: number): number[] {
  return Array.from(new Int32Array(m.emu.memory.buffer, m.ram + (addr - RAM_BASE), n));
}

/** Registers x0..x31 of a hart (signed). */
export function regs(m: Machine, hart = 0): number[] {
  return Array.from({ length: 32 }, (_, r) => m.emu.iss_reg(hart, r));
}

function drain(m: Machine): string {
  const n = m.emu.iss_console_length();
  const s = Buffer.from(new Uint8Array(m.emu.memory.buffer, m.emu.iss_console_ptr(), n)).toString('latin1');
  m.emu.iss_console_clear();
  return s;
}

// ---- building test programs ----

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'firmgen-iss-'));
  made.push(d);
  return d;
}

const GCC = 'riscv64-unknown-elf-gcc';
const ARCH = ['-march=rv32imc', '-mabi=ilp32'];

/**
 * Assembles a bare program (entry `_start` at RAM_BASE, no C library). `exit` helpers: the source may use the
 * macros EXIT (ecall 93 with a0) defined here.
 */
export function assemble(source: string, extraFlags: string[] = []): Uint8Array {
  const d = tmp();
  const prelude = `
    .macro EXIT
      li a7, 93
      ecall
    .endm
    .option norelax
    .text
    .globl _start
  _start:
  `;
  writeFileSync(join(d, 'p.S'), prelude + source + '\n');
  // extraFlags last: they may override the text address
  execFileSync(GCC, ['-march=rv32imc_zicsr_zifencei', '-mabi=ilp32', '-nostdlib', '-nostartfiles', `-Wl,-Ttext=0x${RAM_BASE.toString(16)}`,
    '-Wl,--no-relax', '-Wl,-N', ...extraFlags, '-o', join(d, 'p.elf'), join(d, 'p.S')], { stdio: ['ignore', 'pipe', 'pipe'] });
  return readFileSync(join(d, 'p.elf'));
}

/** Compiles C with picolibc and semihosting (the qemu-comparable build: docs in the TOOLCHAIN notes). */
export function compileC(source: string, opt = '-O2'): { elf: Uint8Array; path: string } {
  const d = tmp();
  writeFileSync(join(d, 'p.c'), source);
  const path = join(d, 'p.elf');
  execFileSync(GCC, [...ARCH, opt, '-specs=picolibc.specs', '--oslib=semihost', '--crt0=semihost',
    '-Wl,--defsym=__flash=0x80000000,--defsym=__flash_size=0x200000,--defsym=__ram=0x80200000,--defsym=__ram_size=0x200000',
    '-o', path, join(d, 'p.c')], { stdio: ['ignore', 'pipe', 'pipe'] });
  return { elf: readFileSync(path), path };
}

/** Runs an ELF under qemu-system-riscv32 (virt, semihosting): its console output and exit code. */
export function qemu(path: string): { out: string; exit: number } {
  try {
    const out = execFileSync('qemu-system-riscv32', ['-machine', 'virt', '-nographic', '-bios', 'none', '-kernel', path,
      '-display', 'none', '-serial', 'none', '-monitor', 'none', '-chardev', 'stdio,id=shc',
      '-semihosting-config', 'enable=on,target=native,chardev=shc'], { timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
    return { out: out.toString('latin1'), exit: 0 };
  } catch (e) {
    const err = e as { status?: number; stdout?: Buffer };
    if (typeof err.status === 'number') return { out: err.stdout?.toString('latin1') ?? '', exit: err.status };
    throw e;
  }
}

/** Assembles, loads and runs a bare program; fails loudly on anything but the expected stop. */
export async function runAsm(source: string, expectStop: number = STOP.exit, setup?: (m: Machine) => void): Promise<RunResult & { m: Machine }> {
  const m = await machine();
  setup?.(m);
  loadElf(m, assemble(source));
  const r = runToStop(m);
  if (r.stop !== expectStop) throw new Error(`stopped with ${r.stop} (${r.fault}), expected ${expectStop}`);
  return { ...r, m };
}
