// SpiNNaker2 (HARDWARE.md, "SpiNNaker2"): one chip of PEs (ARM Cortex-M4F, 128 KiB SRAM each) over a DRAM. Every
// timing parameter of the chip's model is set here, with its source or marked as an assumption; docs/timing.md
// ("SpiNNaker2") explains how they combine.

import { addRegion, indexedName } from "../regions";
import { KiB, MiB } from "../layout";

/** 152 PEs per chip, 4 per QPE (HARDWARE.md "processing elements"). PE 0 is the scheduler, the rest are workers. */
export const S2_MAX_PES: i32 = 152;
/** What configure(2, 0) models: the whole chip. */
export const S2_DEFAULT_PES: i32 = 152;

/** 128 KiB of SRAM per PE, code and data (HARDWARE.md "PE memory"). */
export const S2_SRAM_BYTES: u32 = 128 * KiB;
/**
 * ASSUMPTION: the DRAM's chip address. The chip has 1 to 2 GiB of LPDDR4 (HARDWARE.md "DRAM"); the emulator models
 * its first 64 MiB, which holds the image of every model firmgen runs on it (the image must fit: the generator checks).
 */
export const S2_DRAM_BASE: u32 = 0x8000_0000;
export const S2_DRAM_BYTES: u32 = 64 * MiB;
/**
 * ASSUMPTION: each PE's SRAM has a distinct global chip address, PE p at 0x1000_0000 + p x 128 KiB, so that fault
 * messages and the manifest can name any PE's bytes. A PE's own code reaches its SRAM at local address 0; only the
 * emulator's region table and firmware.json use these global addresses.
 */
export const S2_SRAM_GLOBAL_BASE: u32 = 0x1000_0000;

/** Region 0 is the DRAM, region 1 + p the SRAM of PE p (docs/firmware-abi.md). */
export function spinnaker2Regions(pes: i32): void {
  addRegion("DRAM", S2_DRAM_BASE, S2_DRAM_BYTES);
  for (let p = 0; p < pes; p++) {
    addRegion(indexedName("PE", p), S2_SRAM_GLOBAL_BASE + <u32>p * S2_SRAM_BYTES, S2_SRAM_BYTES, S2_SRAM_BYTES);
  }
}

// --- interrupts and the network-on-chip (pes.ts) ---

/**
 * ASSUMPTION (HARDWARE.md "NoC": published figures are scarce): a NoC packet (key + 32-bit payload) reaches another
 * PE 32 cycles after it is sent: a few router hops between QPEs at a few cycles each, plus the receiving PE's
 * communication controller.
 */
export const S2_NOC_LATENCY: i64 = 32;
/** The sender writes key, payload and the send command: 3 stores of 1 cycle (ARM Cortex-M4 TRM, STR 1 cycle). */
export const S2_NOC_SEND: i64 = 3;
/** Exception entry of the Cortex-M4: 12 cycles from the interrupt to its handler's first instruction (ARM TRM). */
export const S2_IRQ_ENTRY: i64 = 12;

// --- per-PE DMA to DRAM (pe-dma.ts) ---

/**
 * DRAM bandwidth: 6.4 GB/s sustained (HARDWARE.md "DRAM") at the 300 MHz PE clock = 21.33 bytes/cycle, i.e. 3/64
 * cycle per byte, exact in Q16: 3072 / 65536.
 */
export const S2_DRAM_Q16_PER_BYTE: i64 = 3072;
/**
 * ASSUMPTION: one PE's DMA moves at most 8 bytes/cycle (a 64-bit port into its SRAM), 1/8 cycle per byte = 8192 in
 * Q16. Where the DRAM is shared (pe-dma.ts), each of the n PEs active in a round gets 1/n of its bandwidth: a
 * transfer costs max(1/8, n x 3/64) cycles per byte, so from three active PEs on the DRAM is the limit.
 */
export const S2_DMA_Q16_PER_BYTE: i64 = 8192;
/**
 * ASSUMPTION: 64 cycles from issue to the first data: NoC hops to the DRAM controller and back (about 2 x 20 cycles)
 * and an LPDDR4 row access (~80 ns class, ~24 cycles at 300 MHz).
 */
export const S2_DMA_LATENCY: i64 = 64;
/** The core writes a descriptor of 4 words (local, remote, length, stride/command): 4 x STR (ARM TRM, 1 cycle). */
export const S2_DMA_ISSUE: i64 = 4;

// --- the MAC array (mla.ts) ---

/**
 * HARDWARE.md "MLA": 16 x 4 = 64 int8 MACs per cycle, output-stationary: a block of 4 output rows x 16 output
 * columns accumulates one k per cycle (4 activations and 16 weights broadcast into the array).
 */
export const S2_MLA_ROWS: i32 = 4;
export const S2_MLA_COLS: i32 = 16;
/**
 * ASSUMPTION: draining one block's 64 int32 results into SRAM takes 16 cycles (a 128-bit SRAM port, 4 results per
 * cycle) and does not overlap the next block's accumulation.
 */
export const S2_MLA_DRAIN: i64 = 16;
/** ASSUMPTION: the core writes 10 job registers (3 addresses, 3 sizes, 4 strides/modes) to start a job, 1 cycle each. */
export const S2_MLA_SETUP: i64 = 10;
