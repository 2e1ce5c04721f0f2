// Gemmini faults: one line naming the command, the reason and, where there is one, the local address (row and
// memory) or the main-memory range, then the open layer. The emulator traps after writing it (fault.ts).

import { msgLayer } from "../events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "../fault";
import { ACC_ROWS, GEMMINI_DRAM_BASE, GEMMINI_DRAM_BYTES, SPAD_ROWS } from "../chips/gemmini";

function begin(cmd: string, why: string): void {
  msgBegin("gemmini ");
  msgText(cmd);
  msgText(": ");
  msgText(why);
}

export function fail(cmd: string, why: string): void {
  begin(cmd, why);
  msgLayer();
  raise();
}

/** A fault with a number after the reason: "rows 17 (at most 16)". */
export function failValue(cmd: string, why: string, value: i64, after: string): void {
  begin(cmd, why);
  msgDec(value);
  msgText(after);
  msgLayer();
  raise();
}

/** A local address fault: the address, the row it reaches and the memory it names. */
export function failLocal(cmd: string, why: string, local: u32, row: i64, acc: bool): void {
  begin(cmd, why);
  msgText(" (local address ");
  msgHex(local);
  msgText(", row ");
  msgDec(row);
  msgText(acc ? ", accumulator of " : ", scratchpad of ");
  msgDec(acc ? ACC_ROWS : SPAD_ROWS);
  msgText(" rows)");
  msgLayer();
  raise();
}

/** A main-memory range outside the DRAM region. */
export function failDram(cmd: string, addr: u64, bytes: i64): void {
  begin(cmd, "main memory out of range");
  msgText(" (");
  msgDec(bytes);
  msgText(" bytes at ");
  if (addr >> 63 != 0) {
    msgText("an address above 2^63");
  } else if (addr >> 32 != 0) {
    msgText("address "); // beyond 32 bits: in decimal
    msgDec(<i64>addr);
  } else {
    msgHex(<u32>addr);
  }
  msgText(", region DRAM is ");
  msgHex(GEMMINI_DRAM_BASE);
  msgText("..");
  msgHex(GEMMINI_DRAM_BASE + GEMMINI_DRAM_BYTES);
  msgText(")");
  msgLayer();
  raise();
}
