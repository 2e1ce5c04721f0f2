// Where the cycles go, per instruction address (`gen run --on iss --hotspots`): every instruction's cycles (its
// issue cycle plus the stalls charged before the next instruction of the same hart starts, sleep included) are added
// to the slot of its pc, summed over harts. Off unless the runtime hands a buffer over; when on it costs the run loop
// one subtraction and two adds per instruction.

/** Instruction addresses covered: [pBase, pBase + pSize), one slot per 2 bytes, plus one slot for everything else. */
let pBase: u32 = 0;
let pSize: u32 = 0;
/** Per slot two f64: cycles, instructions. */
let pBuf: usize = 0;
export let profileOn: bool = false;
/** The one hart profiled, or -1 for all. */
export let profileHart: i32 = -1;
/** Only instructions that start in cycles [winLo, winHi) are charged (a layer's span: iss_profile_window). */
let winLo: i64 = 0;
let winHi: i64 = i64.MAX_VALUE;

/** Profiles [base, base + size) into `buf` (linear memory from iss_alloc: (size / 2 + 1) * 16 bytes, zeroed), every
 * hart or only `hart` (iss_profile_hart). */
export function iss_profile_hart(hart: i32): void {
  profileHart = hart;
}

export function iss_profile(buf: usize, base: u32, size: u32): void {
  pBuf = buf;
  pBase = base;
  pSize = size;
  profileOn = buf != 0;
  winLo = 0;
  winHi = i64.MAX_VALUE;
}

/** Charges only the instructions that start in cycles [lo, hi) of their hart's clock (after iss_profile). */
export function iss_profile_window(lo: f64, hi: f64): void {
  winLo = <i64>lo;
  winHi = <i64>hi;
}

/** Charges `cycles` and `count` retired instructions (0 or 1) to the instruction at `pc` that started at cycle
 * `start` (none outside the window); pc 1 (a hart's clock before its first instruction, e.g. a core woken late) and
 * pcs outside the range go to the last slot. */
// @ts-ignore: decorator
@inline export function profileCharge(pc: u32, start: i64, cycles: i64, count: i32): void {
  if (start < winLo || start >= winHi) return;
  const off = pc - pBase;
  const slot = off < pSize ? off >> 1 : pSize >> 1;
  const at = pBuf + (<usize>slot << 4);
  store<f64>(at, load<f64>(at) + <f64>cycles);
  store<f64>(at + 8, load<f64>(at + 8) + <f64>count);
}
