/**
 * The RV32 core of the emulator (emulator/assembly/iss, docs/iss.md) as the runtime sees it: its exports, stop
 * reasons and region flags, and the one-line text of its fault record.
 */
import type { EventLogExports } from './emulator.js';

export interface IssExports extends EventLogExports {
  memory: WebAssembly.Memory;
  iss_reset(): void;
  iss_max_harts(): number;
  iss_alloc(bytes: number): number;
  iss_region_add(base: number, size: number, linear: number, wait: number, flags: number, device: number): number;
  iss_code_window(base: number, size: number): number;
  iss_load_elf(ptr: number, len: number): number;
  iss_elf_entry(): number;
  iss_set_pc(hart: number, pc: number): void;
  iss_pc(hart: number): number;
  iss_set_reg(hart: number, r: number, v: number): void;
  iss_reg(hart: number, r: number): number;
  iss_loop_reg(hart: number, i: number): number;
  iss_run(hart: number, budget: number): number;
  iss_exit_code(hart: number): number;
  iss_stop_reason(hart: number): number;
  iss_cycles(hart: number): number;
  iss_instructions(hart: number): number;
  iss_stalls(hart: number, kind: number): number;
  iss_fault_kind(): number;
  iss_fault_hart(): number;
  iss_fault_pc(): number;
  iss_fault_insn(): number;
  iss_fault_addr(): number;
  iss_fault_size(): number;
  iss_fault_region(): number;
  iss_console_ptr(): number;
  iss_console_length(): number;
  iss_console_clear(): void;
  iss_host_input(ptr: number, len: number): void;
  iss_host_output(ptr: number, cap: number): void;
  iss_host_output_length(): number;
  iss_cluster_config(fc: number, first: number, cores: number, l1: number, l2: number): number;
  iss_cluster_run(harts: number, budget: number): number;
  iss_cluster_stop_hart(): number;
  iss_bank_conflicts(): number;
  /** Cluster instruction-cache misses: level 0 the cores' private caches summed, 1 the shared level. */
  iss_icache_misses(level: number): number;
  /** Cycles a core waits for a line from L2 with no refill in flight. */
  iss_icache_line_cycles(): number;
  /** Harts first..first+n-1 fetch through the cluster's instruction cache, emptied (n = 0: none); -1 if out of range. */
  iss_icache_config(first: number, n: number): number;
  iss_cluster_marks(ptr: number, capacity: number): void;
  iss_cluster_mark_count(): number;
  iss_cluster_stack(hart: number, lo: number, hi: number): void;
  iss_profile(buf: number, base: number, size: number): void;
  iss_profile_flush(): void;
  iss_profile_hart(hart: number): void;
  iss_profile_window(lo: number, hi: number): void;
  iss_npu_config(l1: number, mram: number, sram: number, nms: number): void;
  iss_npu_finish(): number;
  iss_l3_config(l2: number, l3: number): void;
  iss_l3_copy_cycles(bytes: number): number;
  iss_device_hart(): number;
  /** The AS path's fault text, which the NPU and L3 devices write before they trap (emulator/assembly/fault.ts). */
  fault_message(): number;
  fault_message_length(): number;
}

export const FLAG = { read: 1, write: 2, exec: 4, mmio: 8, timed: 16 } as const;
export const STOP = { budget: 0, exit: 1, ebreak: 2, fault: 3, ecall: 4, wfi: 5, output: 6 } as const;
export const STALL = { loadUse: 0, branch: 1, multi: 2, memory: 3, misaligned: 4, sync: 5, dma: 6, npu: 7, fetch: 8 } as const;
export const STALL_KINDS = [0, 1, 2, 3, 4, 5, 6, 7, 8];

/**
 * Instructions per call into the emulator's run loop. V8 runs a wasm function in its baseline code (Liftoff) until
 * the optimised code is ready, and a call already running keeps the code it started in (no on-stack replacement for
 * wasm): one call for a whole run stayed in the baseline code, at about half the speed (bench:iss). Calls of a few
 * hundred thousand instructions (a few ms) switch to the optimised code within the first tens of ms; the cycles do not
 * depend on where a run is cut (run() resumes a hart exactly; the cluster's scheduler ends a call at a slice's end).
 */
export const ISS_CALL_INSTRUCTIONS = 1 << 18;

const FAULT_TEXT: Record<number, string> = {
  1: 'illegal instruction',
  2: 'misaligned instruction fetch',
  3: 'instruction fetch outside every region',
  4: 'instruction fetch from a non-executable region',
  5: 'load outside every region',
  6: 'store outside every region',
  7: 'load from a region without read access',
  8: 'store to a read-only region',
  9: 'access to an MMIO region without a device model',
  10: 'access to an unknown device register',
  11: 'semihosting call with an unreadable parameter block',
  12: 'unsupported semihosting call',
  13: 'bad ELF image',
  14: 'deadlock: every hart sleeps in the event unit',
  15: 'cluster DMA misuse',
  16: 'event unit misuse',
  17: 'stack overflow: sp left the core\'s stack',
};
const ELF_TEXT: Record<number, string> = {
  1: 'not an ELF32 little-endian file',
  2: 'not a RISC-V executable',
  3: 'truncated',
  4: 'a segment lies outside every region',
  5: 'no code window for an executable segment',
};

/**
 * A trap of the emulator during a run: the N-EUREKA and HyperRAM DMA devices (emulator/assembly/iss/npu.ts, l3.ts)
 * fault as the AS path does, with a one-line message, naming the hart that made the access; anything else is a bug
 * and is rethrown.
 */
export function deviceFaultLine(emu: IssExports, e: unknown): string {
  const n = e instanceof WebAssembly.RuntimeError ? emu.fault_message_length() : 0;
  if (n === 0) throw e;
  const text = Buffer.from(new Uint8Array(emu.memory.buffer, emu.fault_message(), n)).toString('latin1');
  const hart = emu.iss_device_hart();
  return hart >= 0 ? `hart ${hart}: ${text}` : text;
}

const hex = (v: number): string => `0x${(v >>> 0).toString(16).padStart(8, '0')}`;

/** The fault record as one line: what, hart, pc, instruction word, address and region. */
export function faultLine(m: { emu: IssExports; regions: string[] }): string {
  const e = m.emu;
  const kind = e.iss_fault_kind();
  const region = e.iss_fault_region();
  const where = region >= 0 ? `region ${m.regions[region] ?? region}` : 'no region';
  if (kind === 13) return `ELF: ${ELF_TEXT[e.iss_fault_size()] ?? 'unknown reason'} at ${hex(e.iss_fault_addr())} (${where})`;
  if (kind === 14) return 'deadlock: every hart sleeps in the event unit (nothing will wake them)';
  if (kind === 17) return `hart ${e.iss_fault_hart()}: stack overflow: sp ${hex(e.iss_fault_addr())} is outside the core's stack (pc ${hex(e.iss_fault_pc())})`;
  if (kind === 12) return `hart ${e.iss_fault_hart()}: unsupported semihosting call ${e.iss_fault_addr()} at pc ${hex(e.iss_fault_pc())}`;
  const head = `hart ${e.iss_fault_hart()}: ${FAULT_TEXT[kind] ?? `fault ${kind}`} at pc ${hex(e.iss_fault_pc())}`;
  if (kind >= 2 && kind <= 4) return `${head} (${where})`; // fetch faults: there is no instruction word
  const insn = e.iss_fault_insn();
  const word = (insn & 3) === 3 ? hex(insn) : `0x${(insn & 0xffff).toString(16).padStart(4, '0')}`;
  return `${head} (instruction ${word}), address ${hex(e.iss_fault_addr())} (${where})`;
}
