// Device dispatch for MMIO regions and the access hook of TIMED regions. The chip wiring adds its devices here (a
// device id per peripheral: event unit, cluster DMA, NPU, ...) as cases of the two switches; until then the only
// device is the simulation-control block the tests use. A device reports extra wait cycles through `deviceWait`.

import { regionWait } from "./memory";

/** No device: an access faults ("no device model"). */
export const DEVICE_NONE: i32 = 0;
/**
 * Simulation control (tests, bare programs): +0 write: putchar(low byte); +4 write: exit(value);
 * +8 read: the hart's cycle counter, low word; +12 read: high word.
 */
export const DEVICE_SIMCTRL: i32 = 1;

export const SIM_PUTCHAR: u32 = 0;
export const SIM_EXIT: u32 = 4;
export const SIM_CYCLES_LO: u32 = 8;
export const SIM_CYCLES_HI: u32 = 12;

/** Extra cycles the last device access cost (set by the device, added to the memory-wait stalls). */
export let deviceWait: i32 = 0;

/** Outcomes the core acts on after a device access. */
export const DEV_OK: i32 = 0;
export const DEV_NO_DEVICE: i32 = 1;
export const DEV_BAD_OFFSET: i32 = 2;
export const DEV_EXIT: i32 = 3;
export const DEV_PUTCHAR: i32 = 4;
export let deviceStatus: i32 = DEV_OK;
/** The exit code or character of DEV_EXIT / DEV_PUTCHAR. */
export let deviceValue: i32 = 0;

/** Reads `size` bytes at `offset` of device `device` (hart `hart`, whose cycle count is `cycles`). */
export function deviceRead(device: i32, hart: i32, offset: u32, size: i32, cycles: i64): i32 {
  deviceWait = 0;
  deviceStatus = DEV_OK;
  switch (device) {
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
  deviceWait = 0;
  deviceStatus = DEV_OK;
  switch (device) {
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
 * Wait cycles of one access to a TIMED region (e.g. L1 banks, where the wait depends on the other cores' accesses
 * to the same bank in the same cycle). The chip wiring replaces the body; by default the region's fixed wait.
 */
export function timedAccessWait(region: i32, hart: i32, addr: u32, size: i32, write: bool, cycles: i64): i32 {
  return regionWait(region);
}
