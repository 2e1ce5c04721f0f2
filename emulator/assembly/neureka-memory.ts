// Where N-EUREKA's pointer registers land: the memory seam of neureka-job.ts. The AS path maps chip addresses through
// its region table (regions.ts: the chip's memories at their chip addresses); the RV32 core's device (iss/npu.ts)
// through the core's region table (iss/memory.ts: the rv32 image's memories at their link addresses). Both give a
// region index, its base and size in the address space the registers use, and its bytes in linear memory.

import { region_chip_base, region_count, region_linear_base, region_size, regionNameOf } from "./regions";
import { regionBase, regionCountNow, regionFlags, regionLinear, regionSize, FLAG_MMIO } from "./iss/memory";

let iss = false;
/** The RV32 core's view: its L1 region and the neural memory's, to name them in faults. */
let issL1: i32 = -1;
let issMram: i32 = -1;
let issSram: i32 = -1;

export function npuMemoryAs(): void {
  iss = false;
}

export function npuMemoryIss(l1: i32, mram: i32, sram: i32): void {
  iss = true;
  issL1 = l1;
  issMram = mram;
  issSram = sram;
}

/** The region holding address `a`, or -1. */
export function npuRegionOf(a: i64): i32 {
  const n = iss ? regionCountNow() : region_count();
  for (let i = 0; i < n; i++) {
    if (iss && (regionFlags(i) & FLAG_MMIO) != 0) continue;
    const base = npuRegionBase(i);
    if (a >= base && a < base + npuRegionSize(i)) return i;
  }
  return -1;
}

export function npuRegionBase(r: i32): i64 {
  return iss ? <i64>regionBase(r) : <i64>region_chip_base(r);
}

export function npuRegionSize(r: i32): i64 {
  return iss ? <i64>regionSize(r) : <i64>region_size(r);
}

export function npuRegionLinear(r: i32): i64 {
  return iss ? <i64>regionLinear(r) : <i64>region_linear_base(r);
}

export function npuRegionName(r: i32): string {
  if (!iss) return regionNameOf(r);
  if (r == issL1) return "L1";
  if (r == issMram) return "NMS_MRAM";
  if (r == issSram) return "NMS_SRAM";
  return "RAM"; // the rv32 image's other memories (the runtime names regions by their link-map names)
}
