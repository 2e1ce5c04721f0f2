// The SpiNNaker2 device calls (emulator/assembly/pes.ts, pe-dma.ts, mla.ts; contract in docs/firmware-abi.md) and
// the helpers the scheduler and worker loops share. The C twin is runtime/c/spinnaker2/s2_hal.h.

import { cycles } from "./hal/chip";
import { region_base } from "./hal/memory";
import * as chip from "./hal/chip";
import { TIME_SLOT } from "./layout";

@external("chip", "irq_raise")
export declare function irq_raise(pe: i32, key: i32, payload: u32): void;
@external("chip", "irq_next")
declare function irq_next(): i32;
@external("chip", "pe_wake")
declare function pe_wake(pe: i32): void;
@external("chip", "irq_key")
export declare function irq_key(): i32;
@external("chip", "irq_payload")
export declare function irq_payload(): u32;
@external("chip", "pe_signal")
export declare function pe_signal(to: i32): void;
@external("chip", "pe_wait")
declare function pe_wait(n: i32): void;
@external("chip", "pe_id")
export declare function pe_id(): i32;
@external("chip", "pe_dma")
declare function pe_dma(local: usize, dram: usize, bytes: i32, toLocal: i32, rowLength: i32, rowStride: i32): i32;
@external("chip", "pe_dma_wait")
export declare function dma_wait(ticket: i32): void;
@external("chip", "mla_start")
export declare function mla_start(
  a: usize, b: usize, out: usize, m: i32, n: i32, k: i32, aRow: i32, aK: i32, bK: i32, bCol: i32, outRow: i32, flags: i32,
): void;
@external("chip", "mla_wait")
export declare function mla_wait(): void;

/** Region 0 is the DRAM, region 1 + p the SRAM of PE p (docs/firmware-abi.md). */
const DRAM_LINEAR: usize = region_base(0);
const DRAM_CHIP: u32 = chip.region_chip_base(0);

/** The chip address the image uses for DRAM, where the global configuration starts. */
export function dram_base(): u32 {
  return DRAM_CHIP;
}

/** The running PE's SRAM (on the board: its local address 0). */
export function sram(): usize {
  return region_base(1 + pe_id());
}

/** Copies `bytes` from DRAM chip address `dram` into the running PE's SRAM at `local`; returns the ticket. */
export function dma_in(local: usize, dram: u32, bytes: u32, rowLength: u32 = 0, rowStride: u32 = 0): i32 {
  return pe_dma(local, DRAM_LINEAR + <usize>(dram - DRAM_CHIP), <i32>bytes, 1, <i32>rowLength, <i32>rowStride);
}

/** Copies `bytes` from the running PE's SRAM at `local` to DRAM chip address `dram`; returns the ticket. */
export function dma_out(local: usize, dram: u32, bytes: u32, rowLength: u32 = 0, rowStride: u32 = 0): i32 {
  return pe_dma(local, DRAM_LINEAR + <usize>(dram - DRAM_CHIP), <i32>bytes, 0, <i32>rowLength, <i32>rowStride);
}

/** The PE's 32-bit cycle counter into a stamp slot in SRAM. */
export function stamp(slot: usize, field: u32): void {
  store<u32>(slot + <usize>field, <u32>cycles());
}

/** Writes a 16-byte stamp slot to DRAM and waits for it. */
export function write_stamps(slot: usize, dram: u32): void {
  dma_wait(dma_out(slot, dram, TIME_SLOT));
}

/**
 * The scheduler sleeps until `n` workers have signalled completion. The emulator runs one PE at a time, so this is
 * where the interrupted workers' handlers run, each on its own clock (emulator/assembly/pes.ts); on the board the
 * workers run in parallel and this is a WFI loop counting completion packets.
 */
export function wait_workers(n: i32, handler: () => void): void {
  for (let pe = irq_next(); pe >= 0; pe = irq_next()) {
    pe_wake(pe);
    handler();
  }
  pe_wait(n);
}
