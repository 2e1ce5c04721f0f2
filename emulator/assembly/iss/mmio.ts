// Device dispatch for MMIO regions and the access hook of TIMED regions. The chip wiring adds its devices here (a
// device id per peripheral) as cases of the two switches: the simulation-control block the tests use, and the PULP
// cluster's event unit and cluster DMA (iss/cluster-eu.ts, iss/cluster-dma.ts), N-EUREKA (iss/npu.ts) and the
// HyperRAM DMA (iss/l3.ts). A device reports extra wait cycles through `deviceWait` (memory stalls),
// `deviceDmaWait` (asleep until a DMA completion) or `deviceNpuWait` (asleep until an N-EUREKA job ends).

import { regionWait } from "./memory";
import { euRead, euWrite } from "./cluster-eu";
import { mchanRead, mchanWrite } from "./cluster-dma";
import { clusterAccessWait } from "./cluster-banks";
import { npuDevRead, npuDevWrite } from "./npu";
import { l3DevRead, l3DevWrite } from "./l3";

/** No device: an access faults ("no device model"). */
export const DEVICE_NONE: i32 = 0;
/**
 * Simulation control (tests, bare programs): +0 write: putchar(low byte); +4 write: exit(value);
 * +8 read: the hart's cycle counter, low word; +12 read: high word.
 */
export const DEVICE_SIMCTRL: i32 = 1;
/** The cluster event unit (iss/cluster-eu.ts): core id, dispatch mailboxes, team barrier, task end, DMA sleep. */
export const DEVICE_EU: i32 = 2;
/** The cluster DMA, mchan v7 protocol (iss/cluster-dma.ts). */
export const DEVICE_MCHAN: i32 = 3;
/** N-EUREKA's register file (iss/npu.ts). */
export const DEVICE_NPU: i32 = 4;
/** The HyperRAM DMA between L2 and L3 (iss/l3.ts). */
export const DEVICE_L3: i32 = 5;

export const SIM_PUTCHAR: u32 = 0;
export const SIM_EXIT: u32 = 4;
export const SIM_CYCLES_LO: u32 = 8;
export const SIM_CYCLES_HI: u32 = 12;

/** Extra cycles the last device access cost (set by the device, added to the memory-wait stalls). */
export let deviceWait: i32 = 0;
/** Cycles the last device access slept waiting for a DMA completion (added to the DMA-wait stalls). */
export let deviceDmaWait: i64 = 0;
/** Cycles the last device access slept waiting for an N-EUREKA job's end (added to the NPU-wait stalls). */
export let deviceNpuWait: i64 = 0;
/** With DEV_FAULT: the fault kind (faults.ts) and the address it names. */
export let deviceFaultKind: i32 = 0;
export let deviceFaultAddr: u32 = 0;

/** Outcomes the core acts on after a device access. */
export const DEV_OK: i32 = 0;
export const DEV_NO_DEVICE: i32 = 1;
export const DEV_BAD_OFFSET: i32 = 2;
export const DEV_EXIT: i32 = 3;
export const DEV_PUTCHAR: i32 = 4;
/** A read that must wait for other harts: the core stops with STOP_BLOCK and runs the load again when woken. */
export const DEV_BLOCK: i32 = 5;
/** The device found a fault (deviceFaultKind, deviceFaultAddr). */
export const DEV_FAULT: i32 = 6;
/** The access is done; the core stops after it so that the wiring can act on every hart (STOP_YIELD). */
export const DEV_YIELD: i32 = 7;
/** The access is done and woke other harts: the core ends its slice so that the wiring runs the woken harts from their
 * wake cycle instead of letting this one run thousands of cycles ahead of them (STOP_SWITCH). */
export const DEV_SWITCH: i32 = 8;

/** The hart of the last device access: the runtime names it when a device's fault traps (iss/npu.ts, iss/l3.ts). */
let deviceHart: i32 = -1;
export function iss_device_hart(): i32 { return deviceHart; }

/** Devices report through these. */
export function deviceSetWait(cycles: i32): void { deviceWait = cycles; }
export function deviceSetDmaWait(cycles: i64): void { deviceDmaWait = cycles; }
export function deviceSetNpuWait(cycles: i64): void { deviceNpuWait = cycles; }
export function deviceSetStatus(status: i32): void { deviceStatus = status; }
export function deviceSetFault(kind: i32, addr: u32): void {
  deviceStatus = DEV_FAULT;
  deviceFaultKind = kind;
  deviceFaultAddr = addr;
}
export let deviceStatus: i32 = DEV_OK;
/** The exit code or character of DEV_EXIT / DEV_PUTCHAR. */
export let deviceValue: i32 = 0;

/** Reads `size` bytes at `offset` of device `device` (hart `hart`, whose cycle count is `cycles`). */
export function deviceRead(device: i32, hart: i32, offset: u32, size: i32, cycles: i64): i32 {
  deviceHart = hart;
  deviceWait = 0;
  deviceDmaWait = 0;
  deviceNpuWait = 0;
  deviceStatus = DEV_OK;
  switch (device) {
    case DEVICE_EU: return euRead(hart, offset, size, cycles);
    case DEVICE_MCHAN: return mchanRead(hart, offset, size, cycles);
    case DEVICE_NPU: return npuDevRead(hart, offset, size, cycles);
    case DEVICE_L3: return l3DevRead(hart, offset, size, cycles);
    case DEVICE_SIMCTRL:
      if (offset == SIM_CYCLES_LO && size == 4) return <i32>cycles;
      if (offset == SIM_CYCLES_HI && size == 4) return <i32>(cycles >> 32);
      deviceStatus = DEV_BAD_OFFSET;
      return 0;
    default:
      deviceStatus = DEV_NO_DEVICE;
      return 0;
  }
}

export function deviceWrite(device: i32, hart: i32, offset: u32, size: i32, value: i32, cycles: i64): void {
  deviceHart = hart;
  deviceWait = 0;
  deviceDmaWait = 0;
  deviceNpuWait = 0;
  deviceStatus = DEV_OK;
  switch (device) {
    case DEVICE_EU: euWrite(hart, offset, size, value, cycles); return;
    case DEVICE_MCHAN: mchanWrite(hart, offset, size, value, cycles); return;
    case DEVICE_NPU: npuDevWrite(hart, offset, size, value, cycles); return;
    case DEVICE_L3: l3DevWrite(hart, offset, size, value, cycles); return;
    case DEVICE_SIMCTRL:
      if (offset == SIM_PUTCHAR) {
        deviceStatus = DEV_PUTCHAR;
        deviceValue = value & 0xff;
      } else if (offset == SIM_EXIT && size == 4) {
        deviceStatus = DEV_EXIT;
        deviceValue = value;
      } else {
        deviceStatus = DEV_BAD_OFFSET;
      }
      return;
    default:
      deviceStatus = DEV_NO_DEVICE;
  }
}

/**
 * Wait cycles of one access to a TIMED region: the cluster's L1 banks (the wait depends on the other cores'
 * accesses to the same bank in the same cycle) and L2 as the cluster cores see it (iss/cluster-banks.ts); any other
 * TIMED region has its fixed wait.
 */
export function timedAccessWait(region: i32, hart: i32, addr: u32, size: i32, write: bool, cycles: i64): i32 {
  const w = clusterAccessWait(region, hart, addr, cycles);
  return w >= 0 ? w : regionWait(region);
}
