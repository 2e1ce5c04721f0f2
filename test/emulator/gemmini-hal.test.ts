/**
 * Gemmini from AS firmware through its HAL (runtime/as/gemmini.ts) run by the runtime: the 64-bit RoCC operands cross
 * the wasm boundary, loop_ws computes a 20x24x18 matmul with ReLU and scale, the fence makes the host wait, and the
 * commands appear as gemmini events inside the firmware's layer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { runFirmware } from '../../runtime/node/run.js';
import { gemminiDetail, readEvents } from '../../runtime/node/emulator.js';
import { makeFirmware } from './fixture.js';
import { accScaleRef, int8s, matmulRef } from './gemmini-driver.js';

const NETWORK = `
import {
  gemmini_config_ex, gemmini_config_ld, gemmini_config_st, gemmini_fence, gemmini_loop_ws, GEMMINI_RELU,
  GEMMINI_WEIGHT_STATIONARY,
} from "./hal/gemmini";
import * as chip from "./hal/chip";

const A: u64 = 0x8000_0000;
const B: u64 = 0x8000_1000;
const C: u64 = 0x8000_2000;
chip.layer_begin(3);
gemmini_config_ex(GEMMINI_WEIGHT_STATIONARY, 0, 0);
gemmini_config_ld(24, 1.0, false, 16, 0);
gemmini_config_ld(18, 1.0, false, 16, 1);
gemmini_config_st(18, GEMMINI_RELU, 0.004);
gemmini_loop_ws(2, 2, 2, 12, 14, 8, A, B, 0, C, 24, 18, 0, 18, false, false, false, false, false, 0);
gemmini_fence();
chip.layer_end(3);
`;

const dir = makeFirmware({
  platform: 'gemmini',
  network: NETWORK,
  layers: [{ id: 3, name: 'matmul' }],
  tensors: [
    { name: 'a', role: 'input', dtype: 'int8', shape: [20, 24], region: 'DRAM', address: 0x8000_0000, bytes: 480 },
    { name: 'b', role: 'input', dtype: 'int8', shape: [24, 18], region: 'DRAM', address: 0x8000_1000, bytes: 432 },
    { name: 'c', role: 'output', dtype: 'int8', shape: [20, 18], region: 'DRAM', address: 0x8000_2000, bytes: 360 },
  ],
});

test('loop_ws from AS firmware equals the reference; the fence ends the layer after the last store', async () => {
  const a = int8s(20 * 24, 31);
  const b = int8s(24 * 18, 32);
  const r = await runFirmware(dir, [ndarray('int8', [20, 24], a), ndarray('int8', [24, 18], b)]);
  const want = matmulRef(a, b, null, 20, 18, 24).map((x) => accScaleRef(x, 0.004, true));
  assert.equal([...r.outputs[0].data], want);
  assert.ok(want.some((v) => v > 0) && want.some((v) => v === 0));
  assert.ok(r.cycles > 0);
});

test('the emulator records each command of the loop as an unrolled gemmini event', async () => {
  const { createEmulator } = await import('../../runtime/node/emulator.js');
  const emu = await createEmulator('gemmini');
  emu.gemmini_rocc(9, 0n, (1n << 32n) | (1n << 16n) | 1n);
  emu.gemmini_rocc(10, 0x8000_0000n, 0x8000_1000n);
  emu.gemmini_rocc(11, 0n, 0x8000_2000n);
  emu.gemmini_rocc(12, 16n, 16n);
  emu.gemmini_rocc(13, 0n, 16n);
  emu.gemmini_rocc(8, 0n, 0n);
  const ev = readEvents(emu).events.map((e) => gemminiDetail(e.detail));
  assert.equal(ev.map((d) => [d.funct, d.unit, d.unrolled]), [
    [2, 'load', true], [1, 'load', true], [4, 'execute', true], [3, 'store', true],
  ]);
});

test.run();
