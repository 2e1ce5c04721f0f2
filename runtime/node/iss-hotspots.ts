/**
 * Where an ISS run spent its cycles, by function and by instruction (`gen run --on iss --hotspots`): the core charges
 * every instruction's cycles, stalls and sleep included, to its address (emulator/assembly/iss/profile.ts); here the
 * addresses are named from the ELF's symbol table.
 */
import { execFileSync } from 'node:child_process';
import { printable } from '../../generator/errors.js';
import { readElfSections, SHF_EXEC, type ElfSymbol } from './elf.js';
import type { IssExports } from './iss.js';

export interface HotFunction {
  name: string;
  cycles: number;
  instructions: number;
}

export interface HotInstruction {
  pc: number;
  /** function+offset */
  where: string;
  cycles: number;
  count: number;
  /** The instruction's text from the cross objdump, when the toolchain is installed. */
  text?: string;
}

export interface Hotspots {
  /** Cycles of every hart, summed (the FC's and the cluster cores' time, sleep included). */
  total: number;
  functions: HotFunction[];
  instructions: HotInstruction[];
}

/** The executable span of the ELF that the profile covers. */
export function codeSpan(elf: string): { base: number; size: number } {
  const code = readElfSections(elf).filter((s) => (s.flags & SHF_EXEC) !== 0 && s.size > 0);
  if (code.length === 0) return { base: 0, size: 0 };
  const base = Math.min(...code.map((s) => s.address));
  const end = Math.max(...code.map((s) => s.address + s.size));
  return { base, size: end - base };
}

/** Turns the profile on for the span; returns the buffer's address. */
export function startProfile(emu: IssExports, span: { base: number; size: number }): number {
  const buf = emu.iss_alloc((Math.floor(span.size / 2) + 1) * 16);
  emu.iss_profile(buf, span.base >>> 0, span.size >>> 0);
  return buf;
}

/** Reads the profile after the run and names its addresses from the ELF's symbols (readElfSymbols). */
export function readHotspots(emu: IssExports, elf: string, symbols: ElfSymbol[], span: { base: number; size: number }, buf: number, top = 12): Hotspots {
  emu.iss_profile_flush();
  const slots = Math.floor(span.size / 2) + 1;
  const p = new Float64Array(emu.memory.buffer, buf, slots * 2);
  const funcs = symbols.filter((s) => s.type === 2 && s.size > 0).sort((a, b) => a.address - b.address);
  const owner = (pc: number): { name: string; address: number } | undefined => {
    let lo = 0;
    let hi = funcs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const f = funcs[mid];
      if (pc < f.address) hi = mid - 1;
      else if (pc >= f.address + f.size) lo = mid + 1;
      else return f;
    }
    return undefined;
  };
  const byName = new Map<string, HotFunction>();
  const hot: HotInstruction[] = [];
  let total = 0;
  for (let i = 0; i < slots; i++) {
    const cycles = p[2 * i];
    if (cycles === 0 && p[2 * i + 1] === 0) continue;
    total += cycles;
    const inSpan = i < slots - 1;
    const pc = span.base + 2 * i;
    const f = inSpan ? owner(pc) : undefined;
    const name = inSpan ? (f ? printable(f.name, 60) : '(no symbol)') : '(before start / outside the code)';
    const row = byName.get(name) ?? { name, cycles: 0, instructions: 0 };
    row.cycles += cycles;
    row.instructions += p[2 * i + 1];
    byName.set(name, row);
    if (inSpan) hot.push({ pc, where: f ? `${printable(f.name, 60)}+0x${(pc - f.address).toString(16)}` : `0x${pc.toString(16)}`, cycles, count: p[2 * i + 1] });
  }
  const instructions = hot.sort((a, b) => b.cycles - a.cycles).slice(0, top);
  const text = disassemble(elf, instructions.map((h) => h.pc));
  for (const h of instructions) h.text = text.get(h.pc);
  return { total, functions: [...byName.values()].sort((a, b) => b.cycles - a.cycles), instructions };
}

/** Instruction texts from the cross objdump (absent: an empty map; the table then shows addresses only). */
function disassemble(elf: string, pcs: number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (pcs.length === 0) return out;
  let text: string;
  try {
    text = execFileSync('riscv64-unknown-elf-objdump', ['-d', '--no-show-raw-insn', '-M', 'no-aliases', elf], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return out;
  }
  const want = new Set(pcs);
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-f]+):\s+(.*)$/.exec(line);
    if (!m) continue;
    const pc = parseInt(m[1], 16);
    if (want.has(pc)) out.set(pc, m[2].replace(/\s+/g, ' ').trim());
  }
  return out;
}

/** The hotspot tables: functions (share of all harts' cycles), then the hottest instructions. */
export function formatHotspots(h: Hotspots, functions = 15, within?: string): string {
  const pct = (c: number): string => `${(100 * c / (h.total || 1)).toFixed(1)}%`;
  const lines = [`Hotspots (cycles of every hart${within ? ` ${within}` : ''}, stalls and sleep included, by function):`];
  const w = Math.max(8, ...h.functions.slice(0, functions).map((f) => f.name.length));
  lines.push(`${'function'.padEnd(w)}  ${'cycles'.padStart(11)}  ${'share'.padStart(6)}  ${'instrs'.padStart(11)}  cyc/instr`);
  for (const f of h.functions.slice(0, functions)) {
    lines.push(`${f.name.padEnd(w)}  ${String(Math.round(f.cycles)).padStart(11)}  ${pct(f.cycles).padStart(6)}  ${String(f.instructions).padStart(11)}  ${(f.cycles / (f.instructions || 1)).toFixed(2).padStart(9)}`);
  }
  if (h.functions.length > functions) lines.push(`(${h.functions.length - functions} more functions)`);
  lines.push('', 'Hottest instructions:');
  for (const i of h.instructions) {
    lines.push(`  ${`0x${i.pc.toString(16)}`.padEnd(11)} ${i.where.padEnd(36)} ${String(Math.round(i.cycles)).padStart(10)} ${pct(i.cycles).padStart(6)}  x${i.count}  ${(i.cycles / (i.count || 1)).toFixed(2)} cyc  ${i.text ?? ''}`.trimEnd());
  }
  return lines.join('\n');
}
