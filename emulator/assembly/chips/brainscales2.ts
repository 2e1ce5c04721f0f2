// BrainScaleS-2 in its analog inference mode (HARDWARE.md "BrainScaleS-2"; docs/brainscales2.md): two synapse arrays
// driven through the FPGA, and a digital core (the embedded processor, PPU, or the host) for everything else. Every
// figure of the chip's model is set here with its source or marked ASSUMPTION. The geometry and noise figures are
// the generator's too (generator/platforms/brainscales2/analog/constants.ts): test/emulator/bss2-model.test.ts compares
// the effective weights and every output with the generator's reference, so a figure that differs fails there.

import { addRegion } from "../regions";
import { MiB } from "../layout";

// --- geometry (hxtorch constants.h; HARDWARE.md) ---

export const BSS2_ARRAYS: i32 = 2;
/** 256 synapse rows per array, a signed weight on a row pair: 128 signed inputs (hardware_matrix_height). */
export const BSS2_SIGNED_ROWS: i32 = 128;
/** 256 columns (neurons) per array (hardware_matrix_width); 512 neurons on the chip. */
export const BSS2_COLUMNS: i32 = 256;
export const BSS2_INPUT_MAX: i32 = 31;
export const BSS2_WEIGHT_MAX: i32 = 63;

// --- noise (generator/platforms/brainscales2/analog/constants.ts has the reasons) ---

/** ASSUMPTION: fixed-pattern spread: synapse gain 1 + 0.05 z, neuron gain 1 + 0.05 z, neuron offset 1.0 z LSB. */
export const BSS2_SYNAPSE_GAIN_SPREAD: f64 = 0.05;
export const BSS2_NEURON_GAIN_SPREAD: f64 = 0.05;
export const BSS2_NEURON_OFFSET_STD: f64 = 1.0;
export const BSS2_SEED_SALT: u32 = 0x9e3779b9;

// --- memory ---

/**
 * The digital side's memory: where the firmware keeps activations and weights before they go over the link.
 * ASSUMPTION: 64 MiB at 0x8000_0000, the size class of the other chips' DRAM models (the host's memory and the FPGA's
 * DRAM are not told apart).
 */
export const BSS2_DRAM_BASE: u32 = 0x8000_0000;
export const BSS2_DRAM_BYTES: u32 = 64 * MiB;

export function brainscales2Regions(): void {
  addRegion("DRAM", BSS2_DRAM_BASE, BSS2_DRAM_BYTES);
}

// --- timing: the emulator counts cycles of the digital core ---

/**
 * The digital core's clock: 250 MHz, twice the FPGA's 125 MHz (haldls Timer::Value::fpga_clock_cycles_per_us = 125;
 * the "250MHz vs. 125MHz" conversion of FPGA timer values to PPU cycles in pynn-brainscales).
 */
export const BSS2_CORE_HZ: i64 = 250_000_000;
/** Core cycles per FPGA cycle (250 / 125 MHz). */
export const BSS2_FPGA_CYCLE: i64 = 2;
/**
 * An analog run sends every input row `num_sends` times, `wait_between_events` FPGA cycles apart (grenade
 * MACSpikeTrainGenerator: num_sends, wait_between_events in FPGA cycles; hxtorch default 5). ASSUMPTION: every row of
 * the block is sent, zero inputs too.
 */
export const BSS2_DEFAULT_WAIT: i32 = 5;
/**
 * ASSUMPTION: 250 FPGA cycles (2 us) per run besides the events: resetting the neurons before and the CADC reading
 * the 256 columns after (not published as a figure).
 */
export const BSS2_RUN_FIXED_FPGA: i64 = 250;
/**
 * The host-FPGA link: Gigabit Ethernet (the single-chip BrainScaleS-2 setups are "connected to a compute cluster via
 * Gigabit-Ethernet", Thommes et al., arXiv 2202.12122): 125 MB/s, 2 core cycles per byte at 250 MHz.
 * ASSUMPTION: one byte per input activation, per output and per synapse written; no protocol overhead; transfers do
 * not overlap the analog run.
 */
export const BSS2_LINK_CYCLES_PER_BYTE: i64 = 2;
