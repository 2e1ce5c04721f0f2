// Siracusa memory map (HARDWARE.md, Siracusa table) and cluster size.

import { addRegion, markLastDmaOnly } from "../regions";
import { enableDma } from "../dma";
import { enableNpu } from "../neureka";
import { enableL3Dma } from "../l3-dma";
import { KiB, MiB } from "../layout";

/** 8 cluster worker cores (pulp-sdk archi/chips/siracusa/properties.h). */
export const SIRACUSA_CORES: i32 = 8;

export function siracusaRegions(): void {
  addRegion("L1", 0x1000_0000, 256 * KiB); // TCDM, 16 banks x 16 KiB
  addRegion("L2", 0x1C00_0000, 2 * MiB);
  // ASSUMPTION: L3 is off-chip HyperRAM behind a blocking DMA; it has no address in the cores' map, so we give it
  // the chip address 0x8000_0000 (free in the PULP map) and the 16 MiB size class of the Deeploy tutorial.
  addRegion("L3", 0x8000_0000, 16 * MiB);
  markLastDmaOnly(); // the cores reach it only through the HyperRAM DMA (l3-dma.ts)
  addRegion("NMS_MRAM", 0x1040_0000, 4 * MiB); // NPU weight memory, non-volatile
  addRegion("NMS_SRAM", 0x1080_0000, 4 * MiB);
}

/**
 * Cluster DMA (mchan v7), HARDWARE.md "cluster DMA timing": 8 bytes/cycle each way into and out of L1 (two 32-bit L1
 * ports per direction), ~14 cycles of interconnect latency before data, 2 queued commands per core. The L1 side is
 * region 0; the external side L2 (1). L3 is not on its bus: it sits behind the separate HyperRAM DMA (HARDWARE.md
 * "L3"; siracusaL3Dma below).
 */
export const DMA_LATENCY_CYCLES: i64 = 14;
export const DMA_BYTES_PER_CYCLE: i32 = 8;
export const DMA_QUEUE_PER_CORE: i32 = 2;
export function siracusaDma(): void {
  enableDma(0, 1 << 1, DMA_LATENCY_CYCLES, DMA_BYTES_PER_CYCLE, DMA_QUEUE_PER_CORE);
}

// HyperRAM DMA (l3-dma.ts; docs/timing.md "L3 (HyperRAM) DMA"). HARDWARE.md gives only "a separate, blocking DMA";
// the figures below are the HyperRAM device's, from the HyperBus/HyperRAM datasheet class the Deeploy tutorial's
// 16 MiB part belongs to (8-bit DDR bus at 166 MHz; 6-clock initial latency, doubled when the device asks for it
// during refresh; 3 clocks of command/address; CS# low at most 4 us, which caps a burst). At the 360 MHz cluster
// clock (HARDWARE.md "clock"):
/** Link rate: 2 x 166 MB/s = 332 bytes every 360 cycles. */
export const L3_BYTES_NUM: i64 = 332;
export const L3_BYTES_DEN: i64 = 360;
/** ASSUMPTION: worst-case initial latency 2 x 6 clocks + 3 command clocks = 15 HyperBus clocks = 90 ns = 33 cycles. */
export const L3_BURST_LATENCY: i64 = 33;
/** ASSUMPTION: bursts of 1 KiB: 4 us of CS# at 332 MB/s is 1328 bytes; the controller splits on 1 KiB boundaries. */
export const L3_BURST_BYTES: i32 = 1024;
/** ASSUMPTION: the caller programs the uDMA channel (address, size, config: a few register writes across the SoC
 * bus) and takes the end-of-transfer event: 50 cycles. */
export const L3_SETUP: i64 = 50;

export function siracusaL3Dma(): void {
  enableL3Dma(1, 2, L3_SETUP, L3_BURST_LATENCY, L3_BURST_BYTES, L3_BYTES_NUM, L3_BYTES_DEN);
}

// N-EUREKA NPU (neureka.ts, neureka-job.ts; docs/neureka.md "Timing", docs/timing.md "N-EUREKA"). Cycle counts are
// HARDWARE.md "N-EUREKA NPU", row "Throughput" (GVSoC model, derived), unless marked ASSUMPTION.
/** Load phase of a (Ho, Wo, Ko, Ki) subtile: 6 cycles of setup, then one streamer access per input pixel. */
export const NPU_LOAD_SETUP: i64 = 6;
/** Input pixels of a subtile: 8 x 8 for 3x3 (6 x 6 outputs + halo), 6 x 6 for 1x1 (HARDWARE.md "Geometry"). */
export const NPU_PIXELS_3X3: i64 = 64;
export const NPU_PIXELS_1X1: i64 = 36;
/** Matrix-vector phase per weight bit: 3x3 dense 32 (HARDWARE.md: "32*bits cycles per input-channel subtile"). */
export const NPU_MV_3X3: i64 = 32;
/** ASSUMPTION: 1x1 4 per bit, fitted to 1152 MAC/cycle at 8 bits: 36 px x 32 x 32 MACs / (4 x 8) cycles = 1152. */
export const NPU_MV_1X1: i64 = 4;
/** ASSUMPTION: depthwise 28 per bit, fitted to ~40 MAC/cycle at 8 bits: 36 px x 28 ch x 9 / (28 x 8) = 40.5. */
export const NPU_MV_DW: i64 = 28;
/** Normalisation/quantisation per (Ho, Wo, Ko) subtile: 9 + 8 (8-bit scale) or + 32 (32-bit scale). */
export const NPU_NORM_BASE: i64 = 9;
export const NPU_NORM_SCALE8: i64 = 8;
export const NPU_NORM_SCALE32: i64 = 32;
/** A core's register access: one store or load on its demux port (HARDWARE.md "core timing": load/store 1). */
export const NPU_REG_CYCLES: i64 = 1;
/**
 * L1 contention (npu-contention.ts): a streamer access moves one 32-byte word (HARDWARE.md "Weight layout": the
 * engine reads 32-byte words) of the TCDM's 16 banks x 4 bytes = 64 bytes per cycle (HARDWARE.md "L1 (TCDM)").
 */
export const NPU_STREAMER_BYTES: i64 = 32;
export const TCDM_BYTES_PER_CYCLE: i64 = 64;

/** N-EUREKA reaches L1 (region 0) and the neural memory: NMS_MRAM (3) at WMEM offset 0, NMS_SRAM (4) after it. */
export function siracusaNpu(): void {
  enableNpu(0, 3, 4);
}
