// SpiNNaker2's per-PE DMA between a PE's own SRAM and the DRAM (HARDWARE.md "PE memory": a DMA controller per PE;
// "NoC": DMA between PE SRAMs and DRAM). Parameters in chips/spinnaker2.ts; the model in docs/timing.md.
//
// - pe_dma(local, dram, bytes, toLocal, rowLength, rowStride) returns a ticket at once; the DRAM side may be 2-D
//   (rows of rowLength bytes every rowStride bytes; rowLength 0: contiguous), the SRAM side is contiguous.
// - Each PE's DMA serves its transfers in order: start = max(issue, the PE's engine free), completion = start +
//   latency + bytes x max(PE rate, n x DRAM rate) per byte, n = PEs sharing the DRAM now (pes.ts activePes()).
// - Data lands at completion, observed at waits, as on the Siracusa DMA (dma.ts): pe_dma_wait(ticket) moves the PE's
//   clock to that transfer's completion and lands every transfer of that PE complete by then, reading the source as
//   it is then. Reading a destination before its wait shows the old bytes.

import { clockQ, currentAgent, MAX_AGENTS, NO_AGENT, spend, waitUntil } from "./agents";
import { Q } from "./cost";
import { currentLayer, msgLayer, recordDma } from "./events";
import { msgBegin, msgDec, msgHex, msgText, raise } from "./fault";
import { regionAt, region_chip_base, region_linear_base, region_size, msgAddress, region_count } from "./regions";
import { activePes } from "./pes";
import { S2_DMA_ISSUE, S2_DMA_LATENCY, S2_DMA_Q16_PER_BYTE, S2_DRAM_Q16_PER_BYTE } from "./chips/spinnaker2";

/** The detail word of the event log's dma records (events.ts): bytes in bits 0..16, 17 into SRAM, 19 2-D DRAM side. */
const MAX_BYTES: i32 = 131071;
const TO_LOCAL: i32 = 1 << 17;
const ROWS: i32 = 1 << 19;

@unmanaged class PeTransfer {
  /** The issuing PE; -1 marks a free slot. */
  pe: i32;
  toLocal: i32;
  bytes: i32;
  rowLength: i32;
  rowStride: i32;
  layer: i32;
  ticket: i32;
  pad: i32;
  local: usize;
  dram: usize;
  end: i64;
}

const RECORD: usize = 48;
const POOL: i32 = 2048;
const SLOTS = memory.data(<i32>(POOL * <i32>RECORD), 16);
const FREE_AT = memory.data(MAX_AGENTS * 8);
const OPEN = memory.data(MAX_AGENTS * 4);
let tickets: i32 = 0;
let top: i32 = 0;

// @ts-ignore: decorator
@inline function slot(i: i32): PeTransfer {
  return changetype<PeTransfer>(SLOTS + <usize>i * RECORD);
}

export function resetPeDma(): void {
  assert(offsetof<PeTransfer>() <= RECORD);
  for (let i = 0; i < POOL; i++) slot(i).pe = -1;
  memory.fill(FREE_AT, 0, MAX_AGENTS * 8);
  memory.fill(OPEN, 0, MAX_AGENTS * 4);
  tickets = 0;
  top = 0;
}

/** Transfers of PE `pe` issued and not yet waited for. */
export function peDmaOpen(pe: i32): i32 {
  return load<i32>(OPEN + (<usize>pe << 2));
}

function fail(why: string): void {
  msgBegin("pe_dma: ");
  msgText(why);
  msgLayer();
  raise();
}

/** [ptr, ptr + extent) must lie in region `r`; else a fault naming the side and the address. */
function checkSide(side: string, r: i32, ptr: usize, extent: i64): void {
  const at = regionAt(ptr);
  if (at == r && <i64>(ptr - region_linear_base(r)) + extent <= <i64>region_size(r)) return;
  msgBegin("pe_dma: the ");
  msgText(side);
  msgText(" side (");
  msgDec(extent);
  msgText(" bytes at ");
  msgAddress(ptr, at);
  msgText(")) must lie in ");
  msgText(r == 0 ? "the DRAM" : "the issuing PE's own SRAM");
  msgLayer();
  raise();
}

/** Starts a transfer of the running PE; returns its ticket for pe_dma_wait. */
export function pe_dma(local: usize, dram: usize, bytes: i32, toLocal: i32, rowLength: i32, rowStride: i32): i32 {
  const a = currentAgent();
  if (a == NO_AGENT) fail("no PE is running");
  if (region_count() < 2) fail("this chip has no PE DMA");
  if (bytes <= 0 || bytes > MAX_BYTES) fail("a transfer moves 1 to 131071 bytes");
  if (rowLength < 0 || rowStride < 0 || (rowLength > 0 && rowStride < rowLength)) {
    fail("rows need 0 <= length <= stride (length 0: contiguous)");
  }
  let extent: i64 = bytes;
  if (rowLength > 0 && rowLength < bytes) {
    const rows = (bytes + rowLength - 1) / rowLength;
    extent = <i64>(rows - 1) * <i64>rowStride + <i64>(bytes - (rows - 1) * rowLength);
  }
  checkSide("SRAM", 1 + a, local, bytes);
  checkSide("DRAM", 0, dram, extent);
  let i = 0;
  while (i < POOL && slot(i).pe >= 0) i++;
  if (i == POOL) fail("more than 2048 transfers issued and not waited for");
  top = max(top, i + 1);
  spend(a, S2_DMA_ISSUE << Q);
  const t = slot(i);
  t.pe = a;
  t.toLocal = toLocal != 0 ? 1 : 0;
  t.bytes = bytes;
  t.rowLength = rowLength > 0 && rowLength < bytes ? rowLength : 0;
  t.rowStride = rowStride;
  t.layer = currentLayer();
  t.ticket = tickets++;
  t.local = local;
  t.dram = dram;
  const perByte = max(S2_DMA_Q16_PER_BYTE, <i64>activePes() * S2_DRAM_Q16_PER_BYTE);
  const engine = FREE_AT + (<usize>a << 3);
  const start = max(clockQ(a), load<i64>(engine));
  t.end = start + (S2_DMA_LATENCY << Q) + <i64>bytes * perByte;
  store<i64>(engine, t.end);
  store<i32>(OPEN + (<usize>a << 2), peDmaOpen(a) + 1);
  recordDma(a, t.layer, bytes | (t.toLocal != 0 ? TO_LOCAL : 0) | (t.rowLength > 0 ? ROWS : 0), start >> Q, t.end >> Q);
  return t.ticket;
}

function land(t: PeTransfer): void {
  let done: i32 = 0;
  while (done < t.bytes) {
    let piece = t.bytes - done;
    let dram = t.dram + <usize>done;
    if (t.rowLength > 0) {
      piece = min(piece, t.rowLength);
      dram = t.dram + <usize>(done / t.rowLength) * <usize>t.rowStride;
    }
    if (t.toLocal != 0) memory.copy(t.local + <usize>done, dram, <usize>piece);
    else memory.copy(dram, t.local + <usize>done, <usize>piece);
    done += piece;
  }
}

/** The running PE sleeps until transfer `ticket` completes; its transfers complete by then land, in order. */
export function pe_dma_wait(ticket: i32): void {
  const a = currentAgent();
  if (a == NO_AGENT) fail("no PE is running");
  if (ticket < 0 || ticket >= tickets) {
    msgBegin("pe_dma_wait: no transfer has ticket ");
    msgDec(ticket);
    raise();
  }
  for (let i = 0; i < top; i++) {
    const t = slot(i);
    if (t.pe == a && t.ticket == ticket) waitUntil(a, t.end);
  }
  // The PE's engine is in order: every transfer it issued up to `ticket` is complete now; land them oldest first.
  const now = clockQ(a);
  for (;;) {
    let next = -1;
    for (let i = 0; i < top; i++) {
      const t = slot(i);
      if (t.pe == a && t.end <= now && (next < 0 || t.ticket < slot(next).ticket)) next = i;
    }
    if (next < 0) break;
    land(slot(next));
    slot(next).pe = -1;
    store<i32>(OPEN + (<usize>a << 2), peDmaOpen(a) - 1);
  }
  while (top > 0 && slot(top - 1).pe < 0) top--;
}

/** After the firmware returns: every transfer was waited for. */
export function pe_dma_finish(): void {
  for (let i = 0; i < top; i++) {
    const t = slot(i);
    if (t.pe < 0) continue;
    msgBegin("pe_dma: the firmware ended with a transfer never waited for: PE ");
    msgDec(t.pe);
    msgText(", ");
    msgDec(t.bytes);
    msgText(" bytes, DRAM ");
    msgHex(<u32>(t.dram - region_linear_base(0)) + region_chip_base(0));
    raise();
  }
}
