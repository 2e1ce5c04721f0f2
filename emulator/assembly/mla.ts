// SpiNNaker2's per-PE machine-learning accelerator (MLA), matrix-multiply mode: 16 x 4 int8 MACs, output-stationary,
// 32-bit results (HARDWARE.md "MLA"). Requantization is not modelled in the MLA: the firmware does it on the core
// (HARDWARE.md: the output stage's semantics are not public). Parameters in chips/spinnaker2.ts.
//
// mla_start(a, b, out, M, N, K, strides, flags) computes out[m][n] = sum_k A(m, k) * B(k, n) as int32 (wrapping),
// with A(m, k) the byte at a + m*aRow + k*aK and B(k, n) the byte at b + k*bK + n*bCol, each signed or unsigned by
// flags bit 0 (A) and bit 1 (B); out rows are outRow bytes apart, each N int32. All in the running PE's SRAM.
// It returns at once: the core may work while the array runs (docs/timing.md). mla_wait() sleeps until the job is
// done and only then writes the results, reading the operands as they are then: firmware that reads the results
// early, or overwrites an operand while the job runs, gets wrong outputs, as it would on the chip.

import { clockQ, currentAgent, isPeMode, MAX_AGENTS, NO_AGENT, spend, waitUntil } from "./agents";
import { Q } from "./cost";
import { currentLayer, msgLayer, recordMla } from "./events";
import { msgBegin, msgDec, msgText, raise } from "./fault";
import { regionAt, region_linear_base, region_size } from "./regions";
import { S2_MLA_COLS, S2_MLA_DRAIN, S2_MLA_ROWS, S2_MLA_SETUP } from "./chips/spinnaker2";

@unmanaged class Job {
  /** 1 while started and not waited for. */
  open: i32;
  m: i32;
  n: i32;
  k: i32;
  aRow: i32;
  aK: i32;
  bK: i32;
  bCol: i32;
  outRow: i32;
  flags: i32;
  a: usize;
  b: usize;
  out: usize;
  pad: i32;
  end: i64;
}

const RECORD: usize = 64;
const JOBS = memory.data(MAX_AGENTS * <i32>RECORD, 16);

// @ts-ignore: decorator
@inline function job(pe: i32): Job {
  return changetype<Job>(JOBS + <usize>pe * RECORD);
}

export function resetMla(): void {
  assert(offsetof<Job>() <= RECORD);
  memory.fill(JOBS, 0, MAX_AGENTS * <i32>RECORD);
}

/** PE `pe` has a job started and not waited for. */
export function mlaOpen(pe: i32): bool {
  return job(pe).open != 0;
}

function fail(why: string): void {
  msgBegin("mla: ");
  msgText(why);
  msgLayer();
  raise();
}

function checkOperand(name: string, pe: i32, ptr: usize, extent: i64): void {
  const r = 1 + pe;
  if (regionAt(ptr) == r && <i64>(ptr - region_linear_base(r)) + extent <= <i64>region_size(r)) return;
  msgBegin("mla_start: operand ");
  msgText(name);
  msgText(" (");
  msgDec(extent);
  msgText(" bytes) does not lie in the running PE's SRAM (PE ");
  msgDec(pe);
  msgText(")");
  msgLayer();
  raise();
}

export function mla_start(
  a: usize, b: usize, out: usize, m: i32, n: i32, k: i32,
  aRow: i32, aK: i32, bK: i32, bCol: i32, outRow: i32, flags: i32,
): void {
  const pe = currentAgent();
  if (pe == NO_AGENT) fail("no PE is running");
  if (!isPeMode()) fail("this chip has no MLA");
  if (mlaOpen(pe)) fail("a job is still running on this PE (mla_wait first)");
  if (m <= 0 || n <= 0 || k <= 0) fail("M, N and K must be positive");
  if (aRow < 0 || aK < 0 || bK < 0 || bCol < 0 || outRow < n * 4) fail("strides must be >= 0 and output rows hold N int32");
  checkOperand("A", pe, a, <i64>(m - 1) * aRow + <i64>(k - 1) * aK + 1);
  checkOperand("B", pe, b, <i64>(k - 1) * bK + <i64>(n - 1) * bCol + 1);
  checkOperand("out", pe, out, <i64>(m - 1) * outRow + <i64>n * 4);
  spend(pe, S2_MLA_SETUP << Q);
  const j = job(pe);
  j.open = 1;
  j.m = m;
  j.n = n;
  j.k = k;
  j.aRow = aRow;
  j.aK = aK;
  j.bK = bK;
  j.bCol = bCol;
  j.outRow = outRow;
  j.flags = flags;
  j.a = a;
  j.b = b;
  j.out = out;
  const blocks = <i64>((m + S2_MLA_ROWS - 1) / S2_MLA_ROWS) * <i64>((n + S2_MLA_COLS - 1) / S2_MLA_COLS);
  const start = clockQ(pe);
  j.end = start + ((blocks * (<i64>k + S2_MLA_DRAIN)) << Q);
  recordMla(pe, currentLayer(), <i32>blocks, start >> Q, j.end >> Q);
}

/** The running PE sleeps until its job is done; the results are written now. */
export function mla_wait(): void {
  const pe = currentAgent();
  if (pe == NO_AGENT) fail("no PE is running");
  const j = job(pe);
  if (j.open == 0) fail("mla_wait without a job started");
  waitUntil(pe, j.end);
  const f = j.flags & 3;
  if (f == 3) run<i8, i8>(j);
  else if (f == 1) run<i8, u8>(j);
  else if (f == 2) run<u8, i8>(j);
  else run<u8, u8>(j);
  j.open = 0;
}

function run<TA, TB>(j: Job): void {
  const k = j.k;
  for (let m = 0; m < j.m; m++) {
    const arow = j.a + <usize>(m * j.aRow);
    const orow = j.out + <usize>(m * j.outRow);
    for (let n = 0; n < j.n; n++) {
      let acc: i32 = 0;
      let pa = arow;
      let pb = j.b + <usize>(n * j.bCol);
      for (let i = 0; i < k; i++) {
        acc += <i32>load<TA>(pa) * <i32>load<TB>(pb);
        pa += <usize>j.aK;
        pb += <usize>j.bK;
      }
      store<i32>(orow + (<usize>n << 2), acc);
    }
  }
}

/** Every job was waited for (the runtime's check after the firmware returns; pes.ts checks at each signal). */
export function mla_busy(): i32 {
  for (let p = 0; p < MAX_AGENTS; p++) if (job(p).open != 0) return p;
  return -1;
}

export function mla_peak_macs(): i32 {
  return S2_MLA_ROWS * S2_MLA_COLS;
}
