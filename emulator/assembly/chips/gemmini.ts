// Gemmini, default int8 configuration (HARDWARE.md "Gemmini"): a 16x16 systolic array beside a RISC-V host core,
// driven by RoCC commands (gemmini/rocc.ts). Every figure of the chip's model is set here, with its source or marked
// as an ASSUMPTION; docs/gemmini.md explains how they combine.

import { addRegion } from "../regions";
import { MiB } from "../layout";

// --- geometry (HARDWARE.md "Gemmini"; gemmini_params.h of the default configuration) ---

/** The array is DIM x DIM; a scratchpad row holds DIM int8, an accumulator row DIM int32. */
export const DIM: i32 = 16;
/** Scratchpad: 4 banks x 4096 rows x 16 bytes = 256 KiB, addressed as one run of rows. */
export const SPAD_ROWS: i32 = 4 * 4096;
/** Accumulator: 1024 rows x 16 int32 = 64 KiB. */
export const ACC_ROWS: i32 = 1024;
/**
 * Most columns one mvin/mvout moves: a DMA row request carries at most 64 bytes (gemmini_params.h MAX_BYTES), i.e.
 * 4 blocks of 16 int8 (MAX_BLOCK_LEN) or 1 block of 16 int32 (MAX_BLOCK_LEN_ACC).
 */
export const MAX_ROW_BYTES: i32 = 64;

// --- main memory ---

/**
 * The host's DRAM at 0x8000_0000 (the rocket-chip / Chipyard memory map). ASSUMPTION: the emulator models its first
 * 64 MiB, the same size class as SpiNNaker2's DRAM model: enough for the image of every model firmgen targets at it.
 */
export const GEMMINI_DRAM_BASE: u32 = 0x8000_0000;
export const GEMMINI_DRAM_BYTES: u32 = 64 * MiB;

/** Region 0 is the DRAM. The scratchpad and accumulator are private to the accelerator: not in the region table. */
export function gemminiRegions(): void {
  addRegion("DRAM", GEMMINI_DRAM_BASE, GEMMINI_DRAM_BYTES);
}

// --- DMA (HARDWARE.md "DMA"; Configs.scala defaultConfig: dma_buswidth 128, dma_maxbytes 64, max_in_flight 16) ---

/** 128-bit TileLink data path: one 16-byte beat per cycle. */
export const DMA_BEAT_BYTES: i32 = 16;
/** Requests are aligned pieces of at most 64 bytes. */
export const DMA_REQUEST_BYTES: i32 = 64;
/** Outstanding requests per DMA engine (the reader and the writer each have their own transaction tracker). */
export const DMA_IN_FLIGHT: i32 = 16;
/**
 * ASSUMPTION (no public figure for the default SoC): 80 cycles from a read request leaving the DMA to its first data
 * beat: the system bus to the L2, a miss to the DRAM controller and back, of the order of a Rocket core's L2-miss
 * latency in Chipyard simulations with a DRAM model (streamed operands are not expected to hit in the L2). With 16
 * requests in flight of 4 beats each, 64 x 16 bytes / 84 cycles = 12.2 bytes/cycle: the latency, not the 16-byte bus,
 * bounds a long transfer of 64-byte rows; 16-byte rows get 16 x 16 / 81 = 3.2 bytes/cycle.
 */
export const DMA_READ_LATENCY: i64 = 80;
/**
 * ASSUMPTION: 30 cycles from a write's last beat to its acknowledgement: the L2 accepts the write and acknowledges
 * it (its write-back to DRAM is off the DMA's path), of the order of an L2 hit.
 */
export const DMA_WRITE_LATENCY: i64 = 30;
/** ASSUMPTION: the DMA engine issues at most one request per cycle (one TileLink A-channel message per cycle). */
export const DMA_ISSUE_INTERVAL: i64 = 1;

// --- the array (gemmini README "Systolic Array and Transposer") ---

/** A matmul streams DIM rows of A, one per cycle, whatever the rows/cols fields (MeshWithDelays works on DIMxDIM). */
export const ARRAY_STREAM: i64 = 16;
/**
 * Fill and drain around a block: a row of A crosses the 16 columns and its results the 16 rows before the last
 * result row reaches the accumulator, 2 x DIM cycles (ASSUMPTION: the mesh's pipeline registers and the accumulator's
 * read-modify-write add nothing beyond that).
 */
export const ARRAY_FILL_DRAIN: i64 = 32;
/** Loading new weights (WS) or a preloaded D (OS) shifts DIM rows into the PEs, overlapped with the previous block. */
export const ARRAY_PRELOAD: i64 = 16;

// --- the store path ---

/** ASSUMPTION: an accumulator read passes the scaling and activation pipeline in 4 cycles before the DMA takes it. */
export const STORE_READ_LATENCY: i64 = 4;

// --- command path (Configs.scala defaultConfig reservation_station_entries_{ld,ex,st}) ---

export const RS_LOAD: i32 = 8;
export const RS_EXECUTE: i32 = 16;
export const RS_STORE: i32 = 4;
/**
 * ASSUMPTION: the host core spends 6 cycles per RoCC command: building rs1 and rs2 from the macro's fields (the
 * gemmini.h macros are 3 to 4 shifts and ors each, most folded to constants by the compiler: 4 cycles on an in-order
 * core), the custom instruction itself (1) and the RoCC command handshake (1).
 */
export const HOST_ISSUE: i64 = 6;
/** ASSUMPTION: the loop unroller (loop_ws) emits one primitive command per cycle into the reservation station. */
export const UNROLLER_ISSUE: i64 = 1;
