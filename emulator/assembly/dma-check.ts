// The DMA's checks and fault messages (dma.ts is the device): every message names the call, the channel and the
// transfer, and for an address the chip address, its region and the layer (docs/firmware-abi.md, "Faults").

import { Transfer } from "./dma-transfer";
import { msgLayer } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { msgAddress, regionAt, region_linear_base, region_size } from "./regions";

/** mchan v7: 16 channel ids and a 17-bit length field, bits 0..16 of the command word (HARDWARE.md). */
export const CHANNELS: i32 = 16;
export const MAX_BYTES: i32 = 131071;

export function msgAgent(a: i32): void {
  if (a == 0) {
    msgText("master");
  } else {
    msgText("core");
    msgDec(a - 1);
  }
}

/** The channel must exist and be allocated (bit i of `allocated`). */
export function checkChannel(op: string, ch: i32, allocated: i32): void {
  if (<u32>ch >= <u32>CHANNELS) {
    msgBegin(op);
    msgText(": channel ");
    msgDec(ch);
    msgText(" does not exist (0..");
    msgDec(CHANNELS - 1);
    msgText(")");
    raise();
  }
  if ((allocated & (1 << ch)) == 0) {
    msgBegin(op);
    msgText(": channel ");
    msgDec(ch);
    msgText(" is not allocated");
    raise();
  }
}

/** "dma_copy on channel C, N bytes into L1: " */
export function msgCopy(ch: i32, bytes: i32, toL1: i32): void {
  msgBegin("dma_copy on channel ");
  msgDec(ch);
  msgText(", ");
  msgDec(bytes);
  msgText(toL1 != 0 ? " bytes into L1: " : " bytes out of L1: ");
}

/** The side [ptr, ptr + extent) must lie inside one region of `allowed` (bit mask); else a fault naming it. */
export function checkSide(ch: i32, bytes: i32, toL1: i32, side: string, allowed: string, mask: i32, ptr: usize, extent: i64): void {
  const r = regionAt(ptr);
  const inside = r >= 0 && <i64>(ptr - region_linear_base(r)) + extent <= <i64>region_size(r);
  if (r >= 0 && (mask & (1 << r)) != 0 && inside) return;
  msgCopy(ch, bytes, toL1);
  msgText("the ");
  msgText(side);
  msgText(" side must lie inside ");
  msgText(allowed);
  msgText(", got ");
  msgDec(extent);
  msgText(" bytes at ");
  msgAddress(ptr, r);
  if (r >= 0 && !inside) {
    msgText(", runs past its end by ");
    msgDec(<i64>(ptr - region_linear_base(r)) + extent - <i64>region_size(r));
    msgText(" bytes");
  }
  msgText(")");
  msgLayer();
  raise();
}

export function checkRows(ch: i32, bytes: i32, toL1: i32, side: string, length: i32, stride: i32): void {
  if (length >= 0 && stride >= 0) return;
  msgCopy(ch, bytes, toL1);
  msgText(side);
  msgText(" row length and stride must be >= 0 (0: contiguous), got ");
  msgDec(length);
  msgText(" and ");
  msgDec(stride);
  raise();
}

export function checkSize(ch: i32, bytes: i32, toL1: i32): void {
  if (bytes > 0 && bytes <= MAX_BYTES) return;
  msgCopy(ch, bytes, toL1);
  if (bytes <= 0) {
    msgText("a transfer moves 1 to 131071 bytes");
  } else {
    msgText("more than one transfer can move: 131071 bytes, the 17-bit length of an mchan v7 command; split it");
  }
  raise();
}

/** A copy naming a channel other than its core's active one (the last it allocated; -1: none). */
export function checkActive(ch: i32, bytes: i32, toL1: i32, agent: i32, active: i32): void {
  if (ch == active) return;
  msgCopy(ch, bytes, toL1);
  msgText("on the chip a command counts on the channel its core allocated last, here ");
  msgDec(active);
  msgText(" (");
  msgAgent(agent);
  msgText("): allocate, then issue");
  raise();
}

/** The firmware ended with `pending` transfers never waited for; `t` is the first issued. */
export function finishFault(pending: i32, t: Transfer): void {
  msgBegin("dma: the firmware ended with ");
  msgDec(pending);
  msgText(" transfer(s) never waited for; the first: channel ");
  msgDec(t.channel);
  msgText(", ");
  msgDec(t.bytes);
  msgText(" bytes from ");
  const src = t.toL1 != 0 ? t.ext : t.l1;
  const dst = t.toL1 != 0 ? t.l1 : t.ext;
  msgAddress(src, regionAt(src));
  msgText(") to ");
  msgAddress(dst, regionAt(dst));
  msgText("), issued by ");
  msgAgent(t.agent);
  if (t.layer >= 0) {
    msgText(" in layer ");
    msgDec(t.layer);
  }
  raise();
}
