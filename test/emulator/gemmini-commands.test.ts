/**
 * Gemmini's commands one at a time, on hand-worked values (docs/gemmini.md; SEMANTICS.md 3 "Gemmini"): mvin (stride,
 * blocks, scale, accumulator, accumulate, zeros, garbage), mvout (scale with round half to even, ReLU, raw read),
 * preload/compute in both dataflows (transposes, strides, accumulation), the output-stationary rounding shift.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ACC, ACC_ADD, ACC_RAW, compute, configEx, configLd, configSt, DRAM, GARBAGE, gemmini, getI32, getI8, mvin, mvout,
  OS, preload, putI32, putI8, accRow, spadRow, WS, rocc,
} from './gemmini-driver.js';

const zeros16 = (): number[] => new Array<number>(16).fill(0);
const row16 = (vals: number[]): number[] => [...vals, ...new Array<number>(16 - vals.length).fill(0)];

test('mvin: rows at the configured stride, the cols field limits each row, other columns stay 0', async () => {
  const c = await gemmini();
  putI8(c, DRAM, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
  configLd(c, 8);
  mvin(c, DRAM, 10, 5, 3);
  assert.equal(spadRow(c, 10), row16([1, 2, 3, 4, 5]));
  assert.equal(spadRow(c, 11), row16([9, 10, 11, 12, 13]));
  assert.equal(spadRow(c, 12), row16([17, 18, 19, 20, 21]));
  assert.equal(spadRow(c, 13), zeros16());
});

test('mvin: more than 16 cols go to blocks block-stride rows apart (mvin2 has its own configuration)', async () => {
  const c = await gemmini();
  putI8(c, DRAM, Array.from({ length: 80 }, (_, i) => i - 40));
  configLd(c, 40, 1, 0, 4, 1); // state 1: stride 40 bytes, block stride 4
  mvin(c, DRAM, 100, 40, 2, 1);
  assert.equal(spadRow(c, 100), Array.from({ length: 16 }, (_, i) => i - 40));
  assert.equal(spadRow(c, 101), Array.from({ length: 16 }, (_, i) => 40 + i - 40));
  assert.equal(spadRow(c, 104), Array.from({ length: 16 }, (_, i) => 16 + i - 40));
  assert.equal(spadRow(c, 105), Array.from({ length: 16 }, (_, i) => 56 + i - 40));
  assert.equal(spadRow(c, 108), row16(Array.from({ length: 8 }, (_, i) => 32 + i - 40)));
  assert.equal(spadRow(c, 109), row16(Array.from({ length: 8 }, (_, i) => 72 + i - 40)));
  assert.equal(spadRow(c, 102), zeros16());
});

test('mvin pixel repeats: each row also lands in the rows before it, shifted by cols per step (row -1 skipped)', async () => {
  const c = await gemmini();
  putI8(c, DRAM, [1, 2, 3, ...zeros16().slice(3), 4, 5, 6]);
  configLd(c, 16, 1, 0, 16, 0, 2);
  mvin(c, DRAM, 10, 3, 2);
  assert.equal(spadRow(c, 9), row16([0, 0, 0, 1, 2, 3]));
  assert.equal(spadRow(c, 10), row16([1, 2, 3, 4, 5, 6]));
  assert.equal(spadRow(c, 11), row16([4, 5, 6]));
  mvin(c, DRAM, 0, 3, 1);
  assert.equal(spadRow(c, 0), row16([1, 2, 3]));
});

test('mvin scale: float32 multiply, round half to even, int8 saturation', async () => {
  const c = await gemmini();
  putI8(c, DRAM, [3, -3, 5, -5, 1, -1, 127, -128]);
  configLd(c, 8, 0.5);
  mvin(c, DRAM, 0, 8, 1);
  // 1.5 -> 2, -1.5 -> -2, 2.5 -> 2, -2.5 -> -2, 0.5 -> 0, -0.5 -> 0, 63.5 -> 64, -64
  assert.equal(spadRow(c, 0), row16([2, -2, 2, -2, 0, 0, 64, -64]));
  putI8(c, DRAM, [100, -100, 64, -65]);
  configLd(c, 8, 2);
  mvin(c, DRAM, 1, 4, 1);
  assert.equal(spadRow(c, 1), row16([127, -128, 127, -128]));
});

test('mvin to the accumulator: int32 rows, overwrite, then accumulate (bit 30, wrapping); int8 rows when shrunk', async () => {
  const c = await gemmini();
  putI32(c, DRAM, [1, -2, 0x7fff_ffff, 40000, 5, 6]);
  configLd(c, 12);
  mvin(c, DRAM, ACC | 7, 3, 2);
  assert.equal(accRow(c, 7), row16([1, -2, 0x7fff_ffff]));
  assert.equal(accRow(c, 8), row16([40000, 5, 6]));
  mvin(c, DRAM, ACC_ADD | 7, 3, 2);
  assert.equal(accRow(c, 7), row16([2, -4, -2]));
  assert.equal(accRow(c, 8), row16([80000, 10, 12]));
  putI8(c, DRAM + 256, [10, -11, 100]);
  configLd(c, 3, 1.5, 1); // shrunk: int8 in main memory, scaled like the scratchpad's
  mvin(c, DRAM + 256, ACC | 9, 3, 1);
  assert.equal(accRow(c, 9), row16([15, -16, 127]));
});

test('mvin from main-memory address 0 writes zeros; stride 0 repeats one row; the garbage address writes nothing', async () => {
  const c = await gemmini();
  putI8(c, DRAM, Array.from({ length: 32 }, (_, i) => i + 1));
  configLd(c, 16);
  mvin(c, DRAM, 0, 16, 2);
  mvin(c, 0, 0, 16, 1);
  assert.equal(spadRow(c, 0), zeros16());
  assert.equal(spadRow(c, 1), Array.from({ length: 16 }, (_, i) => 17 + i));
  configLd(c, 0);
  mvin(c, DRAM, 4, 4, 3);
  for (const r of [4, 5, 6]) assert.equal(spadRow(c, r), row16([1, 2, 3, 4]));
  mvin(c, DRAM + 16, GARBAGE, 16, 16);
  assert.equal(spadRow(c, 1), Array.from({ length: 16 }, (_, i) => 17 + i));
});

test('mvout from the accumulator: acc_scale rounds half to even, the int32 -> float32 conversion and the product round, ReLU', async () => {
  const c = await gemmini();
  // 5 x 0.5 = 2.5 -> 2; 7 x 0.5 = 3.5 -> 4; -5 -> -2.5 -> -2; 300 -> 127; -300 -> -128; -7 -> -3.5 -> -4
  putI32(c, DRAM, [5, 7, -5, 300, -300, -7]);
  configLd(c, 24);
  mvin(c, DRAM, ACC, 6, 1);
  configSt(c, 16, 0, 0.5);
  mvout(c, DRAM + 0x100, ACC, 6, 1);
  assert.equal(getI8(c, DRAM + 0x100, 6), [2, 4, -2, 127, -128, -4]);
  configSt(c, 16, 1, 0.5);
  mvout(c, DRAM + 0x200, ACC, 6, 1);
  assert.equal(getI8(c, DRAM + 0x200, 6), [2, 4, 0, 127, 0, 0]);
  // 20971521 converts to 20971520 (ties to even), x 2^-23 = 2.5 -> 2 (the exact product 2.50000012 would give 3);
  // 5 x float32(0.1) = 0.5000000075 rounds to the float32 0.5 -> 0 (exactly it would be 1)
  putI32(c, DRAM + 0x300, [20971521]);
  configLd(c, 4);
  mvin(c, DRAM + 0x300, ACC | 1, 1, 1);
  configSt(c, 16, 0, 2 ** -23);
  mvout(c, DRAM + 0x400, ACC | 1, 1, 1);
  assert.equal(getI8(c, DRAM + 0x400, 1), [2]);
  putI32(c, DRAM + 0x300, [5]);
  mvin(c, DRAM + 0x300, ACC | 2, 1, 1);
  configSt(c, 16, 0, 0.1);
  mvout(c, DRAM + 0x500, ACC | 2, 1, 1);
  assert.equal(getI8(c, DRAM + 0x500, 1), [0]);
});

test('mvout: raw accumulator read (bit 29) writes int32 unscaled; a scratchpad row goes out as is; rows at the store stride', async () => {
  const c = await gemmini();
  putI32(c, DRAM, [-70000, 3, 99, 1 << 30]);
  configLd(c, 8);
  mvin(c, DRAM, ACC | 3, 2, 2);
  configSt(c, 12, 1, 0.001);
  mvout(c, DRAM + 0x100, ACC | ACC_RAW | 3, 2, 2);
  assert.equal(getI32(c, DRAM + 0x100, 5), [-70000, 3, 0, 99, 1 << 30]);
  putI8(c, DRAM + 0x200, [-5, 6, -7]);
  configLd(c, 3);
  mvin(c, DRAM + 0x200, 20, 3, 1);
  mvout(c, DRAM + 0x300, 20, 3, 1);
  assert.equal(getI8(c, DRAM + 0x300, 3), [-5, 6, -7]);
});

/** A (2x3) at scratchpad row 0, B (3x2) at row 16, D (2x2) at row 32, all int8. */
async function smallOperands() {
  const c = await gemmini();
  configLd(c, 16);
  putI8(c, DRAM, [1, 2, 3, ...zeros16().slice(3), -4, 5, -6]);
  mvin(c, DRAM, 0, 3, 2);
  putI8(c, DRAM + 0x40, [7, -8, ...zeros16().slice(2), 9, 10, ...zeros16().slice(2), -11, 12]);
  mvin(c, DRAM + 0x40, 16, 2, 3);
  putI8(c, DRAM + 0x80, [100, -100, ...zeros16().slice(2), 1, 2]);
  mvin(c, DRAM + 0x80, 32, 2, 2);
  return c;
}
// A.B = [[1*7+2*9+3*-11, 1*-8+2*10+3*12], [-4*7+5*9-6*-11, -4*-8+5*10-6*12]] = [[-8, 48], [83, 10]]

test('weight-stationary: preload B, compute A with D: C = D + A.B into the accumulator; compute_accumulated keeps B', async () => {
  const c = await smallOperands();
  configEx(c, { dataflow: WS });
  preload(c, 16, ACC | 0, 2, 3, 2, 2);
  compute(c, true, 0, 32, 3, 2, 2, 2);
  assert.equal(accRow(c, 0), row16([92, -52]));
  assert.equal(accRow(c, 1), row16([84, 12]));
  // the same weights, no D, accumulated onto the rows (bit 30)
  preload(c, GARBAGE, ACC_ADD | 0, 16, 16, 2, 2);
  compute(c, false, 0, GARBAGE, 3, 2);
  assert.equal(accRow(c, 0), row16([84, -4]));
  assert.equal(accRow(c, 1), row16([167, 22]));
});

test('weight-stationary with B transposed: the preload reads B^T rows', async () => {
  const c = await gemmini();
  configLd(c, 16);
  putI8(c, DRAM, [1, 2, 3]);
  mvin(c, DRAM, 0, 3, 1);
  // B^T (2x3): rows [7, 9, -11] and [-8, 10, 12]
  putI8(c, DRAM + 0x40, [7, 9, -11, ...zeros16().slice(3), -8, 10, 12]);
  mvin(c, DRAM + 0x40, 16, 3, 2);
  configEx(c, { dataflow: WS, bTranspose: 1 });
  preload(c, 16, ACC, 2, 3, 2, 1); // rows/cols of B itself (3x2)
  compute(c, true, 0, GARBAGE, 3, 1);
  assert.equal(accRow(c, 0), row16([-8, 48]));
});

test('output-stationary: preload D, A.B accumulates in the PEs; to the scratchpad with a rounding shift and ReLU', async () => {
  const c = await smallOperands();
  configEx(c, { dataflow: OS });
  preload(c, 32, ACC, 2, 2, 2, 2);
  compute(c, true, 0, 16, 3, 2, 2, 3);
  assert.equal(accRow(c, 0), row16([92, -52]));
  assert.equal(accRow(c, 1), row16([84, 12]));
  // keep accumulating in the PEs: D + 2 A.B
  preload(c, GARBAGE, ACC, 16, 16, 2, 2);
  compute(c, false, 0, 16, 3, 2, 2, 3);
  assert.equal(accRow(c, 0), row16([84, -4]));
  assert.equal(accRow(c, 1), row16([167, 22]));
  // shift 2 on the way to the scratchpad: 84/4 = 21, -4/4 = -1, 167/4 = 41.75 -> 42, 22/4 = 5.5 -> 6 (half to even)
  configEx(c, { dataflow: OS, shift: 2 });
  preload(c, 32, 40, 2, 2, 2, 2);
  compute(c, true, 0, 16, 3, 2, 2, 3);
  preload(c, GARBAGE, 40, 16, 16, 2, 2);
  compute(c, false, 0, 16, 3, 2, 2, 3);
  assert.equal(spadRow(c, 40), row16([21, -1]));
  assert.equal(spadRow(c, 41), row16([42, 6]));
  configEx(c, { dataflow: OS, shift: 1, act: 1 });
  preload(c, 32, 42, 2, 2, 2, 2);
  compute(c, true, 0, 16, 3, 2, 2, 3);
  // D + A.B = [[92, -52], [84, 12]] >> 1 = [[46, -26 -> 0 by ReLU], [42, 6]]
  assert.equal(spadRow(c, 42), row16([46, 0]));
  assert.equal(spadRow(c, 43), row16([42, 6]));
});

test('output-stationary shift: ties go to even, results saturate to int8', async () => {
  const c = await gemmini();
  // A = 1x1 [1], B = 1x6 row; D = 0: C = B's row, shifted by 2
  putI8(c, DRAM, [1]);
  configLd(c, 16);
  mvin(c, DRAM, 0, 1, 1);
  putI8(c, DRAM + 0x40, [6, 10, -6, -10, 127, -128]);
  mvin(c, DRAM + 0x40, 16, 6, 1);
  configEx(c, { dataflow: OS, shift: 2 });
  preload(c, GARBAGE, 30, 16, 16, 6, 1);
  compute(c, true, 0, 16, 1, 1, 6, 1);
  // 1.5 -> 2, 2.5 -> 2, -1.5 -> -2, -2.5 -> -2, 31.75 -> 32, -32
  assert.equal(spadRow(c, 30), row16([2, 2, -2, -2, 32, -32]));
  configEx(c, { dataflow: OS, shift: 0 });
  putI8(c, DRAM, [100]);
  mvin(c, DRAM, 0, 1, 1);
  preload(c, GARBAGE, 31, 16, 16, 6, 1);
  compute(c, true, 0, 16, 1, 1, 6, 1);
  assert.equal(spadRow(c, 31), row16([127, 127, -128, -128, 127, -128]));
});

test('A rows a_stride apart, C rows c_stride apart; output-stationary with A transposed', async () => {
  const c = await gemmini();
  configLd(c, 16);
  putI8(c, DRAM, [1, 2, ...zeros16().slice(2), 0, 0, ...zeros16().slice(2), 3, 4]);
  mvin(c, DRAM, 0, 2, 3); // rows 0 and 2 hold A
  putI8(c, DRAM + 0x40, [1, 0, ...zeros16().slice(2), 0, 1]);
  mvin(c, DRAM + 0x40, 16, 2, 2); // B = identity
  configEx(c, { dataflow: WS, aStride: 2, cStride: 3 });
  preload(c, 16, ACC | 10, 2, 2, 2, 2);
  compute(c, true, 0, GARBAGE, 2, 2);
  assert.equal(accRow(c, 10), row16([1, 2]));
  assert.equal(accRow(c, 13), row16([3, 4]));
  assert.equal(accRow(c, 11), zeros16());
  // OS, A^T stored: C = (A^T stored)^T . I; with a_stride 2 the stored rows are 0 and 2
  configEx(c, { dataflow: OS, aStride: 2, aTranspose: 1 });
  preload(c, GARBAGE, ACC | 20, 16, 16, 2, 2);
  compute(c, true, 0, 16, 2, 2, 2, 2);
  assert.equal(accRow(c, 20), row16([1, 3]));
  assert.equal(accRow(c, 21), row16([2, 4]));
});

test('flush changes nothing and costs the host its issue (6 cycles); config_ex with only strides keeps the dataflow', async () => {
  const c = await gemmini();
  rocc(c, 7, 0n, 0n);
  assert.is(Number(c.emu.cycles()), 6);
  assert.is(Number(c.emu.gemmini_busy_until()), 0);
  configEx(c, { dataflow: WS });
  configEx(c, { dataflow: OS, aStride: 1, onlyStrides: 1 }); // dataflow bit ignored
  configLd(c, 16);
  putI8(c, DRAM, [2]);
  mvin(c, DRAM, 0, 1, 1);
  putI8(c, DRAM, [3]);
  mvin(c, DRAM, 16, 1, 1);
  preload(c, 16, ACC, 1, 1, 1, 1);
  compute(c, true, 0, GARBAGE, 1, 1);
  // WS: B = 3 preloaded, A = 2 -> 6 (in OS the preload would be D = 3 and B garbage: 3)
  assert.equal(accRow(c, 0), row16([6]));
});

test.run();
