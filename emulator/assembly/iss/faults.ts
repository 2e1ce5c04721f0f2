// The fault record of the core: the first fault stops the hart and is kept here until the host reads it
// (iss_fault_*). The host formats it as one line: kind name, hart, pc, instruction word, address, region.

export const FAULT_NONE: i32 = 0;
export const FAULT_ILLEGAL: i32 = 1;
export const FAULT_FETCH_MISALIGNED: i32 = 2;
export const FAULT_FETCH_OUTSIDE: i32 = 3;
export const FAULT_FETCH_NOEXEC: i32 = 4;
export const FAULT_LOAD_OUTSIDE: i32 = 5;
export const FAULT_STORE_OUTSIDE: i32 = 6;
export const FAULT_LOAD_NOREAD: i32 = 7;
export const FAULT_STORE_READONLY: i32 = 8;
export const FAULT_NO_DEVICE: i32 = 9;
export const FAULT_DEVICE_OFFSET: i32 = 10;
export const FAULT_SEMIHOST: i32 = 11;
export const FAULT_SEMIHOST_OP: i32 = 12;
/** A bad ELF image; size holds the ELF_* reason, addr the offending address or file offset. */
export const FAULT_ELF: i32 = 13;
/** Every hart of the cluster waits on another (iss/cluster.ts); addr: the event-unit register the last one read. */
export const FAULT_DEADLOCK: i32 = 14;
/** The cluster DMA was misused: a transfer outside memory, a bad size, a channel not allocated (cluster-dma.ts);
 * addr: the offending address or channel. */
export const FAULT_DMA: i32 = 15;
/** An event-unit misuse: dispatch to a core whose mailbox is full, a team size out of range (cluster-eu.ts). */
export const FAULT_EVENT_UNIT: i32 = 16;
/** A cluster core's sp left its stack (cluster.ts); addr: the sp. */
export const FAULT_STACK: i32 = 17;
export const ELF_NOT_ELF32_LE: i32 = 1;
export const ELF_NOT_RISCV_EXEC: i32 = 2;
export const ELF_TRUNCATED: i32 = 3;
export const ELF_OUTSIDE_REGIONS: i32 = 4;
export const ELF_NO_CODE_WINDOW: i32 = 5;

let kind: i32 = FAULT_NONE;
let hart: i32 = 0;
let pc: u32 = 0;
let insn: u32 = 0;
let addr: u32 = 0;
let size: i32 = 0;
let region: i32 = -1;

export function record(k: i32, h: i32, p: u32, word: u32, a: u32, s: i32, r: i32): void {
  kind = k;
  hart = h;
  pc = p;
  insn = word;
  addr = a;
  size = s;
  region = r;
}

export function clearFaultRecord(): void {
  kind = FAULT_NONE;
  region = -1;
}

export function faultKind(): i32 { return kind; }
export function faultHart(): i32 { return hart; }
export function faultPc(): u32 { return pc; }
export function faultInsn(): u32 { return insn; }
export function faultAddr(): u32 { return addr; }
export function faultSize(): i32 { return size; }
/** Region index (memory.ts) the address falls in, -1 if none. */
export function faultRegion(): i32 { return region; }
