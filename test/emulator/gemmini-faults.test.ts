/**
 * Every Gemmini fault (docs/gemmini.md "Faults"): one line naming the command, the reason and the local address
 * (row, memory) or main-memory range, and the layer. Addresses outside the scratchpad or accumulator, row overflow,
 * bad configurations, main memory out of range, field limits, and what is not modelled.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmulator, readFault } from '../../runtime/node/emulator.js';
import {
  ACC, ACC_RAW, compute, configEx, configLd, configSt, DRAM, fault, GARBAGE, gemmini, loopWs, mvin, mvout, OS, preload,
  rocc, WS,
} from './gemmini-driver.js';

test('local addresses outside the scratchpad or accumulator, and row overflow', async () => {
  const c = await gemmini();
  assert.is(fault(c, () => mvin(c, DRAM, 16384, 16, 16)),
    'gemmini mvin: address outside the scratchpad (local address 0x00004000, row 16384, scratchpad of 16384 rows) outside any layer');
  assert.is(fault(c, () => mvin(c, DRAM, 16380, 16, 8)),
    'gemmini mvin: row overflow (local address 0x00003ffc, row 16387, scratchpad of 16384 rows) outside any layer');
  assert.match(fault(c, () => mvout(c, DRAM, ACC | 1024, 16, 1)),
    /^gemmini mvout: address outside the accumulator \(local address 0x80000400, row 1024, accumulator of 1024 rows\)/);
  assert.match(fault(c, () => mvout(c, DRAM, ACC | 1020, 16, 16)), /^gemmini mvout: row overflow \(local address 0x800003fc, row 1035, accumulator/);
  configEx(c, { dataflow: WS, cStride: 100 });
  preload(c, GARBAGE, ACC | 0, 16, 16, 16, 16);
  assert.match(fault(c, () => compute(c, true, 0, GARBAGE)), /^gemmini compute_preloaded: row overflow \(local address 0x80000000, row 1500,/);
  configEx(c, { dataflow: WS, aStride: 2000 });
  preload(c, GARBAGE, GARBAGE);
  assert.match(fault(c, () => compute(c, true, 0, GARBAGE)), /^gemmini compute_preloaded: row overflow \(local address 0x00000000, row 30000, scratchpad/);
  configEx(c, { dataflow: WS });
  preload(c, 16383, GARBAGE);
  assert.match(fault(c, () => compute(c, true, 0, GARBAGE)), /^gemmini preload: row overflow \(local address 0x00003fff, row 16398/);
  // a mvin of int32 rows blocks into the accumulator: the last block's rows count
  configLd(c, 64, 1, 1, 1000, 0);
  assert.match(fault(c, () => mvin(c, DRAM, ACC | 0, 40, 2)), /^gemmini mvin: row overflow \(local address 0x80000000, row 2001, accumulator/);
});

test('main memory out of range, reads and writes, with the layer', async () => {
  const c = await gemmini();
  c.emu.layer_begin(7);
  assert.is(fault(c, () => mvin(c, DRAM - 16, 0, 16, 1)),
    'gemmini mvin: main memory out of range (16 bytes at 0x7ffffff0, region DRAM is 0x80000000..0x84000000) in layer 7');
  configLd(c, 1 << 20);
  assert.match(fault(c, () => mvin(c, DRAM + (63 << 20), 0, 16, 2)), /^gemmini mvin: main memory out of range \(16 bytes at 0x84000000,/);
  configSt(c, 16);
  assert.match(fault(c, () => mvout(c, DRAM + (64 << 20) - 8, 0, 16, 1)), /^gemmini mvout: main memory out of range \(16 bytes at 0x83fffff8,/);
  assert.match(fault(c, () => rocc(c, 2, 1n << 40n, 0x0001_0010_0000_0000n)), /^gemmini mvin: main memory out of range \(16 bytes at address 1099511627776,/);
});

test('field limits: rows, cols, operand sizes', async () => {
  const c = await gemmini();
  assert.match(fault(c, () => mvin(c, DRAM, 0, 16, 17)), /^gemmini mvin: rows 17 \(at most 16 per command\)/);
  assert.match(fault(c, () => mvin(c, DRAM, 0, 65, 1)), /^gemmini mvin: cols 65 \(at most 64 int8\)/);
  assert.match(fault(c, () => mvin(c, DRAM, ACC, 17, 1)), /^gemmini mvin: cols 17 \(at most 16 int32\)/);
  assert.match(fault(c, () => mvin(c, DRAM, 0, 0, 1)), /^gemmini mvin: rows and cols must be at least 1/);
  assert.match(fault(c, () => mvout(c, DRAM, ACC | ACC_RAW, 17, 1)), /^gemmini mvout: cols 17 \(at most 16 int32\)/);
  assert.match(fault(c, () => preload(c, 0, 0, 17, 16)), /^gemmini preload: B\/D has 17 cols \(at most 16\)/);
  assert.match(fault(c, () => compute(c, true, 0, 0, 16, 20)), /^gemmini compute_preloaded: A has 20 rows \(at most 16\)/);
});

test('bad configurations', async () => {
  const c = await gemmini();
  assert.match(fault(c, () => configEx(c, { dataflow: OS, shift: 32 })), /^gemmini config_ex: bad config: shift 32 \(at most 31\)/);
  assert.match(fault(c, () => configEx(c, { dataflow: OS, bTranspose: 1 })), /^gemmini config_ex: bad config: output-stationary cannot transpose B alone/);
  assert.match(fault(c, () => configEx(c, { dataflow: WS, aTranspose: 1, bTranspose: 1 })), /^gemmini config_ex: bad config: weight-stationary cannot transpose both/);
  assert.match(fault(c, () => configLd(c, 16, 1, 0, 16, 3)), /^gemmini config_mvin: bad config: mvin state 3/);
  assert.match(fault(c, () => configLd(c, 16, NaN)), /^gemmini config_mvin: bad config: the mvin scale is not a finite float32/);
  assert.match(fault(c, () => configSt(c, 16, 0, Infinity)), /^gemmini config_mvout: bad config: acc_scale is not a finite float32/);
  assert.match(fault(c, () => configSt(c, 16, 0, 1, { stride: 1, size: 0, outDim: 1, porows: 1, pocols: 1, orows: 1, ocols: 1 })),
    /^gemmini config_mvout: bad config: max-pooling with a window of size 0/);
  configSt(c, 16, 0, 1, { stride: 1, size: 1, outDim: 1, porows: 0, pocols: 1, orows: 1, ocols: 1 });
  assert.match(fault(c, () => mvout(c, DRAM, 0, 16, 1)), /^gemmini mvout: bad config: max-pooling with 0 rows or columns/);
  configLd(c, 64, 1, 0, 2, 0);
  assert.match(fault(c, () => mvin(c, DRAM, 0, 32, 4)), /^gemmini mvin: bad config: the block stride 2 is less than the rows moved/);
  configLd(c, 16, 1, 0, 16, 0, 3);
  assert.match(fault(c, () => mvin(c, DRAM, 10, 6, 1)), /^gemmini mvin: bad config: pixel repeats place columns past 16 \(repeats x cols = 18\)/);
  loopWsBounds(c, 0, 1, 1);
  assert.match(fault(c, () => rocc(c, 8, 0n, 0n)), /^gemmini loop_ws: bad config: I, J and K must be at least 1/);
  assert.match(fault(c, () => rocc(c, 15, 0n, 0n)), /^gemmini loop_conv_ws: bad config: batches, orows, ocols/);
  assert.match(fault(c, () => loopWs(c, { I: 16, J: 16, K: 16, padI: 0, padJ: 0, padK: 0, A: DRAM, B: DRAM, D: 0, C: DRAM,
    strideA: 256, strideB: 256, strideD: 0, strideC: 256, exAccumulate: 0 })),
  /^gemmini loop_ws: bad config: bounds too large for double-buffering: 8192 scratchpad rows \(at most 8192\) and 4096 accumulator rows \(at most 512\)/);
});

function loopWsBounds(c: Awaited<ReturnType<typeof gemmini>>, I: number, J: number, K: number): void {
  rocc(c, 9, 0n, (BigInt(K) << 32n) | (BigInt(J) << 16n) | BigInt(I));
}

test('what is not modelled faults by name', async () => {
  const c = await gemmini();
  assert.match(fault(c, () => rocc(c, 15, 1n << 3n, 0n)), /^gemmini loop_conv_ws: the input\/weight\/output transposes \(rs1 bits 2\.\.5\) are not modelled/);
  assert.match(fault(c, () => rocc(c, 15, 0n, 4n)), /^gemmini loop_conv_ws: downsampling and input dilation \(rs2 bits 1\.\.2\) are not modelled/);
  assert.match(fault(c, () => rocc(c, 126, 0n, 0n)), /^gemmini counter: the performance counters/);
  assert.match(fault(c, () => rocc(c, 0, 3n, 0n)), /^gemmini config_norm: the I-BERT normalisation configuration is not modelled/);
  assert.match(fault(c, () => rocc(c, 42, 0n, 0n)), /^gemmini rocc: unknown funct 42/);
  assert.match(fault(c, () => configEx(c, { dataflow: WS, act: 2 })), /^gemmini config_ex: activation 2 \(layernorm\/igelu/);
  assert.match(fault(c, () => configSt(c, 16, 0, 1, { stride: 0, size: 2, outDim: 1, porows: 1, pocols: 1, orows: 1, ocols: 1 })),
    /^gemmini config_mvout: 1-D mvout/);
  assert.match(fault(c, () => mvout(c, DRAM, ACC | (1 << 26), 16, 1)), /^gemmini mvout: the I-BERT normalisation commands/);
  configEx(c, { dataflow: WS });
  preload(c, ACC, GARBAGE);
  assert.match(fault(c, () => compute(c, true, 0, GARBAGE)), /^gemmini preload: reading an operand from the accumulator is not modelled/);
  assert.match(fault(c, () => compute(c, false, ACC, GARBAGE)), /^gemmini compute_accumulated: reading an operand from the accumulator/);
  assert.match(fault(c, () => rocc(c, 8, 0n, 1n << 5n)), /^gemmini loop_ws: rs2 bits 3\.\.63/);
});

test('a chip without Gemmini faults on its commands', async () => {
  const emu = await createEmulator('siracusa');
  try {
    emu.gemmini_rocc(2, 0n, 0n);
    assert.unreachable('expected a fault');
  } catch {
    assert.match(readFault(emu) ?? '', /^gemmini rocc: this chip has no Gemmini/);
  }
});

test.run();
