/**
 * Drives the emulator's Gemmini from JS as firmware would: the RoCC encodings of gemmini.h's macros (funct, rs1,
 * rs2; docs/gemmini.md), main-memory helpers, and a reference of SEMANTICS.md 3 "Gemmini" written independently of
 * the emulator: int32 wrapping accumulation, float32 scale with round half to even, int8 saturation, ReLU.
 */
import * as assert from 'uvu/assert';
import { createEmulator, readFault, readRegions, type EmulatorExports } from '../../runtime/node/emulator.js';

export const DRAM = 0x8000_0000;
export const GARBAGE = 0xffff_ffff;
export const ACC = 0x8000_0000;
export const ACC_ADD = 0xc000_0000;
export const ACC_RAW = 0x2000_0000;
export const OS = 0;
export const WS = 1;

export interface Chip {
  emu: EmulatorExports;
  /** Linear address of the DRAM region's first byte. */
  dram: number;
}

export async function gemmini(): Promise<Chip> {
  const emu = await createEmulator('gemmini');
  return { emu, dram: readRegions(emu)[0].linear };
}

const big = (v: number): bigint => BigInt(v >>> 0);
const f32bits = (x: number): bigint => BigInt(new Uint32Array(new Float32Array([x]).buffer)[0]);

/** rs2 (or rs1) of the data commands: rows in bits 63..48, cols 47..32, local address 31..0. */
export function local(addr: number, cols: number, rows: number): bigint {
  return (BigInt(rows) << 48n) | (BigInt(cols) << 32n) | big(addr);
}

export function rocc(c: Chip, funct: number, rs1: bigint, rs2: bigint): void {
  c.emu.gemmini_rocc(funct, rs1, rs2);
}

export interface ExConfig {
  dataflow: number;
  act?: number;
  shift?: number;
  aStride?: number;
  cStride?: number;
  aTranspose?: number;
  bTranspose?: number;
  onlyStrides?: number;
}

/** gemmini_extended3_config_ex (the accumulator scale field is left at 1.0). */
export function configEx(c: Chip, x: ExConfig): void {
  const rs1 = (f32bits(1) << 32n) | (BigInt(x.aStride ?? 1) << 16n) | (BigInt(x.bTranspose ?? 0) << 9n) |
    (BigInt(x.aTranspose ?? 0) << 8n) | (BigInt(x.onlyStrides ?? 0) << 7n) | (BigInt(x.act ?? 0) << 3n) |
    (BigInt(x.dataflow) << 2n);
  const rs2 = (BigInt(x.cStride ?? 1) << 48n) | BigInt(x.shift ?? 0);
  rocc(c, 0, rs1, rs2);
}

/** gemmini_extended5_config_ld: main-memory stride in bytes, scale, shrunk, block stride, mvin state id. */
export function configLd(c: Chip, stride: number, scale = 1, shrunk = 0, blockStride = 16, id = 0, repeats = 1): void {
  const rs1 = (f32bits(scale) << 32n) | (BigInt(blockStride) << 16n) | (BigInt(repeats) << 8n) | (BigInt(id) << 3n) |
    (BigInt(shrunk) << 2n) | 1n;
  rocc(c, 0, rs1, BigInt(stride));
}

export interface Pool {
  stride: number;
  size: number;
  outDim: number;
  porows: number;
  pocols: number;
  orows: number;
  ocols: number;
  upad?: number;
  lpad?: number;
}

/** gemmini_extended2_config_st: store stride in bytes, activation, acc_scale, max-pooling. */
export function configSt(c: Chip, stride: number, act = 0, scale = 1, pool?: Pool): void {
  let rs1 = (BigInt(act) << 2n) | 2n;
  if (pool) {
    rs1 |= (BigInt(pool.ocols) << 56n) | (BigInt(pool.orows) << 48n) | (BigInt(pool.pocols) << 40n) |
      (BigInt(pool.porows) << 32n) | (BigInt(pool.outDim) << 24n) | (BigInt(pool.lpad ?? 0) << 10n) |
      (BigInt(pool.upad ?? 0) << 8n) | (BigInt(pool.size) << 6n) | (BigInt(pool.stride) << 4n);
  }
  rocc(c, 0, rs1, (f32bits(scale) << 32n) | BigInt(stride >>> 0));
}

/** funct 2 (mvin), 1 (mvin2), 14 (mvin3) by state id 0, 1, 2. */
export function mvin(c: Chip, dram: number, addr: number, cols: number, rows: number, id = 0): void {
  rocc(c, [2, 1, 14][id], big(dram), local(addr, cols, rows));
}

export function mvout(c: Chip, dram: number, addr: number, cols: number, rows: number): void {
  rocc(c, 3, big(dram), local(addr, cols, rows));
}

export function preload(c: Chip, bd: number, out: number, bdCols = 16, bdRows = 16, cCols = 16, cRows = 16): void {
  rocc(c, 6, local(bd, bdCols, bdRows), local(out, cCols, cRows));
}

export function compute(c: Chip, preloaded: boolean, a: number, bd: number, aCols = 16, aRows = 16, bdCols = 16, bdRows = 16): void {
  rocc(c, preloaded ? 4 : 5, local(a, aCols, aRows), local(bd, bdCols, bdRows));
}

export interface LoopWs {
  I: number; J: number; K: number; padI: number; padJ: number; padK: number;
  A: number; B: number; D: number; C: number;
  strideA: number; strideB: number; strideD: number; strideC: number;
  aTranspose?: number; bTranspose?: number; fullC?: number; lowD?: number; exAccumulate: number;
  act?: number; aSpadId?: number; bSpadId?: number; resadd?: number;
}

/** gemmini_loop_ws: the five configuration commands, then loop_ws. */
export function loopWs(c: Chip, l: LoopWs): void {
  rocc(c, 9, (BigInt(l.padK) << 32n) | (BigInt(l.padJ) << 16n) | BigInt(l.padI), (BigInt(l.K) << 32n) | (BigInt(l.J) << 16n) | BigInt(l.I));
  rocc(c, 10, big(l.A), big(l.B));
  rocc(c, 11, big(l.D), big(l.C));
  rocc(c, 12, BigInt(l.strideA), BigInt(l.strideB));
  rocc(c, 13, BigInt(l.strideD), BigInt(l.strideC));
  rocc(c, 8,
    (BigInt(l.aSpadId ?? 0) << 18n) | (BigInt(l.bSpadId ?? 0) << 16n) | (BigInt(l.act ?? 0) << 8n) |
      (BigInt(l.lowD ?? 0) << 2n) | (BigInt(l.fullC ?? 0) << 1n) | BigInt(l.exAccumulate),
    (BigInt(l.resadd ?? 0) << 2n) | (BigInt(l.bTranspose ?? 0) << 1n) | BigInt(l.aTranspose ?? 0));
}

// --- main memory ---

export function putI8(c: Chip, chip: number, data: ArrayLike<number>): void {
  new Int8Array(c.emu.memory.buffer, c.dram + (chip - DRAM), data.length).set(data);
}

export function putI32(c: Chip, chip: number, data: ArrayLike<number>): void {
  const v = new DataView(c.emu.memory.buffer, c.dram + (chip - DRAM), data.length * 4);
  for (let i = 0; i < data.length; i++) v.setInt32(i * 4, data[i], true);
}

export function getI8(c: Chip, chip: number, n: number): number[] {
  return Array.from(new Int8Array(c.emu.memory.buffer, c.dram + (chip - DRAM), n));
}

export function getI32(c: Chip, chip: number, n: number): number[] {
  const v = new DataView(c.emu.memory.buffer, c.dram + (chip - DRAM), n * 4);
  return Array.from({ length: n }, (_, i) => v.getInt32(i * 4, true));
}

/** Scratchpad row `row` (16 int8) and accumulator row (16 int32), read directly. */
export function spadRow(c: Chip, row: number): number[] {
  return Array.from(new Int8Array(c.emu.memory.buffer, c.emu.gemmini_spad_ptr() + row * 16, 16));
}

export function accRow(c: Chip, row: number): number[] {
  return Array.from(new Int32Array(c.emu.memory.buffer, c.emu.gemmini_acc_ptr() + row * 64, 16));
}

export function fault(c: Chip, f: () => void): string {
  try {
    f();
  } catch {
    return readFault(c.emu) ?? 'no fault message';
  }
  assert.unreachable('expected a fault');
  return '';
}

// --- reference (SEMANTICS.md 3 "Gemmini") ---

export function roundHalfEven(y: number): number {
  const f = Math.floor(y);
  const d = y - f;
  if (d < 0.5) return f;
  if (d > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** act(sat_int8(round_half_even(float32(x) * scale))): the int32 -> float32 conversion and the product round. */
export function accScaleRef(x: number, scale: number, relu: boolean): number {
  const y = roundHalfEven(Math.fround(Math.fround(x) * Math.fround(scale)));
  const s = Math.max(-128, Math.min(127, y));
  return relu ? Math.max(0, s) : s;
}

/** Deterministic int8 data (a linear congruential generator). */
export function int8s(n: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s >>> 24) - 128;
  });
}

/** C[i][j] = D[j] + sum_k A[i][k] B[k][j] in wrapping int32; A is M x K, B is K x N (row-major). */
export function matmulRef(A: number[], B: number[], bias: number[] | null, M: number, N: number, K: number): number[] {
  const C = new Array<number>(M * N);
  for (let i = 0; i < M; i++) {
    for (let j = 0; j < N; j++) {
      let s = bias ? bias[j] : 0;
      for (let k = 0; k < K; k++) s = (s + Math.imul(A[i * K + k], B[k * N + j])) | 0;
      C[i * N + j] = s;
    }
  }
  return C;
}

export interface LoopConv {
  batchSize: number; inRowDim: number; inColDim: number; inChannels: number; outChannels: number;
  outRowDim: number; outColDim: number; poolOutRowDim: number; poolOutColDim: number;
  stride: number; padding: number; kernelDim: number; kernelDilation: number;
  poolSize: number; poolStride: number; poolPadding: number;
  batches: number; porows: number; pocols: number; pochs: number; krows: number; kcols: number; kchs: number;
  lpad: number; rpad: number; upad: number; dpad: number; plpad: number; prpad: number; pupad: number; pdpad: number;
  orows: number; ocols: number;
  weights: number; output: number; bias: number; input: number;
  noBias: number; noPool: number; wrot180?: number; act: number; maxPixelsPerRow: number;
  inStride: number; weightStride: number; outStride: number; dw: number;
}

/** gemmini_loop_conv_ws: its six configuration commands, then loop_conv_ws (no transposes, dilation, downsampling). */
export function loopConv(c: Chip, l: LoopConv): void {
  const b = (v: number): bigint => BigInt(v);
  rocc(c, 16, (b(l.outChannels) << 48n) | (b(l.inChannels) << 32n) | (b(l.inRowDim) << 16n) | b(l.batchSize),
    (b(l.padding) << 56n) | (b(l.stride) << 48n) | (b(l.outColDim) << 32n) | (b(l.poolOutRowDim) << 16n) | b(l.outRowDim));
  rocc(c, 17, (b(l.kernelDim) << 48n) | (b(l.poolOutColDim) << 32n) | (b(l.poolSize) << 16n) | (b(l.poolStride) << 8n) | b(l.poolPadding),
    (b(l.batches) << 48n) | (b(l.porows) << 32n) | (b(l.pocols) << 16n) | b(l.pochs));
  rocc(c, 18, (b(l.krows) << 48n) | (b(l.kcols) << 32n) | (b(l.kchs) << 16n) | b(l.lpad),
    (b(l.rpad) << 48n) | (b(l.upad) << 32n) | (b(l.dpad) << 24n) | (b(l.plpad) << 16n) | b(l.inColDim));
  rocc(c, 19, (b(l.orows) << 48n) | (b(l.prpad) << 32n) | (b(l.pupad) << 21n) | (b(l.pdpad) << 10n) | b(l.kernelDilation),
    (b(l.inStride) << 48n) | (b(l.weightStride) << 32n) | (b(l.outStride) << 16n) | b(l.ocols));
  rocc(c, 20, big(l.weights), big(l.output));
  rocc(c, 21, big(l.bias), big(l.input));
  rocc(c, 15, (b(l.maxPixelsPerRow) << 8n) | (b(l.dw) << 6n) | (b(l.wrot180 ?? 0) << 1n) | b(l.noBias),
    (b(l.act) << 3n) | b(l.noPool));
}
