// Siracusa's HyperRAM DMA as a device of the RV32 core (`gen run --on iss`): the blocking copy between L2 and L3 of
// the AS path (l3-dma.ts; HARDWARE.md "L3": "reached by a separate, blocking DMA"), with its timing
// (chips/siracusa.ts L3_*). L3 is the rv32 image's .fg_l3 section (the fg_l3 array, firmgen_l3.h), mapped by the
// runtime as a region the cores cannot load from or store to, as on the chip. The register layout and address are
// firmgen's own (HARDWARE.md has no register map for the HyperRAM's uDMA channel); the ISS build's HAL
// (runtime/c/siracusa/l3_iss.c) drives it:
//   +0x00 W  L2     chip address of the L2 side
//   +0x04 W  L3     byte offset in L3 (the generated code's L3 offsets)
//   +0x08 W  BYTES  the length
//   +0x0c W  START  0: L3 to L2, 1: L2 to L3. The copy is done when the store retires: the core sleeps for the
//                   setup and the transfer (counted as DMA sleep, STALL_DMA); the data is in place at once.
// ASSUMPTION: the AS path's setup (L3_SETUP, the uDMA channel programming) is charged whole, on top of the HAL's four
// stores here (4 cycles more per copy than the AS path's figure).
// Faults trap with the AS path's texts (l3_copy: ...); the runtime names the hart (iss_device_hart).

import { deviceSetDmaWait, deviceSetStatus, DEV_BAD_OFFSET } from "./mmio";
import { regionBase, regionLinear, regionSize } from "./memory";
import { msgLayer, outerLayer, recordL3 } from "../events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "../fault";
import { DETAIL_TO_L3, l3CopyCycles } from "../l3-dma";
import { L3_BURST_BYTES, L3_BURST_LATENCY, L3_BYTES_DEN, L3_BYTES_NUM, L3_SETUP } from "../chips/siracusa";

export const L3DMA_BASE: u32 = 0x1a10_2000;
export const L3DMA_SIZE: u32 = 0x100;
const L2_ADDR: u32 = 0x00;
const L3_ADDR: u32 = 0x04;
const BYTES: u32 = 0x08;
const START: u32 = 0x0c;
/** The AS path's limit (l3-dma.ts: the event detail keeps 24 bits of length). */
const MAX_BYTES: i64 = (1 << 24) - 1;

let enabled = false;
let l2Region: i32 = -1;
let l3Region: i32 = -1;
let l2Addr: u32 = 0;
let l3Off: u32 = 0;
let bytes: u32 = 0;

/** Wires the DMA: `l2` and `l3` are the core's regions of L2 and of the fg_l3 array. */
export function iss_l3_config(l2: i32, l3: i32): void {
  enabled = true;
  l2Region = l2;
  l3Region = l3;
  l2Addr = 0;
  l3Off = 0;
  bytes = 0;
}

export function resetIssL3(): void {
  enabled = false;
}

/** Cycles the core sleeps for a copy of `n` bytes: the AS path's setup and transfer (l3-dma.ts). */
export function iss_l3_copy_cycles(n: i32): i32 {
  return <i32>(L3_SETUP + l3CopyCycles(n, L3_BURST_LATENCY, L3_BURST_BYTES, L3_BYTES_NUM, L3_BYTES_DEN));
}

function msgCopy(n: i64, toL3: bool): void {
  msgBegin("l3_copy: ");
  msgDec(n);
  msgText(toL3 ? " bytes L2 to L3: " : " bytes L3 to L2: ");
}

function fail(why: string, n: i64, toL3: bool): void {
  msgCopy(n, toL3);
  msgText(why);
  msgLayer();
  raise();
}

/** Linear address of [start, start + n) inside region `r`, or a fault. */
function side(name: string, r: i32, start: i64, n: i64, toL3: bool): usize {
  const base = <i64>regionBase(r);
  if (r >= 0 && start >= base && start + n <= base + <i64>regionSize(r)) {
    return regionLinear(r) + <usize>(start - base);
  }
  msgCopy(n, toL3);
  msgText("the ");
  msgText(name);
  msgText(" side must lie inside ");
  msgText(name);
  msgText(", got ");
  msgHex(<u32>start);
  msgLayer();
  raise();
  return 0;
}

export function l3DevRead(hart: i32, offset: u32, size: i32, now: i64): i32 {
  deviceSetStatus(DEV_BAD_OFFSET); // every register is write-only
  return 0;
}

export function l3DevWrite(hart: i32, offset: u32, size: i32, value: i32, now: i64): void {
  if (size != 4) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  if (offset == L2_ADDR) { l2Addr = <u32>value; return; }
  if (offset == L3_ADDR) { l3Off = <u32>value; return; }
  if (offset == BYTES) { bytes = <u32>value; return; }
  if (offset != START || (value & ~1) != 0) { deviceSetStatus(DEV_BAD_OFFSET); return; }
  const toL3 = value == 1;
  const n = <i64>bytes;
  if (!enabled) fail("this chip has no L3 DMA", n, toL3);
  if (n <= 0 || n > MAX_BYTES) fail("the length must be 1 .. 16 MiB - 1 bytes", n, toL3);
  const l2 = side("L2", l2Region, <i64>l2Addr, n, toL3);
  const l3 = side("L3", l3Region, <i64>regionBase(l3Region) + <i64>l3Off, n, toL3);
  if (toL3) memory.copy(l3, l2, <usize>n);
  else memory.copy(l2, l3, <usize>n);
  const cycles = <i64>iss_l3_copy_cycles(<i32>n);
  deviceSetDmaWait(cycles);
  // The trace's record (events.ts kind l3, l3-dma.ts's detail), on the caller's clock as it sleeps through the copy.
  recordL3(hart, outerLayer(), <i32>n | (toL3 ? DETAIL_TO_L3 : 0), now, now + cycles);
}
