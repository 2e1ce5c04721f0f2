// Exports of the RV32 core (re-exported by emulator/assembly/index.ts). Lifecycle: iss_reset(); regions with
// iss_region_add (linear space from iss_alloc, or a chip model's own regions); an image with iss_load_elf (or bytes
// written directly plus iss_code_window); iss_set_pc / iss_set_reg per hart; iss_run until it reports a stop.
// Counters, the fault record and the console are read between runs. docs/iss.md describes the interface.

import { addRegion, addWindow, allocLinear, resetMemory } from "./memory";
import {
  flushCaches, flushProfile, hartCycles, hartExitCode, hartInstret, hartLoopReg, hartPc, hartReg, hartStall, hartStop,
  MAX_HARTS, resetHarts, run, setHartPc, setHartReg,
} from "./core";
import { clearFaultRecord, faultAddr, faultHart, faultInsn, faultKind, faultPc, faultRegion, faultSize } from "./faults";
import { consoleClear, consoleLength, consolePtr } from "./console";
import { elfEntry, loadElf } from "./loader";
import { hostOutputLength, setHostInput, setHostOutput } from "./semihost";
import { configureCluster } from "./cluster-state";
import { COLD_LINE_CYCLES, configureIcache, icacheL0Misses, icacheSharedMisses } from "./icache";
import { bankConflictCycles } from "./cluster-banks";
import { resetIssNpu } from "./npu";
import { resetIssL3 } from "./l3";
import { resetEvents } from "../events";
import { clearFault } from "../fault";
export { iss_npu_config, iss_npu_finish } from "./npu";
export { iss_device_hart } from "./mmio";
export { iss_l3_config, iss_l3_copy_cycles } from "./l3";
import { iss_profile, iss_profile_hart, iss_profile_window } from "./profile";
export { iss_profile, iss_profile_hart, iss_profile_window };
export { iss_cluster_config, iss_icache_config, iss_cluster_mark_count, iss_cluster_marks, iss_cluster_run, iss_cluster_stack, iss_cluster_stop_hart } from "./cluster";

/** Clears regions, code windows, every hart's state, the fault record and the console. */
export function iss_reset(): void {
  resetMemory();
  resetHarts();
  clearFaultRecord();
  consoleClear();
  setHostInput(0, 0);
  setHostOutput(0, 0);
  configureCluster(0, 1, 0, -1, -1, 0); // no cluster until iss_cluster_config
  configureIcache(0, 0); // fetches are free until a cluster's cores fetch through its instruction cache
  iss_profile(0, 0, 0);
  iss_profile_hart(-1);
  resetIssNpu();
  resetIssL3();
  clearFault(); // a trap with a message is a device fault (iss/npu.ts, iss/l3.ts)
  resetEvents(); // no layer open: device faults say "outside any layer" until a layer mark
}

export function iss_max_harts(): i32 {
  return MAX_HARTS;
}

/** Fresh zeroed linear memory (grows the memory); 0 if the memory cannot grow that far. */
export function iss_alloc(bytes: u32): usize {
  return allocLinear(bytes);
}

/**
 * Maps chip range [base, base + size) to linear memory at `linear`. `wait`: extra cycles per access. `flags`: 1 read,
 * 2 write, 4 execute, 8 MMIO (accesses go to device `device`, mmio.ts), 16 timed (mmio.ts timedAccessWait).
 * Returns the region index, -1 if the table is full or the range overlaps another region.
 */
export function iss_region_add(base: u32, size: u32, linear: usize, wait: i32, flags: i32, device: i32): i32 {
  const i = addRegion(base, size, linear, wait, flags, device);
  flushCaches();
  return i;
}

/** Predecodes [base, base + size) (inside an executable region); the index, or -1. Optional: fetching from an
 * executable region outside every window opens one over the surrounding 64 KiB. */
export function iss_code_window(base: u32, size: u32): i32 {
  return addWindow(base, size);
}

/** Loads an ELF image copied to linear memory; 0, or -1 with a fault record (kind 13). Entry: iss_elf_entry(). */
export function iss_load_elf(ptr: usize, len: u32): i32 {
  return loadElf(ptr, len);
}

export function iss_elf_entry(): u32 {
  return elfEntry();
}

export function iss_set_pc(hart: i32, pc: u32): void { if (valid(hart)) setHartPc(hart, pc); }
export function iss_pc(hart: i32): u32 { return valid(hart) ? hartPc(hart) : 0; }
export function iss_set_reg(hart: i32, r: i32, v: i32): void { if (valid(hart)) setHartReg(hart, r, v); }
export function iss_reg(hart: i32, r: i32): i32 { return valid(hart) ? hartReg(hart, r) : 0; }
/** Hardware-loop registers 0..5: start0, end0, count0, start1, end1, count1. */
export function iss_loop_reg(hart: i32, i: i32): u32 { return valid(hart) ? hartLoopReg(hart, i) : 0; }

/**
 * Runs `hart` for at most `budget` instructions: 0 budget used up, 1 exit (iss_exit_code), 2 ebreak, 3 fault
 * (iss_fault_*), 4 ecall without trap vector, 5 wfi, 6 console half full (drain and run again). -1: no such hart.
 */
export function iss_run(hart: i32, budget: i32): i32 {
  if (!valid(hart)) return -1;
  return run(hart, budget);
}

export function iss_exit_code(hart: i32): i32 { return valid(hart) ? hartExitCode(hart) : 0; }
export function iss_stop_reason(hart: i32): i32 { return valid(hart) ? hartStop(hart) : -1; }

// Counters as f64 (exact below 2^53) so that JS reads plain numbers.
export function iss_cycles(hart: i32): f64 { return valid(hart) ? <f64>hartCycles(hart) : 0; }
export function iss_instructions(hart: i32): f64 { return valid(hart) ? <f64>hartInstret(hart) : 0; }
/** Stall cycles of one kind: 0 load-use, 1 branch/jump, 2 multi-cycle ops (mulh, div, slow CSRs, fence.i),
 * 3 memory wait (region and device waits, L1 bank conflicts, L2 from the cluster), 4 misaligned accesses (split
 * transfers), 5 asleep in the event unit (fork, barrier, task), 6 asleep until a DMA completion. */
export function iss_stalls(hart: i32, kind: i32): f64 { return valid(hart) ? <f64>hartStall(hart, kind) : 0; }

export function iss_fault_kind(): i32 { return faultKind(); }
export function iss_fault_hart(): i32 { return faultHart(); }
export function iss_fault_pc(): u32 { return faultPc(); }
export function iss_fault_insn(): u32 { return faultInsn(); }
export function iss_fault_addr(): u32 { return faultAddr(); }
export function iss_fault_size(): i32 { return faultSize(); }
export function iss_fault_region(): i32 { return faultRegion(); }

export function iss_console_ptr(): usize { return consolePtr(); }
export function iss_console_length(): i32 { return consoleLength(); }
export function iss_console_clear(): void { consoleClear(); }

function valid(hart: i32): bool {
  return hart >= 0 && hart < MAX_HARTS;
}

/** The semihosting host files of the rv32 driver: "fg_inputs.bin" reads these bytes, "fg_outputs.bin" writes here. */
export function iss_host_input(ptr: usize, len: i32): void { setHostInput(ptr, len); }
export function iss_host_output(ptr: usize, cap: i32): void { setHostOutput(ptr, cap); }
export function iss_host_output_length(): i32 { return hostOutputLength(); }

/** Stall cycles the cluster's L1 bank conflicts caused, all harts together (part of each hart's memory stalls). */
export function iss_bank_conflicts(): f64 { return <f64>bankConflictCycles(); }

/** Cluster instruction-cache misses so far: level 0 the cores' private caches (summed), 1 the shared level. */
export function iss_icache_misses(level: i32): f64 { return <f64>(level == 0 ? icacheL0Misses() : icacheSharedMisses()); }

/** Cycles a core waits for a line from L2 with no refill in flight (what the cost fit charges a cold line). */
export function iss_icache_line_cycles(): i32 { return <i32>COLD_LINE_CYCLES; }

/** Ends the profile: each hart's last instruction gets its cycles up to the hart's count. */
export function iss_profile_flush(): void { flushProfile(); }
