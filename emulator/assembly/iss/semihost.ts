// RISC-V semihosting (the ARM semihosting call set reached by slli x0,x0,0x1f; ebreak; srai x0,x0,7), enough for
// picolibc's semihost crt0 and stdio and for qemu-comparable exits: open (":tt" and ":semihosting-features"),
// close, writec, write0, write, read, istty, seek, flen, errno, get_cmdline, heapinfo, clock, elapsed, exit,
// exit_extended. a0 = operation, a1 = argument (a parameter block address for most); the result goes to a0.
// Two host files besides the console: "fg_inputs.bin" reads from a buffer the runtime hands in, "fg_outputs.bin"
// writes into one it reads back (what the rv32 driver of generated firmware opens, as under qemu).

import { linearOf } from "./memory";
import { consolePut } from "./console";

/** slli x0, x0, 0x1f */
export const SEMIHOST_PRE: u32 = 0x01f01013;
/** srai x0, x0, 7 */
export const SEMIHOST_POST: u32 = 0x40705013;

export const SH_OK: i32 = 0;
export const SH_EXIT: i32 = 1;
export const SH_FAULT: i32 = 2;
export const SH_UNSUPPORTED: i32 = 3;
export let shExitCode: i32 = 0;
/** Address that could not be read or written (SH_FAULT), or the operation number (SH_UNSUPPORTED). */
export let shFaultAddr: u32 = 0;

const SYS_OPEN: i32 = 0x01;
const SYS_CLOSE: i32 = 0x02;
const SYS_WRITEC: i32 = 0x03;
const SYS_WRITE0: i32 = 0x04;
const SYS_WRITE: i32 = 0x05;
const SYS_READ: i32 = 0x06;
const SYS_ISTTY: i32 = 0x09;
const SYS_SEEK: i32 = 0x0a;
const SYS_FLEN: i32 = 0x0c;
const SYS_CLOCK: i32 = 0x10;
const SYS_ERRNO: i32 = 0x13;
const SYS_GET_CMDLINE: i32 = 0x15;
const SYS_HEAPINFO: i32 = 0x16;
const SYS_EXIT: i32 = 0x18;
const SYS_EXIT_EXTENDED: i32 = 0x20;
const SYS_ELAPSED: i32 = 0x30;
/** ADP_Stopped_ApplicationExit: the normal-exit reason of SYS_EXIT. */
const ADP_APPLICATION_EXIT: i32 = 0x20026;

/** Handles: 1 the console (":tt"), 2 the features file. */
const FD_TT: i32 = 1;
const FD_FEATURES: i32 = 2;
/** ":semihosting-features": magic "SHFB" and one feature byte: bit 0 SYS_EXIT_EXTENDED, bit 1 stdout/stderr. */
const FEATURES_LEN: i32 = 5;
let featuresPos: i32 = 0;
let failed = false;

/** Handles of the two host files. */
const FD_IN: i32 = 3;
const FD_OUT: i32 = 4;
let inPtr: usize = 0;
let inLen: i32 = 0;
let inPos: i32 = 0;
let outPtr: usize = 0;
let outCap: i32 = 0;
let outLen: i32 = 0;

/** The bytes "fg_inputs.bin" holds (linear memory the runtime filled). */
export function setHostInput(ptr: usize, len: i32): void {
  inPtr = ptr;
  inLen = len;
  inPos = 0;
}

/** Where "fg_outputs.bin" is written, at most `cap` bytes (more is a short write, which the driver reports). */
export function setHostOutput(ptr: usize, cap: i32): void {
  outPtr = ptr;
  outCap = cap;
  outLen = 0;
}

export function hostOutputLength(): i32 {
  return outLen;
}

function rd32(addr: u32): i32 {
  const lin = linearOf(addr, 4);
  if (lin == 0) { fail(addr); return 0; }
  return load<i32>(lin);
}

function rd8(addr: u32): i32 {
  const lin = linearOf(addr, 1);
  if (lin == 0) { fail(addr); return 0; }
  return <i32>load<u8>(lin);
}

function wr8(addr: u32, v: i32): void {
  const lin = linearOf(addr, 1);
  if (lin == 0) { fail(addr); return; }
  store<u8>(lin, <u8>v);
}

function wr32(addr: u32, v: i32): void {
  const lin = linearOf(addr, 4);
  if (lin == 0) { fail(addr); return; }
  store<i32>(lin, v);
}

function fail(addr: u32): void {
  if (!failed) shFaultAddr = addr;
  failed = true;
}

function featureByte(i: i32): i32 {
  return i == 0 ? 0x53 : i == 1 ? 0x48 : i == 2 ? 0x46 : i == 3 ? 0x42 : 0x03;
}

/** Compares the name at `addr` (length `len`) with `s`. */
function nameIs(addr: u32, len: i32, s: string): bool {
  if (len != s.length) return false;
  for (let i = 0; i < len; i++) if (rd8(addr + <u32>i) != s.charCodeAt(i)) return false;
  return true;
}

/** One call; `regs` is the register file (a0 at +40, a1 at +44). */
export function semihostCall(regs: usize, cycles: i64): i32 {
  failed = false;
  const op = load<i32>(regs + 40);
  const arg = <u32>load<i32>(regs + 44);
  let result: i32 = 0;
  switch (op) {
    case SYS_OPEN: {
      const name = <u32>rd32(arg);
      const len = rd32(arg + 8);
      if (nameIs(name, len, ":tt")) result = FD_TT;
      else if (nameIs(name, len, ":semihosting-features")) { result = FD_FEATURES; featuresPos = 0; }
      else if (inPtr != 0 && nameIs(name, len, "fg_inputs.bin")) { result = FD_IN; inPos = 0; }
      else if (outPtr != 0 && nameIs(name, len, "fg_outputs.bin")) { result = FD_OUT; outLen = 0; }
      else result = -1;
      break;
    }
    case SYS_CLOSE: result = 0; break;
    case SYS_WRITEC: consolePut(rd8(arg)); break;
    case SYS_WRITE0: {
      for (let a = arg; ; a++) {
        const c = rd8(a);
        if (c == 0 || failed) break;
        consolePut(c);
      }
      break;
    }
    case SYS_WRITE: {
      const fd = rd32(arg);
      const buf = <u32>rd32(arg + 4);
      const len = rd32(arg + 8);
      if (fd == FD_OUT) {
        let n = 0;
        while (n < len && outLen < outCap && !failed) { store<u8>(outPtr + <usize>outLen, <u8>rd8(buf + <u32>n)); outLen++; n++; }
        result = len - n;
        break;
      }
      for (let i = 0; i < len && !failed; i++) consolePut(rd8(buf + <u32>i));
      result = 0; // bytes not written
      break;
    }
    case SYS_READ: {
      const fd = rd32(arg);
      const buf = <u32>rd32(arg + 4);
      const len = rd32(arg + 8);
      let n = 0;
      if (fd == FD_FEATURES) {
        while (n < len && featuresPos < FEATURES_LEN) { wr8(buf + <u32>n, featureByte(featuresPos++)); n++; }
      } else if (fd == FD_IN) {
        while (n < len && inPos < inLen && !failed) { wr8(buf + <u32>n, <i32>load<u8>(inPtr + <usize>inPos)); inPos++; n++; }
      }
      result = len - n; // bytes not read: the console has no input
      break;
    }
    case SYS_ISTTY: result = rd32(arg) == FD_TT ? 1 : 0; break;
    case SYS_SEEK: {
      if (rd32(arg) == FD_FEATURES) featuresPos = rd32(arg + 4);
      result = 0;
      break;
    }
    case SYS_FLEN: {
      const fd = rd32(arg);
      result = fd == FD_FEATURES ? FEATURES_LEN : fd == FD_IN ? inLen : fd == FD_OUT ? outLen : 0;
      break;
    }
    case SYS_CLOCK: result = <i32>(cycles / 10000); break; // centiseconds at an assumed 1 MHz: only monotonic
    case SYS_ELAPSED: wr32(arg, <i32>cycles); wr32(arg + 4, <i32>(cycles >> 32)); break;
    case SYS_ERRNO: result = 0; break;
    case SYS_GET_CMDLINE: {
      // an empty command line
      const buf = <u32>rd32(arg);
      if (rd32(arg + 4) > 0) wr8(buf, 0);
      wr32(arg + 4, 0);
      break;
    }
    case SYS_HEAPINFO: {
      // zeros: the C library keeps its link-time heap and stack
      const block = <u32>rd32(arg);
      for (let i: u32 = 0; i < 16; i += 4) wr32(block + i, 0);
      break;
    }
    case SYS_EXIT:
      shExitCode = <i32>arg == ADP_APPLICATION_EXIT ? 0 : 1;
      return failed ? SH_FAULT : SH_EXIT;
    case SYS_EXIT_EXTENDED: {
      const reason = rd32(arg);
      const code = rd32(arg + 4);
      shExitCode = reason == ADP_APPLICATION_EXIT ? code : 1;
      return failed ? SH_FAULT : SH_EXIT;
    }
    default:
      shFaultAddr = <u32>op;
      return SH_UNSUPPORTED;
  }
  if (failed) return SH_FAULT;
  store<i32>(regs + 40, result);
  return SH_OK;
}
