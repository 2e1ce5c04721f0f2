// The cycle-counting RV32 core (one CV32E40P-class hart at a time; up to MAX_HARTS harts keep their state here and
// take turns through run()). Instructions are decoded once into 16-byte slots (decode.ts) and executed by one
// switch; registers live in a fixed block of linear memory; plain memory is read and written raw through a one-region
// cache, everything else goes through the slow path (memory.ts, mmio.ts). Timing: timing.ts. The executor never
// allocates and never traps: every error becomes a fault record and a stop (fault.ts of this folder).

import * as O from "./ops";
import { decodeInto, R1, R2, R3, S_IMM, S_IMM2, S_MODE, S_READS, S_RS1, S_RS2, S_RD, S_SIZE, SINK, MODE_SC, MODE_SCI, SLOT_BYTES } from "./decode";
import {
  codeLo, codeSpan, FLAG_EXEC, FLAG_MMIO, FLAG_READ, FLAG_TIMED, FLAG_WRITE, findRegion, invalidateCode, linearOf,
  regionBase, regionDevice, regionFlags, regionLinear, regionSize, regionWait, windowBase, windowFor, windowLinear,
  windowSize, windowSlots,
} from "./memory";
import {
  DEV_BAD_OFFSET, DEV_BLOCK, DEV_EXIT, DEV_SWITCH, DEV_FAULT, DEV_NO_DEVICE, DEV_PUTCHAR, DEV_YIELD, deviceDmaWait, deviceFaultAddr, deviceNpuWait, deviceFaultKind, deviceRead,
  deviceStatus, deviceValue, deviceWait, deviceWrite, timedAccessWait,
} from "./mmio";
import * as T from "./timing";
import * as F from "./faults";
import { consoleFull, consolePut } from "./console";
import { semihostCall, SEMIHOST_POST, SEMIHOST_PRE, SH_EXIT, SH_FAULT, SH_UNSUPPORTED, shExitCode, shFaultAddr } from "./semihost";

import { MAX_HARTS } from "./harts";
import { recordWait } from "../events";

/** Why a hart waited on a device (events.ts kind wait: 4 the cluster DMA or an L3 copy, 5 N-EUREKA). */
const WAIT_DMA: i32 = 4;
const WAIT_NPU: i32 = 5;
import { icacheFetch, icacheOn, LINE_LOG2 } from "./icache";
import { profileCharge, profileHart, profileOn } from "./profile";
export { MAX_HARTS };

/** Why run() returned. */
export const STOP_BUDGET: i32 = 0;
export const STOP_EXIT: i32 = 1;
export const STOP_EBREAK: i32 = 2;
export const STOP_FAULT: i32 = 3;
export const STOP_ECALL: i32 = 4;
export const STOP_WFI: i32 = 5;
export const STOP_OUTPUT: i32 = 6;
/** A device read must wait for other harts (a barrier, an empty mailbox): the load did not retire and runs again
 * when the chip wiring wakes the hart (iss/cluster.ts). */
export const STOP_BLOCK: i32 = 7;
/** A device asked the wiring to look at every hart now (a layer mark): the access retired. */
export const STOP_YIELD: i32 = 8;
/** A device woke other harts (a fork): the access retired; the wiring picks the next hart by its clock. */
export const STOP_SWITCH: i32 = 9;

// ---- the running hart ----

/** The running hart's x0..x31 and write sink (decode.ts SINK): its save area's first 33 words (hp), pointed at by
 * loadHart rather than copied in and out at every slice (a cluster run switches harts every 16 instructions). */
let regs: usize = 0;
let hart: i32 = 0;
let pcNow: u32 = 0;
let stop: i32 = 0;
let exitCode: i32 = 0;
let lpStart0: u32 = 0;
let lpEnd0: u32 = 0;
let lpCount0: u32 = 0;
let lpStart1: u32 = 0;
let lpEnd1: u32 = 0;
let lpCount1: u32 = 0;
/** lpEnd while the loop's count is non-zero, else 1 (an odd address no pc equals). */
let armEnd0: u32 = 1;
let armEnd1: u32 = 1;
let mstatus: u32 = 0;
let mtvec: u32 = 0;
let mepc: u32 = 0;
let mcause: u32 = 0;
let mscratch: u32 = 0;
let mtval: u32 = 0;
let mie: u32 = 0;
/** Retired instructions before the current run() and the stall counters (timing.ts STALL_*). */
let instret: i64 = 0;
let stLoadUse: i64 = 0;
let stBranch: i64 = 0;
let stMulti: i64 = 0;
let stMemory: i64 = 0;
let stMisaligned: i64 = 0;
let stSync: i64 = 0;
let stDma: i64 = 0;
let stNpu: i64 = 0;
let stFetch: i64 = 0;
/** Register offset the previous instruction loaded into (the load-use hazard), or NO_LOAD. */
const NO_LOAD: u32 = 0xff;
/** No code line fetched yet (a line number is pc >> 4: never this). */
const NO_LINE: u32 = 0xffffffff;
let pendingLoad: u32 = NO_LOAD;
/** The hazard state carried from one run() to the next, so that cycles never depend on how runs are sliced. */
let jumpedNow = false;
let lastWriteNow: usize = SINK;

// One-region cache of the data side: chip base, size - 3 (0 when empty: accesses in the last 3 bytes of a region
// take the slow path), linear base, wait cycles. Plain readable+writable memory only.
let dBase: u32 = 0;
let dSizeM3: u32 = 0;
let dLin: usize = 0;
let dWait: i32 = 0;
// The code window pc is in.
// The last TIMED region an access went to (L1 or L2 of the cluster), cached like the data region above so that an L1
// access skips the region search; its wait still comes from timedAccessWait (the bank model) on every access.
let tBase: u32 = 0;
let tSizeM3: u32 = 0;
let tLin: usize = 0;
let tRegion: i32 = -1;

let cBase: u32 = 0;
let cSize: u32 = 0;
let cSlots: usize = 0;
let cLin: usize = 0;

// ---- per-hart save area ----
const H_BYTES: usize = 320;
const HARTS = memory.data(MAX_HARTS * <i32>H_BYTES, 16);
const H_PC: usize = 136;
const H_LP: usize = 140; // 6 words
const H_CSR: usize = 164; // mstatus, mtvec, mepc, mcause, mscratch, mtval, mie
const H_EXIT: usize = 192;
const H_STOP: usize = 196;
const H_PENDING: usize = 200;
const H_COUNT: usize = 208; // instret + 9 stalls, i64 each
const H_JUMPED: usize = 288;
const H_LAST_WRITE: usize = 292;
const H_PROF_PC: usize = 296; // the profile's last instruction of this hart (1: none) and the cycle it started at
const H_PROF_RETIRED: usize = 300; // 0 when that instruction blocked: it runs again and is counted then
const H_PROF_CYC: usize = 304;
const H_FETCH_LINE: usize = 312; // the code line the hart last fetched from (icache.ts; NO_LINE: none)

/** Each hart's cycle count as of its last save (instructions + all stalls), kept so that the cluster scheduler reads
 * one word per hart instead of summing nine counters (written only by saveHart, addHartStall, resetHarts). */
const CYCLES = memory.data(MAX_HARTS * 8, 16);

// @ts-ignore: decorator
@inline function hp(h: i32): usize {
  return HARTS + <usize>h * H_BYTES;
}

export function resetHarts(): void {
  memory.fill(HARTS, 0, MAX_HARTS * <i32>H_BYTES);
  for (let h = 0; h < MAX_HARTS; h++) {
    store<u32>(hp(h) + H_PENDING, NO_LOAD);
    store<u32>(hp(h) + H_LAST_WRITE, <u32>SINK);
    store<u32>(hp(h) + H_PROF_PC, 1);
    store<u32>(hp(h) + H_FETCH_LINE, NO_LINE);
  }
  memory.fill(CYCLES, 0, MAX_HARTS * 8);
  hart = -1;
  dSizeM3 = 0;
  tSizeM3 = 0;
  cSize = 0;
}

/** Forgets the cached data region and code window (after the region table or windows change). */
export function flushCaches(): void {
  dSizeM3 = 0;
  tSizeM3 = 0;
  cSize = 0;
}

function loadHart(h: i32): void {
  const p = hp(h);
  regs = p;
  store<i32>(p, 0);
  pcNow = load<u32>(p + H_PC);
  lpStart0 = load<u32>(p + H_LP);
  lpEnd0 = load<u32>(p + H_LP + 4);
  lpCount0 = load<u32>(p + H_LP + 8);
  lpStart1 = load<u32>(p + H_LP + 12);
  lpEnd1 = load<u32>(p + H_LP + 16);
  lpCount1 = load<u32>(p + H_LP + 20);
  armEnd0 = lpCount0 != 0 ? lpEnd0 : 1;
  armEnd1 = lpCount1 != 0 ? lpEnd1 : 1;
  mstatus = load<u32>(p + H_CSR);
  mtvec = load<u32>(p + H_CSR + 4);
  mepc = load<u32>(p + H_CSR + 8);
  mcause = load<u32>(p + H_CSR + 12);
  mscratch = load<u32>(p + H_CSR + 16);
  mtval = load<u32>(p + H_CSR + 20);
  mie = load<u32>(p + H_CSR + 24);
  exitCode = load<i32>(p + H_EXIT);
  pendingLoad = load<u32>(p + H_PENDING);
  jumpedNow = load<u32>(p + H_JUMPED) != 0;
  lastWriteNow = <usize>load<u32>(p + H_LAST_WRITE);
  instret = load<i64>(p + H_COUNT);
  stLoadUse = load<i64>(p + H_COUNT + 8);
  stBranch = load<i64>(p + H_COUNT + 16);
  stMulti = load<i64>(p + H_COUNT + 24);
  stMemory = load<i64>(p + H_COUNT + 32);
  stMisaligned = load<i64>(p + H_COUNT + 40);
  stSync = load<i64>(p + H_COUNT + 48);
  stDma = load<i64>(p + H_COUNT + 56);
  stNpu = load<i64>(p + H_COUNT + 64);
  stFetch = load<i64>(p + H_COUNT + 72);
  hart = h;
}

function saveHart(): void {
  const p = hp(hart);
  store<u32>(p + H_PC, pcNow);
  store<u32>(p + H_LP, lpStart0);
  store<u32>(p + H_LP + 4, lpEnd0);
  store<u32>(p + H_LP + 8, lpCount0);
  store<u32>(p + H_LP + 12, lpStart1);
  store<u32>(p + H_LP + 16, lpEnd1);
  store<u32>(p + H_LP + 20, lpCount1);
  store<u32>(p + H_CSR, mstatus);
  store<u32>(p + H_CSR + 4, mtvec);
  store<u32>(p + H_CSR + 8, mepc);
  store<u32>(p + H_CSR + 12, mcause);
  store<u32>(p + H_CSR + 16, mscratch);
  store<u32>(p + H_CSR + 20, mtval);
  store<u32>(p + H_CSR + 24, mie);
  store<i32>(p + H_EXIT, exitCode);
  store<i32>(p + H_STOP, stop);
  store<u32>(p + H_PENDING, pendingLoad);
  store<u32>(p + H_JUMPED, jumpedNow ? 1 : 0);
  store<u32>(p + H_LAST_WRITE, <u32>lastWriteNow);
  store<i64>(p + H_COUNT, instret);
  store<i64>(p + H_COUNT + 8, stLoadUse);
  store<i64>(p + H_COUNT + 16, stBranch);
  store<i64>(p + H_COUNT + 24, stMulti);
  store<i64>(p + H_COUNT + 32, stMemory);
  store<i64>(p + H_COUNT + 40, stMisaligned);
  store<i64>(p + H_COUNT + 48, stSync);
  store<i64>(p + H_COUNT + 56, stDma);
  store<i64>(p + H_COUNT + 64, stNpu);
  store<i64>(p + H_COUNT + 72, stFetch);
  store<i64>(CYCLES + (<usize>hart << 3), cyclesAt(0));
}

// ---- host access to a hart's state (between runs) ----

export function hartReg(h: i32, r: i32): i32 {
  return r == 0 ? 0 : load<i32>(hp(h) + (<usize>(r & 31) << 2));
}
export function setHartReg(h: i32, r: i32, v: i32): void {
  if (r != 0) store<i32>(hp(h) + (<usize>(r & 31) << 2), v);
}
export function hartPc(h: i32): u32 { return load<u32>(hp(h) + H_PC); }
export function setHartPc(h: i32, pc: u32): void { store<u32>(hp(h) + H_PC, pc); }
export function hartExitCode(h: i32): i32 { return load<i32>(hp(h) + H_EXIT); }
export function hartStop(h: i32): i32 { return load<i32>(hp(h) + H_STOP); }
export function hartInstret(h: i32): i64 { return load<i64>(hp(h) + H_COUNT); }
export function hartStall(h: i32, kind: i32): i64 {
  return kind < 0 || kind >= T.STALL_KINDS ? 0 : load<i64>(hp(h) + H_COUNT + 8 + (<usize>kind << 3));
}
/** Adds sleep cycles to a hart between runs (the chip wiring, when it wakes a hart that waited on other harts). */
export function addHartStall(h: i32, kind: i32, cycles: i64): void {
  if (kind < 0 || kind >= T.STALL_KINDS) return; // run() reloads the hart from its save area: safe between runs
  const at = hp(h) + H_COUNT + 8 + (<usize>kind << 3);
  store<i64>(at, load<i64>(at) + cycles);
  const c = CYCLES + (<usize>h << 3);
  store<i64>(c, load<i64>(c) + cycles);
}
/** Charges each hart's last instruction up to its final cycle count (call once, when the run is over). */
export function flushProfile(): void {
  if (!profileOn) return;
  for (let h = 0; h < MAX_HARTS; h++) {
    if (profileHart >= 0 && profileHart != h) continue;
    const pc = load<u32>(hp(h) + H_PROF_PC);
    const started = load<i64>(hp(h) + H_PROF_CYC);
    profileCharge(pc, started, hartCycles(h) - started, load<i32>(hp(h) + H_PROF_RETIRED));
    store<u32>(hp(h) + H_PROF_PC, 1);
    store<i32>(hp(h) + H_PROF_RETIRED, 0);
  }
}

export function hartCycles(h: i32): i64 {
  return load<i64>(CYCLES + (<usize>h << 3));
}
/** Hardware-loop registers: 0 start0, 1 end0, 2 count0, 3 start1, 4 end1, 5 count1. */
export function hartLoopReg(h: i32, i: i32): u32 {
  return i < 0 || i > 5 ? 0 : load<u32>(hp(h) + H_LP + (<usize>i << 2));
}

// ---- helpers of the executor ----

// @ts-ignore: decorator
@inline function rg(off: usize): i32 {
  return load<i32>(regs + off);
}
// @ts-ignore: decorator
@inline function wr(off: usize, v: i32): void {
  store<i32>(regs + off, v);
}

/** Cycles so far, counting `retiredThisRun` instructions of this run (the current one not included by callers). */
function cyclesAt(retiredThisRun: i32): i64 {
  return instret + <i64>retiredThisRun + stLoadUse + stBranch + stMulti + stMemory + stMisaligned + stSync + stDma + stNpu + stFetch;
}

function fault(kind: i32, pc: u32, addr: u32, size: i32, region: i32): void {
  F.record(kind, hart, pc, fetchWord(pc), addr, size, region);
  stop = STOP_FAULT;
}

/** The instruction word at pc for fault records (0 if pc is not in memory). */
function fetchWord(pc: u32): u32 {
  const lin = linearOf(pc, 2);
  if (lin == 0) return 0;
  const lo = <u32>load<u16>(lin);
  if ((lo & 3) != 3) return lo;
  const hi = linearOf(pc + 2, 2);
  return hi == 0 ? lo : lo | (<u32>load<u16>(hi) << 16);
}

/** Slow data access: refills the cache for plain memory, else MMIO / TIMED handling or a fault. Returns the linear
 * address for plain memory, 0 when the access was done here (value in slowValue) or faulted (stop set). */
let slowValue: i32 = 0;
function slowAccess(addr: u32, size: i32, write: bool, value: i32, pc: u32, retired: i32): usize {
  const toff = addr - tBase;
  if (toff < tSizeM3) {
    stMemory += <i64>timedAccessWait(tRegion, hart, addr, size, write, cyclesAt(retired - 1));
    timedMove(tLin + <usize>toff, size, write, value);
    return 0;
  }
  const r = findRegion(addr, <u32>size);
  if (r < 0) {
    fault(write ? F.FAULT_STORE_OUTSIDE : F.FAULT_LOAD_OUTSIDE, pc, addr, size, findRegion(addr, 1));
    return 0;
  }
  const flags = regionFlags(r);
  if ((flags & (write ? FLAG_WRITE : FLAG_READ)) == 0) {
    fault(write ? F.FAULT_STORE_READONLY : F.FAULT_LOAD_NOREAD, pc, addr, size, r);
    return 0;
  }
  const off = addr - regionBase(r);
  if ((flags & FLAG_MMIO) != 0) {
    const dev = regionDevice(r);
    if (write) deviceWrite(dev, hart, off, size, value, cyclesAt(retired - 1));
    else slowValue = deviceRead(dev, hart, off, size, cyclesAt(retired - 1));
    stMemory += <i64>(regionWait(r) + deviceWait);
    stDma += deviceDmaWait;
    stNpu += deviceNpuWait;
    if (deviceDmaWait > 0 || deviceNpuWait > 0) {
      const end = cyclesAt(retired - 1); // the waits above are in it already
      recordWait(hart, deviceDmaWait > 0 ? WAIT_DMA : WAIT_NPU, end - deviceDmaWait - deviceNpuWait, end);
    }
    const status = deviceStatus;
    if (status == DEV_NO_DEVICE) fault(F.FAULT_NO_DEVICE, pc, addr, size, r);
    else if (status == DEV_BAD_OFFSET) fault(F.FAULT_DEVICE_OFFSET, pc, addr, size, r);
    else if (status == DEV_EXIT) { exitCode = deviceValue; stop = STOP_EXIT; }
    else if (status == DEV_PUTCHAR) { consolePut(deviceValue); if (consoleFull()) stop = STOP_OUTPUT; }
    else if (status == DEV_BLOCK) stop = STOP_BLOCK;
    else if (status == DEV_YIELD) stop = STOP_YIELD;
    else if (status == DEV_SWITCH) stop = STOP_SWITCH;
    else if (status == DEV_FAULT) fault(deviceFaultKind, pc, deviceFaultAddr, size, findRegion(deviceFaultAddr, 1));
    return 0;
  }
  const lin = regionLinear(r) + <usize>off;
  if ((flags & FLAG_TIMED) != 0) {
    stMemory += <i64>timedAccessWait(r, hart, addr, size, write, cyclesAt(retired - 1));
    timedMove(lin, size, write, value);
    const tsize = regionSize(r);
    if ((flags & (FLAG_READ | FLAG_WRITE)) == (FLAG_READ | FLAG_WRITE) && tsize >= 4) {
      tBase = regionBase(r);
      tSizeM3 = tsize - 3;
      tLin = regionLinear(r);
      tRegion = r;
    }
    return 0;
  }
  const rsize = regionSize(r);
  if ((flags & (FLAG_READ | FLAG_WRITE)) == (FLAG_READ | FLAG_WRITE) && rsize >= 4) {
    dBase = regionBase(r);
    dSizeM3 = rsize - 3;
    dLin = regionLinear(r);
    dWait = regionWait(r);
  }
  stMemory += <i64>regionWait(r);
  return lin;
}

/** The data move of a TIMED access: a store, or a load into slowValue. */
// @ts-ignore: decorator
@inline function timedMove(lin: usize, size: i32, write: bool, value: i32): void {
  if (write) {
    if (size == 1) store<u8>(lin, <u8>value);
    else if (size == 2) store<u16>(lin, <u16>value);
    else store<i32>(lin, value);
  } else {
    slowValue = size == 1 ? <i32>load<u8>(lin) : size == 2 ? <i32>load<u16>(lin) : load<i32>(lin);
  }
}

/** Loads `kind` (0 lb, 1 lh, 2 lw, 4 lbu, 5 lhu) from addr; on a fault returns 0 with stop set. */
function loadKind(addr: u32, kind: i32, pc: u32, retired: i32): i32 {
  const size = kind == 2 ? 4 : (kind & 1) != 0 ? 2 : 1;
  if (size == 4) { if ((addr & 3) != 0) stMisaligned += T.MISALIGNED_ACCESS_EXTRA; }
  else if (size == 2 && (addr & 3) == 3) stMisaligned += T.MISALIGNED_ACCESS_EXTRA;
  const off = addr - dBase;
  const toff = addr - tBase;
  let lin: usize;
  if (off < dSizeM3) {
    lin = dLin + <usize>off;
    stMemory += <i64>dWait;
  } else if (toff < tSizeM3) {
    // the cached TIMED region (slowAccess's first case, inline): the bank model's wait, then the load below
    stMemory += <i64>timedAccessWait(tRegion, hart, addr, size, false, cyclesAt(retired - 1));
    lin = tLin + <usize>toff;
  } else {
    lin = slowAccess(addr, size, false, 0, pc, retired);
    if (lin == 0) {
      const v = slowValue;
      if (kind == 0) return <i32><i8>v;
      if (kind == 1) return <i32><i16>v;
      if (kind == 4) return v & 0xff;
      if (kind == 5) return v & 0xffff;
      return v;
    }
  }
  if (kind == 2) return load<i32>(lin);
  if (kind == 0) return <i32>load<i8>(lin);
  if (kind == 4) return <i32>load<u8>(lin);
  if (kind == 1) return <i32>load<i16>(lin);
  return <i32>load<u16>(lin);
}

/** Stores `size` bytes (1, 2, 4); on a fault stop is set. */
function storeSized(addr: u32, size: i32, value: i32, pc: u32, retired: i32): void {
  if (size == 4) { if ((addr & 3) != 0) stMisaligned += T.MISALIGNED_ACCESS_EXTRA; }
  else if (size == 2 && (addr & 3) == 3) stMisaligned += T.MISALIGNED_ACCESS_EXTRA;
  const off = addr - dBase;
  const toff = addr - tBase;
  let lin: usize;
  if (off < dSizeM3) {
    lin = dLin + <usize>off;
    stMemory += <i64>dWait;
  } else if (toff < tSizeM3) {
    // the cached TIMED region (slowAccess's first case, inline; like it, no code-cache check: TIMED is data)
    stMemory += <i64>timedAccessWait(tRegion, hart, addr, size, true, cyclesAt(retired - 1));
    timedMove(tLin + <usize>toff, size, true, value);
    return;
  } else {
    lin = slowAccess(addr, size, true, value, pc, retired);
    if (lin == 0) return;
  }
  if (size == 4) store<i32>(lin, value);
  else if (size == 2) store<u16>(lin, <u16>value);
  else store<u8>(lin, <u8>value);
  if (addr - codeLo < codeSpan) {
    invalidateCode(addr, <u32>size);
    // the slot of the instruction after this store may be the one just forgotten: refetch it
    cSize = 0;
  }
}

/** Points the code cache at the window holding pc; false (with a fault) if pc cannot be fetched. */
function enterWindow(pc: u32): bool {
  if ((pc & 1) != 0) {
    F.record(F.FAULT_FETCH_MISALIGNED, hart, pc, 0, pc, 2, findRegion(pc & ~1, 2));
    stop = STOP_FAULT;
    return false;
  }
  const w = windowFor(pc);
  if (w < 0) {
    const r = findRegion(pc, 2);
    const kind = r < 0 ? F.FAULT_FETCH_OUTSIDE : (regionFlags(r) & FLAG_EXEC) == 0 || (regionFlags(r) & FLAG_MMIO) != 0
      ? F.FAULT_FETCH_NOEXEC : F.FAULT_FETCH_OUTSIDE;
    F.record(kind, hart, pc, 0, pc, 2, r);
    stop = STOP_FAULT;
    return false;
  }
  cBase = windowBase(w);
  cSize = windowSize(w);
  cSlots = windowSlots(w);
  cLin = windowLinear(w);
  return true;
}

/** Decodes the slot of pc (offset `off` in the current window); false (with a fault) if the word is cut off. */
function decodeSlot(e: usize, pc: u32, off: u32): bool {
  const lo = <u32>load<u16>(cLin + <usize>off);
  let w = lo;
  if ((lo & 3) == 3) {
    if (off + 4 <= cSize) w = load<u32>(cLin + <usize>off);
    else {
      const hi = linearOf(pc + 2, 2);
      if (hi == 0) {
        F.record(F.FAULT_FETCH_OUTSIDE, hart, pc, lo, pc + 2, 2, findRegion(pc + 2, 1));
        stop = STOP_FAULT;
        return false;
      }
      w = lo | (<u32>load<u16>(hi) << 16);
    }
  }
  decodeInto(e, w, pc);
  return true;
}

/** Lanes of SIMD operand 2 by the slot's mode: the register, its low lane replicated (.sc), or the immediate. */
// @ts-ignore: decorator
@inline function op2B(e: usize): i32 {
  const mode = <i32>load<u8>(e + S_MODE);
  if (mode == 0) return rg(<usize>load<u8>(e + S_RS2));
  if (mode == MODE_SC) return (rg(<usize>load<u8>(e + S_RS2)) & 0xff) * 0x01010101;
  return load<i32>(e + S_IMM);
}
// @ts-ignore: decorator
@inline function op2H(e: usize): i32 {
  const mode = <i32>load<u8>(e + S_MODE);
  if (mode == 0) return rg(<usize>load<u8>(e + S_RS2));
  if (mode == MODE_SC) return (rg(<usize>load<u8>(e + S_RS2)) & 0xffff) * 0x00010001;
  return load<i32>(e + S_IMM);
}

// ---- the run loop ----

/**
 * Runs hart `h` for at most `budget` instructions; returns the STOP_* reason. The hart's state stays in the save
 * area between runs, so harts can take turns (the chip wiring interleaves them by time).
 */
export function run(h: i32, budget: i32): i32 {
  loadHart(h);
  stop = 0;
  let pc = pcNow;
  let n: i32 = 0;
  let pending = pendingLoad;
  /** The previous instruction was a taken jump or branch (for the misaligned-target cycle and jalr hazard). */
  let jumped = jumpedNow;
  /** Register offset the previous instruction wrote (jalr hazard), SINK if none. */
  let lastWrite: usize = lastWriteNow;
  const prof = profileOn && (profileHart < 0 || profileHart == h);
  let profPc: u32 = prof ? load<u32>(hp(h) + H_PROF_PC) : 1;
  let profCyc: i64 = prof ? load<i64>(hp(h) + H_PROF_CYC) : 0;
  let profRetired: i32 = prof ? load<i32>(hp(h) + H_PROF_RETIRED) : 0;
  // the instruction cache (icache.ts): looked up whenever the hart starts executing from another line
  const ic = icacheOn(h);
  let line: u32 = load<u32>(hp(h) + H_FETCH_LINE);
  while (n < budget) {
    let off = pc - cBase;
    if (off >= cSize || (pc & 1) != 0) {
      if (!enterWindow(pc)) break;
      off = pc - cBase;
    }
    // one SLOT_BYTES (16) slot per 2 bytes of code
    const e = cSlots + (<usize>off << 3);
    let op = <i32>load<u8>(e);
    if (op == 0) {
      if (!decodeSlot(e, pc, off)) break;
      op = <i32>load<u8>(e);
    }
    const rd = <usize>load<u8>(e + S_RD);
    const r1 = <usize>load<u8>(e + S_RS1);
    const r2 = <usize>load<u8>(e + S_RS2);
    const imm = load<i32>(e + S_IMM);
    const size = <u32>load<u8>(e + S_SIZE);
    if (ic) {
      const first = pc >> LINE_LOG2;
      const last = (pc + size - 1) >> LINE_LOG2;
      if (first != line) stFetch += icacheFetch(h, first, cyclesAt(n));
      if (last != first) stFetch += icacheFetch(h, last, cyclesAt(n));
      line = last;
    }
    if (prof) {
      // the previous instruction's cycles end where this one starts (its stalls, and any sleep since, are charged)
      const now = cyclesAt(n);
      profileCharge(profPc, profCyc, now - profCyc, profRetired);
      profPc = pc;
      profCyc = now;
      profRetired = 1;
    }
    if (pending != NO_LOAD) {
      const reads = <i32>load<u8>(e + S_READS);
      if (((reads & R1) != 0 && <u32>r1 == pending) || ((reads & R2) != 0 && <u32>r2 == pending)
        || ((reads & R3) != 0 && <u32>rd == pending)) stLoadUse += T.LOAD_USE_EXTRA;
      pending = NO_LOAD;
    }
    if (jumped) {
      if ((pc & 2) != 0 && size == 4) stBranch += T.MISALIGNED_TARGET_EXTRA;
      jumped = false;
    }
    let npc = pc + size;
    let written: usize = rd;
    n++;
    switch (op) {
      case O.OP_LUI: wr(rd, imm); break;
      case O.OP_AUIPC: wr(rd, <i32>pc + imm); break;
      case O.OP_JAL:
        wr(rd, <i32>npc);
        npc = pc + <u32>imm;
        stBranch += T.JUMP_EXTRA;
        jumped = true;
        break;
      case O.OP_JALR: {
        if (r1 == lastWrite && r1 != 0) stBranch += T.JALR_HAZARD_EXTRA;
        const t = <u32>(rg(r1) + imm) & ~1;
        wr(rd, <i32>npc);
        npc = t;
        stBranch += T.JUMP_EXTRA;
        jumped = true;
        break;
      }
      case O.OP_BEQ: if (rg(r1) == rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_BNE: if (rg(r1) != rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_BLT: if (rg(r1) < rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_BGE: if (rg(r1) >= rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_BLTU: if (<u32>rg(r1) < <u32>rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_BGEU: if (<u32>rg(r1) >= <u32>rg(r2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_P_BEQIMM: if (rg(r1) == load<i32>(e + S_IMM2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_P_BNEIMM: if (rg(r1) != load<i32>(e + S_IMM2)) { npc = pc + <u32>imm; stBranch += T.TAKEN_BRANCH_EXTRA; jumped = true; } written = SINK; break;
      case O.OP_LW: {
        const a = <u32>(rg(r1) + imm);
        const o = a - dBase;
        let v: i32;
        if (o < dSizeM3) {
          if ((a & 3) != 0) stMisaligned += T.MISALIGNED_ACCESS_EXTRA;
          stMemory += <i64>dWait;
          v = load<i32>(dLin + <usize>o);
        } else v = loadKind(a, 2, pc, n);
        wr(rd, v);
        if (rd != SINK) pending = <u32>rd;
        written = SINK;
        break;
      }
      case O.OP_LB: wr(rd, loadKind(<u32>(rg(r1) + imm), 0, pc, n)); if (rd != SINK) pending = <u32>rd; written = SINK; break;
      case O.OP_LH: wr(rd, loadKind(<u32>(rg(r1) + imm), 1, pc, n)); if (rd != SINK) pending = <u32>rd; written = SINK; break;
      case O.OP_LBU: wr(rd, loadKind(<u32>(rg(r1) + imm), 4, pc, n)); if (rd != SINK) pending = <u32>rd; written = SINK; break;
      case O.OP_LHU: wr(rd, loadKind(<u32>(rg(r1) + imm), 5, pc, n)); if (rd != SINK) pending = <u32>rd; written = SINK; break;
      case O.OP_SB: storeSized(<u32>(rg(r1) + imm), 1, rg(r2), pc, n); written = SINK; break;
      case O.OP_SH: storeSized(<u32>(rg(r1) + imm), 2, rg(r2), pc, n); written = SINK; break;
      case O.OP_SW: storeSized(<u32>(rg(r1) + imm), 4, rg(r2), pc, n); written = SINK; break;
      case O.OP_PLOAD_PI: {
        const base = rg(r1);
        const kind = load<i32>(e + S_IMM2);
        // a word from the cached data window inline, as OP_LW (the dot-product loops' operand loads)
        const o = <u32>base - dBase;
        let v: i32;
        if (kind == 2 && o < dSizeM3) {
          if ((base & 3) != 0) stMisaligned += T.MISALIGNED_ACCESS_EXTRA;
          stMemory += <i64>dWait;
          v = load<i32>(dLin + <usize>o);
        } else v = loadKind(<u32>base, kind, pc, n);
        wr(r1, base + imm);
        wr(rd, v);
        if (rd != SINK) pending = <u32>rd;
        written = r1;
        break;
      }
      case O.OP_PLOAD_PR: {
        const base = rg(r1);
        const v = loadKind(<u32>base, load<i32>(e + S_IMM2), pc, n);
        wr(r1, base + rg(r2));
        wr(rd, v);
        if (rd != SINK) pending = <u32>rd;
        written = r1;
        break;
      }
      case O.OP_PLOAD_RR: {
        wr(rd, loadKind(<u32>(rg(r1) + rg(r2)), load<i32>(e + S_IMM2), pc, n));
        if (rd != SINK) pending = <u32>rd;
        written = SINK;
        break;
      }
      case O.OP_PSTORE_PI: {
        const base = rg(r1);
        storeSized(<u32>base, 1 << load<i32>(e + S_IMM2), rg(r2), pc, n);
        wr(r1, base + imm);
        written = r1;
        break;
      }
      case O.OP_PSTORE_PR: {
        const base = rg(r1);
        storeSized(<u32>base, 1 << load<i32>(e + S_IMM2), rg(r2), pc, n);
        wr(r1, base + rg(rd));
        written = r1;
        break;
      }
      case O.OP_PSTORE_RR:
        storeSized(<u32>(rg(r1) + rg(rd)), 1 << load<i32>(e + S_IMM2), rg(r2), pc, n);
        written = SINK;
        break;
      case O.OP_ADDI: wr(rd, rg(r1) + imm); break;
      case O.OP_SLTI: wr(rd, rg(r1) < imm ? 1 : 0); break;
      case O.OP_SLTIU: wr(rd, <u32>rg(r1) < <u32>imm ? 1 : 0); break;
      case O.OP_XORI: wr(rd, rg(r1) ^ imm); break;
      case O.OP_ORI: wr(rd, rg(r1) | imm); break;
      case O.OP_ANDI: wr(rd, rg(r1) & imm); break;
      case O.OP_SLLI: wr(rd, rg(r1) << imm); break;
      case O.OP_SRLI: wr(rd, <i32>(<u32>rg(r1) >> <u32>imm)); break;
      case O.OP_SRAI: wr(rd, rg(r1) >> imm); break;
      case O.OP_ADD: wr(rd, rg(r1) + rg(r2)); break;
      case O.OP_SUB: wr(rd, rg(r1) - rg(r2)); break;
      case O.OP_SLL: wr(rd, rg(r1) << (rg(r2) & 31)); break;
      case O.OP_SLT: wr(rd, rg(r1) < rg(r2) ? 1 : 0); break;
      case O.OP_SLTU: wr(rd, <u32>rg(r1) < <u32>rg(r2) ? 1 : 0); break;
      case O.OP_XOR: wr(rd, rg(r1) ^ rg(r2)); break;
      case O.OP_SRL: wr(rd, <i32>(<u32>rg(r1) >> <u32>(rg(r2) & 31))); break;
      case O.OP_SRA: wr(rd, rg(r1) >> (rg(r2) & 31)); break;
      case O.OP_OR: wr(rd, rg(r1) | rg(r2)); break;
      case O.OP_AND: wr(rd, rg(r1) & rg(r2)); break;
      case O.OP_FENCE: written = SINK; break;
      case O.OP_FENCE_I: stMulti += T.FENCE_I_EXTRA; written = SINK; break;
      case O.OP_MUL: wr(rd, rg(r1) * rg(r2)); break;
      case O.OP_MULH: wr(rd, <i32>((<i64>rg(r1) * <i64>rg(r2)) >> 32)); stMulti += T.MULH_EXTRA; break;
      // zero extension by mask: a u32 cast of an inlined i32 load does not make the 64-bit extension unsigned
      case O.OP_MULHSU: wr(rd, <i32>((<i64>rg(r1) * (<i64>rg(r2) & 0xffff_ffff)) >> 32)); stMulti += T.MULH_EXTRA; break;
      case O.OP_MULHU: wr(rd, <i32>(((<u64>rg(r1) & 0xffff_ffff) * (<u64>rg(r2) & 0xffff_ffff)) >> 32)); stMulti += T.MULH_EXTRA; break;
      case O.OP_DIV: {
        const a = rg(r1), b = rg(r2);
        wr(rd, b == 0 ? -1 : (a == i32.MIN_VALUE && b == -1) ? a : a / b);
        stMulti += T.divExtra(b);
        break;
      }
      case O.OP_DIVU: {
        const a = <u32>rg(r1), b = <u32>rg(r2);
        wr(rd, b == 0 ? -1 : <i32>(a / b));
        stMulti += T.divExtra(<i32>b);
        break;
      }
      case O.OP_REM: {
        const a = rg(r1), b = rg(r2);
        wr(rd, b == 0 ? a : (a == i32.MIN_VALUE && b == -1) ? 0 : a % b);
        stMulti += T.divExtra(b);
        break;
      }
      case O.OP_REMU: {
        const a = <u32>rg(r1), b = <u32>rg(r2);
        wr(rd, b == 0 ? <i32>a : <i32>(a % b));
        stMulti += T.divExtra(<i32>b);
        break;
      }
      case O.OP_CSR: csrOp(e, rd, r1, pc, n); break;
      case O.OP_ECALL:
        ecall(pc);
        if (trapTaken) { npc = trapTarget; trapTaken = false; }
        written = SINK;
        break;
      case O.OP_EBREAK: {
        if (size == 4 && isSemihostCall(pc)) {
          const status = semihostCall(regs, cyclesAt(n - 1));
          if (status == SH_EXIT) { exitCode = shExitCode; stop = STOP_EXIT; }
          else if (status == SH_FAULT) fault(F.FAULT_SEMIHOST, pc, shFaultAddr, 4, findRegion(shFaultAddr, 1));
          else if (status == SH_UNSUPPORTED) fault(F.FAULT_SEMIHOST_OP, pc, shFaultAddr, 4, -1);
          else if (consoleFull()) stop = STOP_OUTPUT;
          written = 10 << 2; // a0
        } else {
          stop = STOP_EBREAK;
          npc = pc;
          written = SINK;
        }
        break;
      }
      case O.OP_MRET: npc = mepc; stBranch += T.MRET_EXTRA; jumped = true; written = SINK; break;
      case O.OP_WFI: stop = STOP_WFI; written = SINK; break;
      case O.OP_LP_STARTI: setLoop(load<i32>(e + S_IMM2), 0, pc + <u32>imm); written = SINK; break;
      case O.OP_LP_ENDI: setLoop(load<i32>(e + S_IMM2), 1, pc + <u32>imm); written = SINK; break;
      case O.OP_LP_COUNT: setLoop(load<i32>(e + S_IMM2), 2, <u32>rg(r1)); written = SINK; break;
      case O.OP_LP_COUNTI: setLoop(load<i32>(e + S_IMM2), 2, <u32>imm); written = SINK; break;
      case O.OP_LP_SETUP: {
        const l = load<i32>(e + S_IMM2);
        setLoop(l, 0, npc);
        setLoop(l, 1, pc + <u32>imm);
        setLoop(l, 2, <u32>rg(r1));
        written = SINK;
        break;
      }
      case O.OP_LP_SETUPI: {
        const x = load<i32>(e + S_IMM2);
        const l = x & 1;
        setLoop(l, 0, npc);
        setLoop(l, 1, pc + <u32>imm);
        setLoop(l, 2, <u32>(x >> 1));
        written = SINK;
        break;
      }
      case O.OP_P_MAC: wr(rd, rg(rd) + rg(r1) * rg(r2)); break;
      case O.OP_P_MSU: wr(rd, rg(rd) - rg(r1) * rg(r2)); break;
      case O.OP_P_CLIP: {
        const x = rg(r1), lo = imm, hi = load<i32>(e + S_IMM2);
        wr(rd, x <= lo ? lo : x >= hi ? hi : x);
        break;
      }
      case O.OP_PV_SDOTSP_B: {
        const a = rg(r1), b = op2B(e);
        wr(rd, rg(rd) + (a << 24 >> 24) * (b << 24 >> 24) + (a << 16 >> 24) * (b << 16 >> 24)
          + (a << 8 >> 24) * (b << 8 >> 24) + (a >> 24) * (b >> 24));
        break;
      }
      case O.OP_PV_SDOTUSP_B: {
        const a = rg(r1), b = op2B(e);
        wr(rd, rg(rd) + (a & 0xff) * (b << 24 >> 24) + ((a >> 8) & 0xff) * (b << 16 >> 24)
          + ((a >> 16) & 0xff) * (b << 8 >> 24) + ((a >>> 24) & 0xff) * (b >> 24));
        break;
      }
      case O.OP_PV_SDOTUP_B: {
        const a = rg(r1), b = op2B(e);
        wr(rd, rg(rd) + (a & 0xff) * (b & 0xff) + ((a >> 8) & 0xff) * ((b >> 8) & 0xff)
          + ((a >> 16) & 0xff) * ((b >> 16) & 0xff) + (a >>> 24) * (b >>> 24));
        break;
      }
      default:
        if (op == O.OP_ILLEGAL || !aluOther(op, e, rd, r1, r2, imm)) {
          fault(F.FAULT_ILLEGAL, pc, pc, <i32>size, findRegion(pc, 2));
        }
        break;
    }
    lastWrite = written;
    if (stop != 0) {
      // a faulting or blocked instruction does not retire; pc stays on it (and on an ebreak). A blocked device read
      // wrote a stale value to rd: harmless, since it runs again, as long as rd is not its address register (the
      // HAL's blocking reads use an early-clobber output, runtime/c/siracusa/hal_iss.c).
      if (stop == STOP_FAULT || stop == STOP_BLOCK) { n--; break; }
      if (stop == STOP_EBREAK) break;
      pc = stepLoops(pc, npc);
      break;
    }
    if (pc == armEnd0 || pc == armEnd1) npc = stepLoops(pc, npc);
    pc = npc;
  }
  pcNow = pc;
  pendingLoad = pending;
  jumpedNow = jumped;
  lastWriteNow = lastWrite;
  instret += <i64>n;
  saveHart();
  store<u32>(hp(h) + H_FETCH_LINE, line);
  if (prof) {
    store<u32>(hp(h) + H_PROF_PC, profPc);
    store<i32>(hp(h) + H_PROF_RETIRED, stop == STOP_BLOCK ? 0 : profRetired);
    store<i64>(hp(h) + H_PROF_CYC, profCyc);
  }
  return stop;
}

/** End-of-body check of the hardware loops after the instruction at pc: the next pc. Loop 0 (inner) first. */
function stepLoops(pc: u32, npc: u32): u32 {
  if (pc == armEnd0) {
    lpCount0--;
    if (lpCount0 != 0) { stBranch += T.HWLOOP_BRANCH_EXTRA; return lpStart0; }
    armEnd0 = 1;
  }
  if (pc == armEnd1) {
    lpCount1--;
    if (lpCount1 != 0) { stBranch += T.HWLOOP_BRANCH_EXTRA; return lpStart1; }
    armEnd1 = 1;
  }
  return npc;
}

/** Writes hardware-loop register `which` (0 start, 1 end, 2 count) of loop l. */
function setLoop(l: i32, which: i32, v: u32): void {
  if (l == 0) {
    if (which == 0) lpStart0 = v;
    else if (which == 1) lpEnd0 = v;
    else lpCount0 = v;
    armEnd0 = lpCount0 != 0 ? lpEnd0 : 1;
  } else {
    if (which == 0) lpStart1 = v;
    else if (which == 1) lpEnd1 = v;
    else lpCount1 = v;
    armEnd1 = lpCount1 != 0 ? lpEnd1 : 1;
  }
}

// ---- traps ----

let trapTaken = false;
let trapTarget: u32 = 0;

/** ecall: a7 = 93 exit(a0); a7 = 64 write(fd a0, buf a1, len a2) to the console; otherwise a trap to mtvec (mcause
 * 11), or a stop (STOP_ECALL) when no trap vector is set. */
function ecall(pc: u32): void {
  const a7 = rg(17 << 2);
  if (a7 == 93) {
    exitCode = rg(10 << 2);
    stop = STOP_EXIT;
    return;
  }
  if (a7 == 64) {
    const buf = <u32>rg(11 << 2);
    const len = rg(12 << 2);
    for (let i = 0; i < len; i++) {
      const lin = linearOf(buf + <u32>i, 1);
      if (lin == 0) { fault(F.FAULT_LOAD_OUTSIDE, pc, buf + <u32>i, 1, findRegion(buf + <u32>i, 1)); return; }
      consolePut(<i32>load<u8>(lin));
    }
    wr(10 << 2, len);
    if (consoleFull()) stop = STOP_OUTPUT;
    return;
  }
  if (mtvec != 0) {
    mepc = pc;
    mcause = 11;
    trapTarget = mtvec & ~3;
    trapTaken = true;
    return;
  }
  stop = STOP_ECALL;
}

// ---- semihosting (RISC-V semihosting: slli x0,x0,0x1f; ebreak; srai x0,x0,7, all uncompressed) ----

function isSemihostCall(pc: u32): bool {
  const before = linearOf(pc - 4, 4);
  const after = linearOf(pc + 4, 4);
  return before != 0 && after != 0 && load<u32>(before) == SEMIHOST_PRE && load<u32>(after) == SEMIHOST_POST;
}

// ---- CSRs ----

const CSR_MSTATUS: i32 = 0x300;
const CSR_MISA: i32 = 0x301;
const CSR_MIE: i32 = 0x304;
const CSR_MTVEC: i32 = 0x305;
const CSR_MSCRATCH: i32 = 0x340;
const CSR_MEPC: i32 = 0x341;
const CSR_MCAUSE: i32 = 0x342;
const CSR_MTVAL: i32 = 0x343;
const CSR_MIP: i32 = 0x344;
const CSR_MCYCLE: i32 = 0xb00;
const CSR_MINSTRET: i32 = 0xb02;
const CSR_MCYCLEH: i32 = 0xb80;
const CSR_MINSTRETH: i32 = 0xb82;
const CSR_CYCLE: i32 = 0xc00;
const CSR_INSTRET: i32 = 0xc02;
const CSR_CYCLEH: i32 = 0xc80;
const CSR_INSTRETH: i32 = 0xc82;
const CSR_MVENDORID: i32 = 0xf11;
const CSR_MARCHID: i32 = 0xf12;
const CSR_MIMPID: i32 = 0xf13;
const CSR_MHARTID: i32 = 0xf14;
/** Hardware-loop CSRs (CV32E40P v1.0.0 manual, "Control and Status Registers": lpstart0 0x800 ... lpcount1 0x806). */
const CSR_LPSTART0: i32 = 0x800;
/** misa: MXL = 1 (32-bit), I, M, C, X (non-standard extensions present). */
const MISA_VALUE: u32 = 0x4000_0000 | (1 << 8) | (1 << 12) | (1 << 2) | (1 << 23);
/** marchid of CV32E40P (RISC-V International's list: 4). */
const MARCHID_CV32E40P: u32 = 4;

/** Executes a CSR instruction; false (with an illegal-instruction fault) for an unknown CSR or a read-only write. */
function csrOp(e: usize, rd: usize, r1: usize, pc: u32, retired: i32): void {
  const csr = load<i32>(e + S_IMM) & 0xfff;
  const x = load<i32>(e + S_IMM2);
  const kind = x & 3; // 1 rw, 2 rs, 3 rc
  const src = load<u8>(e + S_MODE) != 0 ? (x >> 8) & 31 : rg(r1);
  const rawRs1 = r1 >> 2;
  const immForm = load<u8>(e + S_MODE) != 0;
  // csrrs/csrrc with rs1 = x0 (or uimm 0) read only
  const writes = kind == 1 || (immForm ? ((x >> 8) & 31) != 0 : rawRs1 != 0);
  const cycNow = cyclesAt(retired - 1);
  let old: u32 = 0;
  let slow = false;
  let readOnly = false;
  if (csr == CSR_MSTATUS) { old = mstatus; slow = true; }
  else if (csr == CSR_MISA) { old = MISA_VALUE; }
  else if (csr == CSR_MIE) { old = mie; }
  else if (csr == CSR_MTVEC) { old = mtvec; slow = true; }
  else if (csr == CSR_MSCRATCH) { old = mscratch; }
  else if (csr == CSR_MEPC) { old = mepc; slow = true; }
  else if (csr == CSR_MCAUSE) { old = mcause; slow = true; }
  else if (csr == CSR_MTVAL) { old = mtval; }
  else if (csr == CSR_MIP) { old = 0; }
  else if (csr == CSR_MCYCLE || csr == CSR_CYCLE) { old = <u32>cycNow; slow = true; readOnly = csr == CSR_CYCLE; }
  else if (csr == CSR_MCYCLEH || csr == CSR_CYCLEH) { old = <u32>(cycNow >> 32); slow = true; readOnly = csr == CSR_CYCLEH; }
  else if (csr == CSR_MINSTRET || csr == CSR_INSTRET) { old = <u32>(instret + <i64>retired - 1); slow = true; readOnly = csr == CSR_INSTRET; }
  else if (csr == CSR_MINSTRETH || csr == CSR_INSTRETH) { old = <u32>((instret + <i64>retired - 1) >> 32); slow = true; readOnly = csr == CSR_INSTRETH; }
  else if (csr == CSR_MVENDORID || csr == CSR_MIMPID) { old = 0; readOnly = true; }
  else if (csr == CSR_MARCHID) { old = MARCHID_CV32E40P; readOnly = true; }
  else if (csr == CSR_MHARTID) { old = <u32>hart; readOnly = true; }
  else if (csr >= CSR_LPSTART0 && csr <= CSR_LPSTART0 + 6 && csr != CSR_LPSTART0 + 3) {
    const i = csr - CSR_LPSTART0;
    const l = i >= 4 ? 1 : 0;
    const which = i & 3;
    old = l == 0 ? (which == 0 ? lpStart0 : which == 1 ? lpEnd0 : lpCount0) : (which == 0 ? lpStart1 : which == 1 ? lpEnd1 : lpCount1);
  } else {
    fault(F.FAULT_ILLEGAL, pc, pc, 4, findRegion(pc, 2));
    return;
  }
  if (writes && readOnly) {
    fault(F.FAULT_ILLEGAL, pc, pc, 4, findRegion(pc, 2));
    return;
  }
  if (slow) stMulti += T.SLOW_CSR_EXTRA;
  if (writes) {
    const v: u32 = kind == 1 ? <u32>src : kind == 2 ? old | <u32>src : old & ~<u32>src;
    if (csr == CSR_MSTATUS) mstatus = v;
    else if (csr == CSR_MIE) mie = v;
    else if (csr == CSR_MTVEC) mtvec = v;
    else if (csr == CSR_MSCRATCH) mscratch = v;
    else if (csr == CSR_MEPC) mepc = v & ~1;
    else if (csr == CSR_MCAUSE) mcause = v;
    else if (csr == CSR_MTVAL) mtval = v;
    else if (csr >= CSR_LPSTART0 && csr <= CSR_LPSTART0 + 6) {
      const i = csr - CSR_LPSTART0;
      setLoop(i >= 4 ? 1 : 0, i & 3, v);
    }
    // ASSUMPTION: writes to misa, mip and the counters are ignored (counters keep counting)
  }
  wr(rd, <i32>old);
}

// ---- the less frequent ALU and SIMD operations ----

function aluOther(op: i32, e: usize, rd: usize, r1: usize, r2: usize, imm: i32): bool {
  const a = rg(r1);
  switch (op) {
    case O.OP_P_ABS: wr(rd, a < 0 ? -a : a); return true;
    case O.OP_P_SLET: wr(rd, a <= rg(r2) ? 1 : 0); return true;
    case O.OP_P_SLETU: wr(rd, <u32>a <= <u32>rg(r2) ? 1 : 0); return true;
    case O.OP_P_MIN: { const b = rg(r2); wr(rd, a < b ? a : b); return true; }
    case O.OP_P_MINU: { const b = rg(r2); wr(rd, <u32>a < <u32>b ? a : b); return true; }
    case O.OP_P_MAX: { const b = rg(r2); wr(rd, a > b ? a : b); return true; }
    case O.OP_P_MAXU: { const b = rg(r2); wr(rd, <u32>a > <u32>b ? a : b); return true; }
    case O.OP_P_EXTHS: wr(rd, a << 16 >> 16); return true;
    case O.OP_P_EXTHZ: wr(rd, a & 0xffff); return true;
    case O.OP_P_EXTBS: wr(rd, a << 24 >> 24); return true;
    case O.OP_P_EXTBZ: wr(rd, a & 0xff); return true;
    case O.OP_P_CLIPR: {
      const b = rg(r2);
      const lo = -(b + 1);
      wr(rd, a <= lo ? lo : a >= b ? b : a);
      return true;
    }
    case O.OP_P_CLIPUR: {
      const b = rg(r2);
      wr(rd, a <= 0 ? 0 : a >= b ? b : a);
      return true;
    }
    case O.OP_P_FF1: wr(rd, a == 0 ? 32 : <i32>ctz<u32>(<u32>a)); return true;
    case O.OP_P_FL1: wr(rd, a == 0 ? 32 : 31 - <i32>clz<u32>(<u32>a)); return true;
    // ASSUMPTION: clb counts the redundant sign bits (consecutive bits equal to bit 31, minus one); 0 for 0
    case O.OP_P_CLB: wr(rd, a == 0 ? 0 : <i32>clz<u32>(<u32>(a ^ (a >> 31))) - 1); return true;
    case O.OP_P_CNT: wr(rd, <i32>popcnt<u32>(<u32>a)); return true;
    case O.OP_P_ROR: wr(rd, <i32>rotr<u32>(<u32>a, <u32>(rg(r2) & 31))); return true;
    case O.OP_P_EXTRACT: case O.OP_P_EXTRACTU: case O.OP_P_INSERT: case O.OP_P_BCLR: case O.OP_P_BSET: {
      let pos: i32, width: i32;
      if (load<u8>(e + S_MODE) != 0) { const b = rg(r2); pos = b & 31; width = ((b >> 5) & 31) + 1; }
      else { pos = imm; width = load<i32>(e + S_IMM2) + 1; }
      const mask: u32 = width >= 32 ? 0xffff_ffff : (<u32>1 << <u32>width) - 1;
      if (op == O.OP_P_EXTRACTU) wr(rd, <i32>((<u32>a >> <u32>pos) & mask));
      else if (op == O.OP_P_EXTRACT) {
        const v = <i64>((<u32>a >> <u32>pos) & mask);
        wr(rd, <i32>((v << (64 - width)) >> (64 - width)));
      } else if (op == O.OP_P_INSERT) {
        const m = mask << <u32>pos;
        wr(rd, <i32>((<u32>rg(rd) & ~m) | ((<u32>a << <u32>pos) & m)));
      } else if (op == O.OP_P_BCLR) wr(rd, <i32>(<u32>a & ~(mask << <u32>pos)));
      else wr(rd, <i32>(<u32>a | (mask << <u32>pos)));
      return true;
    }
    default:
      return simdOther(op, e, rd, a);
  }
}

// @ts-ignore: decorator
@inline function sx8(v: i32, lane: i32): i32 { return (v << (24 - (lane << 3))) >> 24; }
// @ts-ignore: decorator
@inline function zx8(v: i32, lane: i32): i32 { return (v >>> (lane << 3)) & 0xff; }
// @ts-ignore: decorator
@inline function sx16(v: i32, lane: i32): i32 { return (v << (16 - (lane << 4))) >> 16; }
// @ts-ignore: decorator
@inline function zx16(v: i32, lane: i32): i32 { return (v >>> (lane << 4)) & 0xffff; }

/** One lane of a lane-wise SIMD op; x, y: the lanes sign- or zero-extended as the op needs; bits: lane width. */
function lane(op: i32, x: i32, y: i32, bits: i32): i32 {
  const mask = (1 << bits) - 1;
  switch (op) {
    case O.OP_PV_ADD_H: case O.OP_PV_ADD_B: return x + y;
    case O.OP_PV_SUB_H: case O.OP_PV_SUB_B: return x - y;
    // avg: the lane-width sum shifted right, arithmetic for avg, logical for avgu (manual: "SIMD ALU Operations")
    case O.OP_PV_AVG_H: case O.OP_PV_AVG_B: { const t = (x + y) & mask; return ((t << (32 - bits)) >> (32 - bits)) >> 1; }
    case O.OP_PV_AVGU_H: case O.OP_PV_AVGU_B: return ((x + y) & mask) >>> 1;
    case O.OP_PV_MIN_H: case O.OP_PV_MIN_B: case O.OP_PV_MINU_H: case O.OP_PV_MINU_B: return x < y ? x : y;
    case O.OP_PV_MAX_H: case O.OP_PV_MAX_B: case O.OP_PV_MAXU_H: case O.OP_PV_MAXU_B: return x > y ? x : y;
    // shifts: ASSUMPTION the shift amount is the lane's low log2(width) bits
    case O.OP_PV_SRL_H: case O.OP_PV_SRL_B: return (x & mask) >>> (y & (bits - 1));
    case O.OP_PV_SRA_H: case O.OP_PV_SRA_B: return x >> (y & (bits - 1));
    case O.OP_PV_SLL_H: case O.OP_PV_SLL_B: return x << (y & (bits - 1));
    case O.OP_PV_ABS_H: case O.OP_PV_ABS_B: return x < 0 ? -x : x;
    default: return 0;
  }
}

function signedLanes(op: i32): bool {
  return !(op == O.OP_PV_MINU_H || op == O.OP_PV_MINU_B || op == O.OP_PV_MAXU_H || op == O.OP_PV_MAXU_B
    || op == O.OP_PV_AVGU_H || op == O.OP_PV_AVGU_B || op == O.OP_PV_SRL_H || op == O.OP_PV_SRL_B);
}

function simdOther(op: i32, e: usize, rd: usize, a: i32): bool {
  if (op >= O.OP_PV_ADD_H && op <= O.OP_PV_ABS_B && op != O.OP_PV_OR && op != O.OP_PV_XOR && op != O.OP_PV_AND) {
    const isB = op == O.OP_PV_ADD_B || op == O.OP_PV_SUB_B || op == O.OP_PV_AVG_B || op == O.OP_PV_AVGU_B
      || op == O.OP_PV_MIN_B || op == O.OP_PV_MINU_B || op == O.OP_PV_MAX_B || op == O.OP_PV_MAXU_B
      || op == O.OP_PV_SRL_B || op == O.OP_PV_SRA_B || op == O.OP_PV_SLL_B || op == O.OP_PV_ABS_B;
    const b = isB ? op2B(e) : op2H(e);
    const signed = signedLanes(op);
    let r: i32 = 0;
    if (isB) {
      for (let i = 0; i < 4; i++) {
        const x = signed ? sx8(a, i) : zx8(a, i);
        const y = signed ? sx8(b, i) : zx8(b, i);
        r |= (lane(op, x, y, 8) & 0xff) << (i << 3);
      }
    } else {
      for (let i = 0; i < 2; i++) {
        const x = signed ? sx16(a, i) : zx16(a, i);
        const y = signed ? sx16(b, i) : zx16(b, i);
        r |= (lane(op, x, y, 16) & 0xffff) << (i << 4);
      }
    }
    wr(rd, r);
    return true;
  }
  switch (op) {
    case O.OP_PV_OR: wr(rd, a | op2B(e)); return true; // the .sci immediate is replicated per lane width already
    case O.OP_PV_XOR: wr(rd, a ^ op2B(e)); return true;
    case O.OP_PV_AND: wr(rd, a & op2B(e)); return true;
    case O.OP_PV_EXTRACT_H: wr(rd, sx16(a, load<i32>(e + S_IMM))); return true;
    case O.OP_PV_EXTRACT_B: wr(rd, sx8(a, load<i32>(e + S_IMM))); return true;
    case O.OP_PV_EXTRACTU_H: wr(rd, zx16(a, load<i32>(e + S_IMM))); return true;
    case O.OP_PV_EXTRACTU_B: wr(rd, zx8(a, load<i32>(e + S_IMM))); return true;
    case O.OP_PV_INSERT_H: {
      const sh = load<i32>(e + S_IMM) << 4;
      wr(rd, (rg(rd) & ~(0xffff << sh)) | ((a & 0xffff) << sh));
      return true;
    }
    case O.OP_PV_INSERT_B: {
      const sh = load<i32>(e + S_IMM) << 3;
      wr(rd, (rg(rd) & ~(0xff << sh)) | ((a & 0xff) << sh));
      return true;
    }
    case O.OP_PV_DOTUP_H: { const b = op2H(e); wr(rd, zx16(a, 0) * zx16(b, 0) + zx16(a, 1) * zx16(b, 1)); return true; }
    case O.OP_PV_DOTUSP_H: { const b = op2H(e); wr(rd, zx16(a, 0) * sx16(b, 0) + zx16(a, 1) * sx16(b, 1)); return true; }
    case O.OP_PV_DOTSP_H: { const b = op2H(e); wr(rd, sx16(a, 0) * sx16(b, 0) + sx16(a, 1) * sx16(b, 1)); return true; }
    case O.OP_PV_SDOTUP_H: { const b = op2H(e); wr(rd, rg(rd) + zx16(a, 0) * zx16(b, 0) + zx16(a, 1) * zx16(b, 1)); return true; }
    case O.OP_PV_SDOTUSP_H: { const b = op2H(e); wr(rd, rg(rd) + zx16(a, 0) * sx16(b, 0) + zx16(a, 1) * sx16(b, 1)); return true; }
    case O.OP_PV_SDOTSP_H: { const b = op2H(e); wr(rd, rg(rd) + sx16(a, 0) * sx16(b, 0) + sx16(a, 1) * sx16(b, 1)); return true; }
    case O.OP_PV_DOTUP_B: case O.OP_PV_DOTUSP_B: case O.OP_PV_DOTSP_B: {
      const b = op2B(e);
      let s = 0;
      for (let i = 0; i < 4; i++) {
        const x = op == O.OP_PV_DOTSP_B ? sx8(a, i) : zx8(a, i);
        const y = op == O.OP_PV_DOTUP_B ? zx8(b, i) : sx8(b, i);
        s += x * y;
      }
      wr(rd, s);
      return true;
    }
    case O.OP_PV_SHUFFLE_H: {
      const b = load<u8>(e + S_MODE) == MODE_SCI ? load<i32>(e + S_IMM) : rg(<usize>load<u8>(e + S_RS2));
      wr(rd, (zx16(a, (b >> 16) & 1) << 16) | zx16(a, b & 1));
      return true;
    }
    case O.OP_PV_SHUFFLE_B: {
      const b = load<u8>(e + S_MODE) == MODE_SCI ? load<i32>(e + S_IMM) : rg(<usize>load<u8>(e + S_RS2));
      let r = 0;
      for (let i = 0; i < 4; i++) r |= zx8(a, (b >> (i << 3)) & 3) << (i << 3);
      wr(rd, r);
      return true;
    }
    case O.OP_PV_SHUFFLE2_H: {
      const b = rg(<usize>load<u8>(e + S_RS2));
      const old = rg(rd);
      let r = 0;
      for (let i = 0; i < 2; i++) {
        const sel = b >> (i << 4);
        r |= zx16((sel & 2) != 0 ? a : old, sel & 1) << (i << 4);
      }
      wr(rd, r);
      return true;
    }
    case O.OP_PV_SHUFFLE2_B: {
      const b = rg(<usize>load<u8>(e + S_RS2));
      const old = rg(rd);
      let r = 0;
      for (let i = 0; i < 4; i++) {
        const sel = b >> (i << 3);
        r |= zx8((sel & 4) != 0 ? a : old, sel & 3) << (i << 3);
      }
      wr(rd, r);
      return true;
    }
    case O.OP_PV_PACK: wr(rd, (a << 16) | (rg(<usize>load<u8>(e + S_RS2)) & 0xffff)); return true;
    case O.OP_PV_PACK_H: wr(rd, (a & 0xffff0000) | (rg(<usize>load<u8>(e + S_RS2)) >>> 16)); return true;
    case O.OP_PV_PACKHI_B: {
      const b = rg(<usize>load<u8>(e + S_RS2));
      wr(rd, (rg(rd) & 0x0000ffff) | ((a & 0xff) << 24) | ((b & 0xff) << 16));
      return true;
    }
    case O.OP_PV_PACKLO_B: {
      const b = rg(<usize>load<u8>(e + S_RS2));
      wr(rd, (rg(rd) & 0xffff0000) | ((a & 0xff) << 8) | (b & 0xff));
      return true;
    }
    default:
      return false;
  }
}
