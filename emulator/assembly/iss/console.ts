// Console output of the programs (semihosting writes, ecall write, the simulation-control putchar), kept until the
// host drains it. When it is half full the core stops (STOP_OUTPUT) so the host can drain and resume; a single
// write longer than the free space is cut at the capacity.

const CAP: i32 = 16384;
const BUF = memory.data(CAP);
let len: i32 = 0;

export function consolePut(c: i32): void {
  if (len < CAP) {
    store<u8>(BUF + <usize>len, <u8>c);
    len++;
  }
}

export function consoleFull(): bool {
  return len >= CAP / 2;
}

export function consolePtr(): usize { return BUF; }
export function consoleLength(): i32 { return len; }
export function consoleClear(): void { len = 0; }
