/**
 * The N-EUREKA model (emulator/assembly/neureka.ts, neureka-job.ts) against docs/neureka.md: small convolutions whose
 * outputs are worked out by hand here, the job queue and event protocol, faults, the timing formula and the L1
 * contention with the cores. Driven from JS through the device API (neureka-driver.ts); the last tests run
 * hand-written firmware through the AS HAL (runtime/as/neureka.ts), the runtime, the profile and the trace.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readEvents, readFault, type EmulatorExports } from '../../runtime/node/emulator.js';
import {
  documentedCycles, done, JOB, L1_CHIP, place, REG, runConv, siracusa, submit, wait, type ConvSpec,
} from './neureka-driver.js';
import { createEmulator } from '../../runtime/node/emulator.js';

// Cost class of the cores' work in these tests: DIV, 35 cycles a unit on a Siracusa core (a hand count, a whole number).
const WORK = 8;
const W = 35;

function faultOf(emu: EmulatorExports, call: () => void): string {
  assert.throws(call);
  return readFault(emu) ?? '';
}

const npuEvents = (emu: EmulatorExports) => readEvents(emu).events.filter((e) => e.kind === 'npu');

// 1x1, 2 input channels, 2 output channels, 3 pixels (HWC); weights co0 = [1, -1], co1 = [2, 3].
const tiny = (over: Partial<ConvSpec> = {}): ConvSpec => ({
  mode: '1x1', bits: 8, cin: 2, cout: 2, h: 1, w: 3, pad: [0, 0, 0, 0], signedIn: false,
  x: [1, 2, 3, 4, 250, 0],
  weight: (co, ci) => [[1, -1], [2, 3]][co][ci],
  ...over,
});

test('1x1, int32 output: uint8 input', async () => {
  // pixel 0: 1*1 - 2 = -1, 2 + 6 = 8; pixel 1: 3 - 4 = -1, 6 + 12 = 18; pixel 2: 250, 500
  assert.equal((await runConv(tiny())).out, [-1, 8, -1, 18, 250, 500]);
});

test('1x1, int32 output: int8 input reads byte 250 as -6', async () => {
  assert.equal((await runConv(tiny({ signedIn: true }))).out, [-1, 8, -1, 18, -6, -12]);
});

test('3x3 with padding 1 and padding value 5', async () => {
  // Padded 4x4 frame: 5 5 5 5 / 5 1 2 5 / 5 3 4 5 / 5 5 5 5; weights tap - 4 (-4..4). Output (0,0):
  // 5*-4 + 5*-3 + 5*-2 + 5*-1 + 1*0 + 2*1 + 5*2 + 3*3 + 4*4 = -13; likewise (0,1) -3, (1,0) 17, (1,1) 27.
  const r = await runConv({
    mode: '3x3', bits: 8, cin: 1, cout: 1, h: 2, w: 2, pad: [1, 1, 1, 1], padValue: 5, signedIn: false,
    x: [1, 2, 3, 4], weight: (_co, _ci, tap) => tap - 4,
  });
  assert.equal(r.out, [-13, -3, 17, 27]);
});

test('the padding value is read with the input signedness', async () => {
  // 1x1, one pixel, top padding 1: output 0 is the padding value x 3, output 1 is 2 x 3.
  const s: ConvSpec = {
    mode: '1x1', bits: 4, cin: 1, cout: 1, h: 1, w: 1, pad: [1, 0, 0, 0], padValue: 0xff, signedIn: false,
    x: [2], weight: () => 3,
  };
  assert.equal((await runConv(s)).out, [765, 6]);
  assert.equal((await runConv({ ...s, signedIn: true })).out, [-3, 6]);
});

test('3x3 depthwise: each channel with its own filter', async () => {
  // channel 0: x = 1..9, weights all 1 -> 45; channel 1: x = 2 everywhere, weights 1 at tap 0 and 3 at tap 8 -> 8
  const x: number[] = [];
  for (let i = 0; i < 9; i++) x.push(i + 1, 2);
  const r = await runConv({
    mode: '3x3dw', bits: 8, cin: 0, cout: 2, h: 3, w: 3, pad: [0, 0, 0, 0], signedIn: false, x,
    weight: (co, _ci, tap) => (co === 0 ? 1 : tap === 0 ? 1 : tap === 8 ? 3 : 0),
  });
  assert.equal(r.out, [45, 8]);
});

test('channels beyond one subtile: remainders of input and output channels', async () => {
  // 1x1 with 33 inputs and 33 outputs of ones: every output is 33 (two Ki and two Ko subtiles, remainders 1).
  const r1 = await runConv({
    mode: '1x1', bits: 2, cin: 33, cout: 33, h: 1, w: 1, pad: [0, 0, 0, 0], signedIn: false,
    x: new Array<number>(33).fill(1), weight: () => 1,
  });
  assert.equal(r1.out, new Array<number>(33).fill(33));
  // 3x3 with 30 inputs (subtiles of 28 and 2), 3x3 input of ones, weights 1: 9 x 30 = 270.
  const r3 = await runConv({
    mode: '3x3', bits: 3, cin: 30, cout: 2, h: 3, w: 3, pad: [0, 0, 0, 0], signedIn: false,
    x: new Array<number>(270).fill(1), weight: (co) => (co === 0 ? 1 : -1),
  });
  assert.equal(r3.out, [270, -270]);
});

test('2- and 4-bit weights, offset by -2^(bits-1) in storage', async () => {
  const x = [5, 7, 9];
  const two = await runConv({ mode: '1x1', bits: 2, cin: 3, cout: 1, h: 1, w: 1, pad: [0, 0, 0, 0], signedIn: false, x, weight: (_c, ci) => [-2, 1, 0][ci] });
  assert.equal(two.out, [-10 + 7]);
  const four = await runConv({ mode: '1x1', bits: 4, cin: 3, cout: 1, h: 1, w: 1, pad: [0, 0, 0, 0], signedIn: false, x, weight: (_c, ci) => [-8, 7, 3][ci] });
  assert.equal(four.out, [-40 + 49 + 27]);
  // 3x3 with 4-bit weights, one 3x3 window of 1..9: weights tap - 4 give sum (t + 1)(t - 4) = 285 - 180 = 60
  const t3 = await runConv({
    mode: '3x3', bits: 4, cin: 1, cout: 1, h: 3, w: 3, pad: [0, 0, 0, 0], signedIn: false,
    x: [1, 2, 3, 4, 5, 6, 7, 8, 9], weight: (_c, _ci, tap) => tap - 4,
  });
  assert.equal(t3.out, [60]);
});

// 1x1, one input channel, 2 outputs, 2 pixels: x = 10, 20; weights 3 and -3 -> accumulators 30, -30, 60, -60.
const requant = (norm: ConvSpec['norm']): ConvSpec => ({
  mode: '1x1', bits: 8, cin: 1, cout: 2, h: 1, w: 2, pad: [0, 0, 0, 0], signedIn: false, x: [10, 20],
  weight: (co) => (co === 0 ? 3 : -3), norm,
});

test('8-bit scale, bias, shift: ReLU to uint8, identity to int8 (floor shift)', async () => {
  // t = acc * 2 + 5: 65, -55, 125, -115; >> 2 (floor): 16, -14, 31, -29; ReLU clamps negatives to 0 first.
  const base = { scale: [2, 2], scale32: false, bias: [5, 5], shift: 2 };
  assert.equal((await runConv(requant({ ...base, relu: true }))).out, [16, 0, 31, 0]);
  assert.equal((await runConv(requant({ ...base, relu: false }))).out, [16, -14, 31, -29]);
  // Saturation: acc * 200 = +-6000 .. +-12000 without bias or shift.
  const sat = { scale: [200, 200], scale32: false, shift: 0 };
  assert.equal((await runConv(requant({ ...sat, relu: true }))).out, [255, 0, 255, 0]);
  assert.equal((await runConv(requant({ ...sat, relu: false }))).out, [127, -128, 127, -128]);
  // Per-channel shift (SCALE_SHIFT_PTR): channel 0 by 0, channel 1 by 4; scale 1, no bias. Bytes are taken & 31:
  // 33 shifts by 1, 36 by 4.
  const per = { scale: [1, 1], scale32: false, shift: [0, 4], relu: false };
  assert.equal((await runConv(requant(per))).out, [30, -2, 60, -4]);
  assert.equal((await runConv(requant({ ...per, shift: [33, 36] }))).out, [15, -2, 30, -4]);
});

test('32-bit scale: 64-bit product, wrap_int32 before the bias, sat_int32 after it', async () => {
  // acc 30 * 100000 - 1000000 = 2000000 >> 16 = 30; -30 * 100000 - 1000000 = -4000000 >> 16 = floor(-61.04) = -62
  const r = await runConv(requant({ scale: [100000, 100000], scale32: true, bias: [-1000000, -1000000], shift: 16, relu: false }));
  assert.equal(r.out.slice(0, 2), [30, -62]);
  // One pixel of x = 1 or 3 through weight 1; scale 0x7fffffff / 0x80000000.
  const one = (x: number, scale: number, bias: number[] | undefined, shift: number): ConvSpec => ({
    mode: '1x1', bits: 8, cin: 1, cout: 1, h: 1, w: 1, pad: [0, 0, 0, 0], signedIn: true, x: [x & 0xff],
    weight: () => 1, norm: { scale: [scale], scale32: true, bias, shift, relu: false },
  });
  // 1 * (2^31 - 1) + 10 saturates to 2^31 - 1 (>> 24 = 127; wrapping would give -128)
  assert.equal((await runConv(one(1, 0x7fff_ffff, [10], 24))).out, [127]);
  // -1 * (2^31 - 1) - 10 saturates to -2^31 (>> 24 = -128)
  assert.equal((await runConv(one(-1, 0x7fff_ffff, [-10], 24))).out, [-128]);
  // 3 * 2^31 wraps to -2^31 before the bias is added (>> 24 = -128) ...
  assert.equal((await runConv(one(3, 0x8000_0000, [0], 24))).out, [-128]);
  // ... but without a bias the 64-bit product is shifted as it is: 3 * 2^31 >> 31 = 3
  assert.equal((await runConv(one(3, 0x8000_0000, undefined, 31))).out, [3]);
});

test('weights from the neural memory (MRAM at WMEM offset 0, SRAM at 0x400000) give the same outputs', async () => {
  const l1 = (await runConv(tiny())).out;
  assert.equal((await runConv(tiny({ wmem: 0x100 }))).out, l1);
  assert.equal((await runConv(tiny({ wmem: 0x40_0040 }))).out, l1);
});

// --- protocol ---

test('queue: two entries, ACQUIRE >= 256 when full, STATUS, RUNNING_JOB, FINISHED, back-to-back jobs', async () => {
  const emu = await siracusa();
  assert.is(emu.npu_read(REG.STATUS), 0);
  const a = submit(emu, tiny());
  const b = submit(emu, tiny());
  assert.is(a.id, 0);
  assert.is(b.id, 1);
  assert.is(emu.npu_read(REG.STATUS), 0x101);
  assert.ok(emu.npu_read(REG.ACQUIRE) >>> 0 >= 256, 'full');
  assert.is(emu.npu_read(REG.RUNNING_JOB), 0);
  assert.not.ok(done(emu, 0));
  assert.not.ok(done(emu, 1));
  const [j0, j1] = npuEvents(emu);
  assert.is(j1.start, j0.end, 'job 1 starts when job 0 ends');
  emu.npu_event_wait();
  assert.is(Number(emu.total_cycles()), j0.end);
  assert.ok(done(emu, 0));
  assert.not.ok(done(emu, 1));
  assert.is(emu.npu_read(REG.RUNNING_JOB), 1);
  assert.is(emu.npu_read(REG.FINISHED), 1);
  assert.is(emu.npu_read(REG.STATUS), 0x100);
  const c = submit(emu, tiny()); // entry 0 is free again
  assert.is(c.id, 2);
  wait(emu, 2);
  assert.ok(done(emu, 1));
  assert.is(emu.npu_read(REG.FINISHED), 3);
  assert.is(emu.npu_read(REG.STATUS), 0);
  assert.is(emu.npu_finish(), 3);
  emu.npu_write(REG.SOFT_CLEAR, 0);
  assert.is(emu.npu_read(REG.FINISHED), 0);
  assert.is(emu.npu_read(REG.ACQUIRE), 0, 'ids restart after SOFT_CLEAR');
});

test('events: wait and clear with one buffered event; a wait with nothing to come is a fault', async () => {
  const emu = await siracusa();
  submit(emu, tiny());
  submit(emu, tiny());
  const [, j1] = npuEvents(emu);
  emu.compute(WORK, Math.ceil(j1.end / W) + 10); // both jobs end while the master works
  const t = Number(emu.total_cycles());
  emu.npu_event_wait(); // two events came, one is buffered: returns at once
  assert.is(Number(emu.total_cycles()), t);
  assert.match(faultOf(emu, () => emu.npu_event_wait()), /^npu_event_wait: no N-EUREKA job is queued or running/);
});

test('outputs land when a core observes the completion, reading the inputs as they are then', async () => {
  const emu = await siracusa();
  const { placed } = submit(emu, tiny());
  const [j] = npuEvents(emu);
  assert.equal(placed.read(), [0, 0, 0, 0, 0, 0]);
  emu.compute(WORK, Math.ceil(j.end / W) + 1); // past the end, but nobody looked
  assert.equal(placed.read(), [0, 0, 0, 0, 0, 0]);
  new Uint8Array(emu.memory.buffer)[placed.l1 + 0x100 + 4] = 7; // pixel 2 channel 0 changes before the observation
  emu.npu_read(REG.STATUS);
  assert.equal(placed.read(), [-1, 8, -1, 18, 7, 14]);
});

test('faults: pointer outside L1 (register, region, layer), config, protocol, never observed, other chips', async () => {
  const emu = await siracusa();
  emu.layer_begin(7);
  place(emu, tiny());
  emu.npu_read(REG.ACQUIRE);
  emu.npu_write(JOB(2), 0x1c00_0000); // OUTFEAT_PTR in L2
  assert.match(faultOf(emu, () => emu.npu_write(REG.TRIGGER, 0)),
    /^neureka TRIGGER: OUTFEAT_PTR: the job writes chip addresses 0x1c000000\.\.0x1c000017, which must lie inside L1 .*\(it starts in region L2\) in layer 7$/);
  const e2 = await siracusa();
  place(e2, tiny({ wmem: 0x3f_fff0 })); // 32-byte words straddling the end of MRAM
  e2.npu_read(REG.ACQUIRE);
  assert.match(faultOf(e2, () => e2.npu_write(REG.TRIGGER, 0)), /WEIGHTS_PTR: .*neural memory/);
  const e3 = await siracusa();
  place(e3, tiny());
  e3.npu_read(REG.ACQUIRE);
  e3.npu_write(JOB(23), (1 << 14) | (2 << 5) | 7);
  assert.match(faultOf(e3, () => e3.npu_write(REG.TRIGGER, 0)), /CONF0 streamin \(bit 14\) is not supported outside any layer/);
  const e4 = await siracusa();
  place(e4, { ...tiny(), pad: [3, 0, 0, 0] });
  e4.npu_read(REG.ACQUIRE);
  assert.match(faultOf(e4, () => e4.npu_write(REG.TRIGGER, 0)), /PADDING has a side above 2/);
  const e5 = await siracusa();
  place(e5, tiny());
  e5.npu_write(JOB(17), 0);
  e5.npu_read(REG.ACQUIRE);
  assert.match(faultOf(e5, () => e5.npu_write(REG.TRIGGER, 0)), /REMAINDER_HiWi must be/);
  const e6 = await siracusa();
  assert.match(faultOf(e6, () => e6.npu_write(REG.TRIGGER, 0)), /TRIGGER: no job was acquired/);
  assert.match(faultOf(e6, () => e6.npu_write(REG.STATUS, 0)), /offset 0x0000000c is read-only/);
  const e7 = await siracusa();
  submit(e7, tiny());
  assert.match(faultOf(e7, () => e7.npu_finish()), /^npu_finish: job 0 \(triggered in no layer, ends at cycle \d+\) was never observed finished/);
  const generic = await createEmulator('generic');
  assert.match(faultOf(generic, () => generic.npu_read(REG.STATUS)), /^npu_read: this chip has no N-EUREKA NPU/);
  assert.is(generic.npu_finish(), 0);
});

// --- timing ---

test('job cycles: the documented formula, worked out for two geometries; register accesses cost 1 cycle', async () => {
  // 1x1, 32 -> 32 channels, 6x6 output, 8-bit weights in L1, 8-bit scale: load 6 + 36 pixels + 32 words = 74,
  // matrix-vector 4 x 8 = 32, normalisation 9 + 8 = 17, stores 36: 159 cycles.
  const norm = { scale: new Array<number>(32).fill(1), scale32: false, shift: 0, relu: true };
  const s1: ConvSpec = {
    mode: '1x1', bits: 8, cin: 32, cout: 32, h: 6, w: 6, pad: [0, 0, 0, 0], signedIn: false,
    x: new Array<number>(36 * 32).fill(1), weight: () => 1, norm,
  };
  // 3x3, 28 -> 32, 6x6 output from 8x8: load 6 + 64 + 256 words = 326, matrix-vector 32 x 8 = 256, 17, 36: 635.
  // From the neural memory the 256 words come during the 256-cycle matrix-vector phase: 70 + 256 + 17 + 36 = 379.
  const s3: ConvSpec = {
    mode: '3x3', bits: 8, cin: 28, cout: 32, h: 8, w: 8, pad: [0, 0, 0, 0], signedIn: false,
    x: new Array<number>(64 * 28).fill(1), weight: () => 1, norm,
  };
  for (const [s, cycles] of [[s1, 159], [s3, 635], [{ ...s3, wmem: 0 }, 379]] as const) {
    assert.is(documentedCycles(s), cycles);
    const { emu } = await runConv(s);
    const [j] = npuEvents(emu);
    assert.is(j.end - j.start, cycles);
    assert.is(j.start, 26, 'ACQUIRE + 24 job registers + TRIGGER, 1 cycle each');
  }
  // Odd shapes: remainders everywhere, int32 output, depthwise, 2-bit weights.
  const odd: ConvSpec[] = [
    { mode: '3x3', bits: 5, cin: 30, cout: 35, h: 9, w: 8, pad: [1, 2, 0, 1], signedIn: true, x: new Array<number>(9 * 8 * 30).fill(3), weight: () => -2 },
    { mode: '3x3dw', bits: 2, cin: 0, cout: 30, h: 7, w: 13, pad: [2, 0, 1, 0], signedIn: false, x: new Array<number>(7 * 13 * 30).fill(3), weight: () => 1, norm: { scale: new Array<number>(30).fill(3), scale32: true, shift: 4, relu: false } },
    { mode: '1x1', bits: 3, cin: 70, cout: 40, h: 7, w: 7, pad: [0, 0, 0, 0], signedIn: false, x: new Array<number>(49 * 70).fill(3), weight: () => 1, wmem: 0x40_0000 },
  ];
  for (const s of odd) {
    const { emu } = await runConv(s);
    const [j] = npuEvents(emu);
    assert.is(j.end - j.start, documentedCycles(s), s.mode);
  }
});

test('weights from the neural memory make the job faster than weights from L1', async () => {
  const s: ConvSpec = {
    mode: '3x3', bits: 8, cin: 56, cout: 64, h: 10, w: 10, pad: [1, 1, 1, 1], signedIn: false,
    x: new Array<number>(100 * 56).fill(1), weight: () => 1,
  };
  const l1 = npuEvents((await runConv(s)).emu)[0];
  const nms = npuEvents((await runConv({ ...s, wmem: 0x1000 })).emu)[0];
  assert.ok(nms.end - nms.start < l1.end - l1.start);
});

test('L1 contention: cluster cores computing during a job are slowed by its TCDM load; the master is not', async () => {
  // The 1x1 job of 159 cycles above: the streamer reads 36 pixels + 32 weight words and stores 36 pixels = 104
  // accesses of 32 bytes, out of 159 cycles x 64 bytes of TCDM bandwidth: each core cycle in the job's window costs
  // 104 * 32 / (159 * 64) more (Q16, rounded down as the emulator keeps it).
  const norm = { scale: new Array<number>(32).fill(1), scale32: false, shift: 0, relu: true };
  const s: ConvSpec = {
    mode: '1x1', bits: 8, cin: 32, cout: 32, h: 6, w: 6, pad: [0, 0, 0, 0], signedIn: false,
    x: new Array<number>(36 * 32).fill(1), weight: () => 1, norm,
  };
  const emu = await siracusa();
  submit(emu, s);
  const [j] = npuEvents(emu);
  assert.equal([j.start, j.end], [26, 185]);
  const load = Math.floor((104 * 32 * 65536) / (159 * 64));
  emu.fork(2);
  const start = 26 + emu.fork_cycles(); // 66: inside the job
  emu.enter(0);
  assert.is(emu.cost_cycles(WORK), W);
  emu.compute(WORK, 1); // 35 cycles, all inside [26, 185)
  emu.enter(1);
  emu.compute(WORK, 5); // 175 cycles: 119 of them inside
  emu.join();
  assert.is(Number(emu.agent_cycles(1)), start + 35 + Math.floor((35 * load) / 65536));
  assert.is(Number(emu.agent_cycles(2)), start + 175 + Math.floor((119 * load) / 65536));
  assert.is(Number(emu.agent_busy(1)), 35 + Math.floor((35 * load) / 65536), 'the stall counts as busy');
  // The master (fabric controller, outside the cluster) is not slowed, and work after the job is not either.
  const e2 = await siracusa();
  submit(e2, s);
  e2.compute(WORK, 1);
  assert.is(Number(e2.total_cycles()), 26 + 35);
  e2.fork(1);
  e2.enter(0);
  e2.compute(WORK, 12); // starts at 61 + 40 = 101, 84 cycles inside
  e2.join();
  const t1 = Number(e2.agent_cycles(1));
  assert.is(t1, 101 + 420 + Math.floor((84 * load) / 65536));
  // Weights from the neural memory do not cross the TCDM: a lighter load (36 + 36 accesses).
  const e3 = await siracusa();
  submit(e3, { ...s, wmem: 0 });
  const [j3] = npuEvents(e3);
  const load3 = Math.floor((72 * 32 * 65536) / ((j3.end - j3.start) * 64));
  assert.ok(load3 < load);
  e3.fork(1);
  e3.enter(0);
  e3.compute(WORK, 1);
  e3.join();
  assert.is(Number(e3.agent_cycles(1)), 66 + 35 + Math.floor((35 * load3) / 65536));
});

test.run();
