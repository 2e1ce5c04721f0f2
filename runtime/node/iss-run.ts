/**
 * `gen run --on iss`: the bare-metal rv32 ELF that `gen build --target rv32-xpulp` makes (the qemu image's C with the
 * XpulpV2 SIMD instructions of firmgen_simd.h) executed by the
 * emulator's cycle-counting RV32 core (emulator/assembly/iss, CV32E40P timing; docs/iss.md). The ELF's memories are
 * mapped at their link addresses, the inputs and outputs go through the same semihosting files as under qemu, and
 * the layer markers of the rv32 HAL (fg_layer_marks) give each layer's cycles as measured on this very binary.
 * One hart: the rv32 HAL runs a cluster fork as a team of one and its DMA is a copy at issue.
 */
import { readFileSync } from 'node:fs';
import { GenError, quoted } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { buildC, readImageFile } from './c-build.js';
import { emulatorModule } from './emulator.js';
import { readElfSections, readElfSymbol, SHF_ALLOC } from './elf.js';
import { faultLine, FLAG, STOP, type IssExports } from './iss.js';
import { readManifest } from './manifest.js';
import { packInputs, unpackOutputs } from './raw-io.js';

/** Instructions a run may execute before it is taken for a hang: about a minute at the core's emulated speed. */
export const ISS_DEFAULT_MAX_INSTRUCTIONS = 1e10;

export interface IssLayer {
  layer: number;
  name: string;
  cycles: number;
}

export interface IssRun {
  outputs: NDArray[];
  /** Cycles and instructions of the whole program (startup, input reading and output writing included). */
  cycles: number;
  instructions: number;
  /** Cycles from the first layer's begin to the last layer's end: the network itself. */
  networkCycles: number;
  layers: IssLayer[];
  /** Stall cycles by kind: load-use, branch, multi-cycle, memory, misaligned. */
  stalls: number[];
  ms: number;
}

/** The ELF's allocated sections merged into spans (gaps under 64 KiB joined), each mapped as one RAM region. */
function spans(elf: string): { base: number; size: number }[] {
  const secs = readElfSections(elf).filter((s) => (s.flags & SHF_ALLOC) !== 0 && s.size > 0).sort((a, b) => a.address - b.address);
  const out: { base: number; end: number }[] = [];
  for (const s of secs) {
    const last = out[out.length - 1];
    if (last && s.address <= last.end + 0x10000) last.end = Math.max(last.end, s.address + s.size);
    else out.push({ base: s.address, end: s.address + s.size });
  }
  return out.map((s) => ({ base: s.base, size: ((s.end - s.base + 4095) & ~4095) >>> 0 }));
}

export async function runIss(outDir: string, inputs: NDArray[], maxInstructions = ISS_DEFAULT_MAX_INSTRUCTIONS): Promise<IssRun> {
  const manifest = readManifest(outDir);
  // The C as the board's cores would run it: with the XpulpV2 instructions of firmgen_simd.h where they have them
  // (Siracusa), else plain rv32imc (generic, Gemmini's host).
  const { path: elf } = buildC(outDir, readImageFile(outDir).rv32?.xpulp ? 'rv32-xpulp' : 'rv32');
  const inBytes = packInputs(manifest, inputs, outDir);
  const outBytes = manifest.outputs.reduce((n, name) => n + (manifest.tensors.find((t) => t.name === name)?.bytes ?? 0), 0);

  const inst = await WebAssembly.instantiate(await emulatorModule(), {});
  const emu = inst.exports as unknown as IssExports;
  emu.iss_reset();
  const regions: string[] = [];
  const mapped: { base: number; size: number; linear: number }[] = [];
  for (const s of spans(elf)) {
    const linear = emu.iss_alloc(s.size);
    if (linear === 0) throw new GenError('run', `no memory for the rv32 image's ${s.size} bytes at 0x${s.base.toString(16)}`, { file: elf });
    const i = emu.iss_region_add(s.base >>> 0, s.size >>> 0, linear, 0, FLAG.read | FLAG.write | FLAG.exec, 0);
    if (i < 0) throw new GenError('run', `cannot map 0x${s.base.toString(16)} + ${s.size} bytes`, { file: elf });
    regions[i] = `RAM@0x${s.base.toString(16)}`;
    mapped.push({ ...s, linear });
  }
  const bytes = readFileSync(elf);
  const image = emu.iss_alloc(bytes.length);
  new Uint8Array(emu.memory.buffer, image, bytes.length).set(bytes);
  const inPtr = emu.iss_alloc(Math.max(1, inBytes.length));
  new Uint8Array(emu.memory.buffer, inPtr, inBytes.length).set(inBytes);
  emu.iss_host_input(inPtr, inBytes.length);
  const outPtr = emu.iss_alloc(Math.max(1, outBytes));
  emu.iss_host_output(outPtr, outBytes);
  if (emu.iss_load_elf(image, bytes.length) !== 0) throw new GenError('run', `rv32 image: ${faultLine({ emu, regions })}`, { file: elf });
  emu.iss_set_pc(0, emu.iss_elf_entry());

  const t0 = performance.now();
  let console = '';
  let stop: number;
  for (;;) {
    const left = maxInstructions - emu.iss_instructions(0);
    if (left <= 0) {
      throw new GenError('run', `the rv32 firmware did not finish within ${maxInstructions} instructions (a loop that never ends?)`, { file: elf });
    }
    stop = emu.iss_run(0, Math.min(left, 0x4000_0000));
    const n = emu.iss_console_length();
    console += Buffer.from(new Uint8Array(emu.memory.buffer, emu.iss_console_ptr(), n)).toString('latin1');
    emu.iss_console_clear();
    if (stop !== STOP.output && stop !== STOP.budget) break;
  }
  const ms = performance.now() - t0;
  if (stop === STOP.fault) throw new GenError('run', `fault: ${faultLine({ emu, regions })}`, { file: elf });
  if (stop !== STOP.exit) throw new GenError('run', `the rv32 firmware stopped (reason ${stop}) instead of exiting`, { file: elf });
  const code = emu.iss_exit_code(0);
  if (code !== 0) {
    throw new GenError('run', `the rv32 firmware exited with code ${code}${console.trim() ? `: ${console.trim().split('\n').slice(-2).join(' | ')}` : ''}`, { file: elf });
  }
  const outputs = unpackOutputs(manifest, new Uint8Array(emu.memory.buffer, outPtr, emu.iss_host_output_length()).slice(), elf);

  const layers = layerCycles(emu, mapped, elf, new Map(manifest.layers.map((l) => [l.id, l.name])));
  return {
    outputs,
    cycles: emu.iss_cycles(0),
    instructions: emu.iss_instructions(0),
    networkCycles: layers.span,
    layers: layers.rows,
    stalls: [0, 1, 2, 3, 4].map((k) => emu.iss_stalls(0, k)),
    ms,
  };
}

/** Per-layer cycles from the HAL's marks (runtime/c/rv32/hal_rv32.c): end minus begin of each layer, in run order. */
function layerCycles(emu: IssExports, mapped: { base: number; size: number; linear: number }[], elf: string,
  names: Map<number, string>): { rows: IssLayer[]; span: number } {
  const sym = readElfSymbol(elf, 'fg_layer_marks');
  if (!sym) return { rows: [], span: 0 };
  const m = mapped.find((r) => sym.address >= r.base && sym.address + sym.size <= r.base + r.size);
  if (!m) return { rows: [], span: 0 };
  const words = new Uint32Array(emu.memory.buffer, m.linear + (sym.address - m.base), sym.size / 4);
  const count = Math.min(words[0], Math.floor((words.length - 1) / 3));
  const open = new Map<number, number>();
  const rows: IssLayer[] = [];
  let first = -1;
  let last = -1;
  for (let k = 0; k < count; k++) {
    const tag = words[1 + 3 * k];
    const at = words[2 + 3 * k] + words[3 + 3 * k] * 2 ** 32;
    const layer = tag >>> 1;
    if ((tag & 1) === 0) {
      open.set(layer, at);
      if (first < 0) first = at;
    } else {
      const begin = open.get(layer);
      if (begin === undefined) continue;
      open.delete(layer);
      rows.push({ layer, name: names.get(layer) ?? '', cycles: at - begin });
      last = at;
    }
  }
  return { rows, span: first >= 0 && last >= first ? last - first : 0 };
}

/** The `--on iss` table: each layer's measured cycles and share, then the network's and the program's totals. */
export function formatIssProfile(r: IssRun, clockHz?: number): string {
  const us = (c: number): string => (clockHz ? (c / clockHz * 1e6).toFixed(2) : '-');
  const total = r.networkCycles || 1;
  const lines = [
    'Profile on the RV32 core (CV32E40P timing, one hart; cycles measured on the rv32 ELF itself, docs/iss.md)',
    `${'id'.padStart(3)}  ${'layer'.padEnd(24)}  ${'cycles'.padStart(12)}  ${'us'.padStart(10)}  ${'share'.padStart(6)}`,
  ];
  for (const l of r.layers) {
    lines.push(`${String(l.layer).padStart(3)}  ${quoted(l.name).slice(1, -1).slice(0, 24).padEnd(24)}  ${String(l.cycles).padStart(12)}  ` +
      `${us(l.cycles).padStart(10)}  ${(100 * l.cycles / total).toFixed(1).padStart(5)}%`);
  }
  lines.push(`network ${r.networkCycles} cycles; whole program ${r.cycles} cycles, ${r.instructions} instructions ` +
    `(IPC ${(r.instructions / Math.max(1, r.cycles)).toFixed(2)}); stalls: load-use ${r.stalls[0]}, branch ${r.stalls[1]}, ` +
    `multi-cycle ${r.stalls[2]}, memory ${r.stalls[3]}, misaligned ${r.stalls[4]}; emulated in ${r.ms.toFixed(0)} ms`);
  return lines.join('\n');
}
