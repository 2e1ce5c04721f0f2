// The emulator: one wasm module holding the chip models. The runtime calls configure() and reads results; the
// firmware imports the device API (module "chip") from these same exports. Contract: docs/firmware-abi.md.

import { genericCosts, siracusaCosts, spinnaker2Costs } from "./cost";
import { clearFault, msgBegin, msgDec, msgText, raise } from "./fault";
import { MAX_CORES, resetAgents } from "./agents";
import { resetEvents } from "./events";
import { resetDma } from "./dma";
import { placeRegions, resetRegions } from "./regions";
import { EVENT_LOG_BASE } from "./layout";
import { genericRegions } from "./chips/generic";
import { SIRACUSA_CORES, siracusaDma, siracusaL3Dma, siracusaNpu, siracusaRegions } from "./chips/siracusa";
import { S2_DEFAULT_PES, S2_MAX_PES, spinnaker2Regions } from "./chips/spinnaker2";
import { resetPes } from "./pes";
import { resetPeDma } from "./pe-dma";
import { resetMla } from "./mla";
import { resetNpu } from "./neureka";
import { resetBanks } from "./banks";
import { siracusaMemory } from "./chips/siracusa-memory";
import { resetL3Dma } from "./l3-dma";
import { gemminiRegions } from "./chips/gemmini";
import { tangramRegions } from "./chips/tangram";
import { enableGemmini, resetGemmini } from "./gemmini/rocc";
import { brainscales2Regions } from "./chips/brainscales2";
import { resetBss2 } from "./brainscales2/api";
import { placeSynram } from "./brainscales2/synram";

const PLATFORM_GENERIC: i32 = 0;
const PLATFORM_SIRACUSA: i32 = 1;
const PLATFORM_SPINNAKER2: i32 = 2;
const PLATFORM_GEMMINI: i32 = 3;
const PLATFORM_TANGRAM: i32 = 4;
const PLATFORM_BRAINSCALES2: i32 = 5;

/**
 * Selects the chip and resets clocks, the event log and the fault message. `cores`: cluster cores to model,
 * 0 for the chip's own count (Siracusa 8; fewer is a real configuration). Generic has no cluster: 0 or 1.
 * SpiNNaker2: `cores` is the number of PEs, 2..152 (0: 152), scheduler included.
 * Returns the cluster cores in use (0 on generic; SpiNNaker2: the worker PEs). Does not clear memory: the runtime
 * uses a fresh instance.
 */
export function configure(platform: i32, cores: i32): i32 {
  clearFault();
  if (__heap_base > EVENT_LOG_BASE) {
    msgBegin("configure: emulator static data runs into the event log");
    raise();
  }
  resetRegions();
  resetEvents();
  resetDma();
  resetPes();
  resetPeDma();
  resetMla();
  resetNpu();
  resetL3Dma();
  resetGemmini();
  resetBss2();
  let clusterCores = 0;
  let pes = false;
  if (platform == PLATFORM_GENERIC) {
    if (cores < 0 || cores > 1) badCores(platform, cores, 1);
    genericRegions();
    genericCosts(true);
  } else if (platform == PLATFORM_SIRACUSA) {
    if (cores < 0 || cores > SIRACUSA_CORES) badCores(platform, cores, SIRACUSA_CORES);
    clusterCores = cores == 0 ? SIRACUSA_CORES : cores;
    siracusaRegions();
    siracusaCosts();
    siracusaDma();
    siracusaNpu();
    siracusaMemory();
    siracusaL3Dma();
  } else if (platform == PLATFORM_SPINNAKER2) {
    if (cores < 0 || cores == 1 || cores > S2_MAX_PES) badCores(platform, cores, S2_MAX_PES);
    const n = cores == 0 ? S2_DEFAULT_PES : cores;
    clusterCores = n - 1;
    pes = true;
    spinnaker2Regions(n);
    spinnaker2Costs();
  } else if (platform == PLATFORM_GEMMINI) {
    // one host core and no cluster; the host is priced as the generic scalar RISC-V core (docs/gemmini.md)
    if (cores < 0 || cores > 1) badCores(platform, cores, 1);
    gemminiRegions();
    genericCosts(false);
  } else if (platform == PLATFORM_TANGRAM) {
    // the control core, priced as the generic scalar core; the engines run through tangram_run (tangram/engines.ts)
    if (cores < 0 || cores > 1) badCores(platform, cores, 1);
    tangramRegions();
    genericCosts(false);
  } else if (platform == PLATFORM_BRAINSCALES2) {
    // the analog arrays beside one digital core, priced as the generic scalar core (docs/brainscales2.md)
    if (cores < 0 || cores > 1) badCores(platform, cores, 1);
    brainscales2Regions();
    genericCosts(false);
  } else {
    msgBegin("configure: unknown platform id ");
    msgDec(platform);
    msgText(" (0 generic, 1 siracusa, 2 spinnaker2, 3 gemmini, 4 tangram, 5 brainscales2)");
    raise();
  }
  // MAX_CORES bounds the static clock arrays: a chip with more cores must raise it.
  assert(clusterCores <= MAX_CORES);
  placeRegions();
  if (platform == PLATFORM_GEMMINI) enableGemmini();
  if (platform == PLATFORM_BRAINSCALES2) placeSynram();
  resetAgents(clusterCores, pes);
  return clusterCores;
}

function badCores(platform: i32, cores: i32, most: i32): void {
  msgBegin("configure: platform ");
  msgDec(platform);
  msgText(" cannot model ");
  msgDec(cores);
  msgText(" cores (0 for the chip's default, at most ");
  msgDec(most);
  msgText(")");
  raise();
}

export { memory_pages, heap_base } from "./layout";
export {
  region_count, region_chip_base, region_linear_base, region_size, region_name,
} from "./regions";
export {
  fork, enter, barrier, join, compute, divide, cycles, core_count, agent_count, total_cycles, agent_cycles, agent_busy, units_of,
  set_cycle_limit,
} from "./agents";
export { check, tile_guard, tile_guard_end } from "./check";
export { mem_stream, mem_latency } from "./agents";
export { l1_stall_cycles, l2_stall_cycles, l2_access_cycles, l1_banks, setStartSkew as set_bank_skew } from "./banks";
export {
  layer_begin, layer_end, current_layer, events_ptr, events_capacity, events_count, events_first, events_total,
} from "./events";
export { cost_cycles, set_cost_64ths, fork_cycles, barrier_cycles, join_cycles } from "./cost";
export { set_layer_code_bytes, layer_code_bytes } from "./code-bytes";
export { fault_message, fault_message_length } from "./fault";
export {
  dma_alloc, dma_free, dma_copy, dma_wait, dma_finish, dma_channels, dma_max_bytes, dma_latency_cycles,
  dma_bytes_per_cycle, dma_queue_depth, dma_register_cycles,
} from "./dma";
export { irq_raise, irq_next, pe_wake, irq_key, irq_payload, pe_signal, pe_wait, pe_id, pe_count, pe_finish } from "./pes";
export { pe_dma, pe_dma_wait, pe_dma_finish } from "./pe-dma";
export { mla_start, mla_wait, mla_busy, mla_peak_macs } from "./mla";
export { npu_write, npu_read, npu_event_wait, npu_finish, npu_register_cycles } from "./neureka";
export { l3_copy, l3_setup_cycles, l3_transfer_cycles } from "./l3-dma";
export { gemmini_rocc, gemmini_fence, gemmini_finish, gemmini_busy_until } from "./gemmini/rocc";
export { tangram_run, tangram_last_cycles, tangram_dram_words, tangram_word_hops, tangram_compute_cycles, tangram_link_wait } from "./tangram/engines";
export { gemmini_spad_ptr, gemmini_acc_ptr } from "./gemmini/state";
export { bss2_chip, bss2_configure, bss2_run, bss2_stat, bss2_effective_weight } from "./brainscales2/api";
export {
  iss_reset, iss_max_harts, iss_alloc, iss_region_add, iss_code_window, iss_load_elf, iss_elf_entry, iss_set_pc,
  iss_pc, iss_set_reg, iss_reg, iss_loop_reg, iss_run, iss_exit_code, iss_stop_reason, iss_cycles, iss_instructions,
  iss_stalls, iss_fault_kind, iss_fault_hart, iss_fault_pc, iss_fault_insn, iss_fault_addr, iss_fault_size,
  iss_fault_region, iss_console_ptr, iss_console_length, iss_console_clear,
  iss_host_input, iss_host_output, iss_host_output_length, iss_cluster_config, iss_icache_config, iss_cluster_run, iss_cluster_stop_hart,
  iss_bank_conflicts, iss_icache_misses, iss_icache_line_cycles, iss_cluster_marks, iss_cluster_mark_count, iss_cluster_stack, iss_profile, iss_profile_flush, iss_profile_hart, iss_profile_window,
  iss_npu_config, iss_npu_finish, iss_l3_config, iss_l3_copy_cycles, iss_device_hart,
} from "./iss/api";
