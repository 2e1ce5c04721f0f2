// N-EUREKA, Siracusa's NPU, shaped like the pulp-nnx driver (neureka/hal, hwpe.c); the C twin is hal_neureka_* in
// runtime/c/include/firmgen_neureka.h. Contract: docs/neureka.md (registers, job semantics, events, timing).
//
//   const id = neureka_acquire();              // waits for a free queue entry; the job id
//   neureka_set(NEUREKA_REG_WEIGHTS_PTR, w);   // ... every job register (chip addresses, not linear ones)
//   neureka_trigger();                         // the job runs when the engine is free; returns at once
//   ... other work ...
//   neureka_wait(id);                          // sleeps until it is finished: now its outputs have landed
//
// Pointers in the job registers are chip addresses (the NPU's view), except the weights with the WMEM source: the
// offset inside the neural memory (NMS_MRAM at 0, NMS_SRAM at 0x40_0000). Outputs must not be read, nor inputs and
// weights of a queued or running job overwritten, before the job is observed finished; every job must be waited
// for before the firmware ends.

import * as chip from "./chip";

// Register file (byte offsets from 0x1020_1000).
export const NEUREKA_TRIGGER: i32 = 0x00;
export const NEUREKA_ACQUIRE: i32 = 0x04;
export const NEUREKA_FINISHED: i32 = 0x08;
export const NEUREKA_STATUS: i32 = 0x0c;
export const NEUREKA_RUNNING_JOB: i32 = 0x10;
export const NEUREKA_SOFT_CLEAR: i32 = 0x14;
/** Job register i is at NEUREKA_JOB_BASE + 4 i (neureka_set takes i). */
export const NEUREKA_JOB_BASE: i32 = 0x20;
/** ACQUIRE returns at least this when both queue entries are taken. */
export const NEUREKA_ACQUIRE_BUSY: u32 = 256;

// Job registers (pulp-nnx NEUREKA_REG_*).
export const NEUREKA_REG_WEIGHTS_PTR: i32 = 0;
export const NEUREKA_REG_INFEAT_PTR: i32 = 1;
export const NEUREKA_REG_OUTFEAT_PTR: i32 = 2;
export const NEUREKA_REG_SCALE_PTR: i32 = 3;
export const NEUREKA_REG_SCALE_SHIFT_PTR: i32 = 4;
export const NEUREKA_REG_SCALE_BIAS_PTR: i32 = 5;
export const NEUREKA_REG_INFEAT_D0: i32 = 6;
export const NEUREKA_REG_INFEAT_D1: i32 = 7;
export const NEUREKA_REG_INFEAT_D2: i32 = 8;
export const NEUREKA_REG_OUTFEAT_D0: i32 = 9;
export const NEUREKA_REG_OUTFEAT_D1: i32 = 10;
export const NEUREKA_REG_OUTFEAT_D2: i32 = 11;
export const NEUREKA_REG_WEIGHTS_D0: i32 = 12;
export const NEUREKA_REG_WEIGHTS_D1: i32 = 13;
export const NEUREKA_REG_WEIGHTS_D2: i32 = 14;
export const NEUREKA_REG_REM_KO_KI: i32 = 15;
export const NEUREKA_REG_REM_HO_WO: i32 = 16;
export const NEUREKA_REG_REM_HI_WI: i32 = 17;
export const NEUREKA_REG_NB_KO_KI: i32 = 18;
export const NEUREKA_REG_NB_HO_WO: i32 = 19;
export const NEUREKA_REG_PADDING: i32 = 20;
export const NEUREKA_REG_WEIGHT_OFFSET_FACTOR: i32 = 21;
export const NEUREKA_REG_FILTER_MASKING: i32 = 22;
export const NEUREKA_REG_CONF0: i32 = 23;
export const NEUREKA_JOB_REGS: i32 = 24;

// CONF0 fields (pulp-nnx NEUREKA_FLAG_* and shifts).
/** Bits 0..2: weight bits - 1. */
export const NEUREKA_CONF0_WEIGHT_BITS_SHIFT: i32 = 0;
export const NEUREKA_CONF0_NORM_QUANT: u32 = 1 << 4;
export const NEUREKA_CONF0_MODE_SHIFT: i32 = 5;
export const NEUREKA_MODE_3X3: u32 = 0 << 5;
export const NEUREKA_MODE_3X3_DW: u32 = 1 << 5;
export const NEUREKA_MODE_1X1: u32 = 2 << 5;
export const NEUREKA_CONF0_WEIGHT_SOURCE_WMEM: u32 = 1 << 9;
export const NEUREKA_CONF0_ACTIVATION_PREFETCH: u32 = 1 << 10;
export const NEUREKA_NORM_MODE_8BIT: u32 = 0 << 12;
export const NEUREKA_NORM_MODE_32BIT: u32 = 2 << 12;
export const NEUREKA_CONF0_STREAMIN: u32 = 1 << 14;
/** Bits 16..20: the output shift (when no per-channel shift). */
export const NEUREKA_CONF0_SHIFT_SHIFT: i32 = 16;
export const NEUREKA_QUANT_MODE_8BIT: u32 = 0 << 21;
export const NEUREKA_QUANT_MODE_32BIT: u32 = 2 << 21;
/** Bit 23: 0 ReLU (uint8 output), 1 identity (int8 output). */
export const NEUREKA_CONF0_IDENTITY: u32 = 1 << 23;
export const NEUREKA_CONF0_PER_CHANNEL_SHIFT: u32 = 1 << 24;
export const NEUREKA_CONF0_BIAS: u32 = 1 << 25;
export const NEUREKA_CONF0_SIGNED_INPUT: u32 = 1 << 26;

/** CONF0 bits for `bits`-bit weights (2..8). */
export function neureka_weight_bits(bits: i32): u32 {
  return <u32>(bits - 1) & 7;
}

/** CONF0 bits for an output shift of `shift` (0..31). */
export function neureka_shift(shift: i32): u32 {
  return (<u32>shift & 31) << 16;
}

/** PADDING: each side 0..2, `value` the byte padding positions read. */
export function neureka_padding(top: i32, right: i32, bottom: i32, left: i32, value: i32): u32 {
  return (<u32>top << 28) | (<u32>right << 24) | (<u32>bottom << 20) | (<u32>left << 16) | (<u32>value & 0xff);
}

/** Reserves a queue entry and returns its job id (0..255), sleeping on the NPU event while both are taken. */
export function neureka_acquire(): i32 {
  let id = chip.npu_read(NEUREKA_ACQUIRE);
  while (id >= NEUREKA_ACQUIRE_BUSY) {
    chip.npu_event_wait();
    id = chip.npu_read(NEUREKA_ACQUIRE);
  }
  return <i32>id;
}

/** Writes job register `reg` (0..23). */
export function neureka_set(reg: i32, value: u32): void {
  chip.npu_write(NEUREKA_JOB_BASE + (reg << 2), value);
}

/** Commits the job registers as the job neureka_acquire reserved. */
export function neureka_trigger(): void {
  chip.npu_write(NEUREKA_TRIGGER, 0);
}

/**
 * Job `id` has finished unless RUNNING_JOB == id - 1, or RUNNING_JOB == id and STATUS != 0 (pulp-nnx
 * neureka_nnx_resolve_check); ids are 8-bit and wrap.
 */
export function neureka_done(id: i32): bool {
  const running = <i32>chip.npu_read(NEUREKA_RUNNING_JOB) & 255;
  if (running == ((id - 1) & 255)) return false;
  return !(running == (id & 255) && chip.npu_read(NEUREKA_STATUS) != 0);
}

/** Sleeps until job `id` has finished (its outputs have then landed). */
export function neureka_wait(id: i32): void {
  while (!neureka_done(id)) chip.npu_event_wait();
}

/** Sleeps until the queue is empty: every triggered job has finished. */
export function neureka_wait_all(): void {
  while (chip.npu_read(NEUREKA_STATUS) != 0) chip.npu_event_wait();
}
