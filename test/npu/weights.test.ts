import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeWeights, encodedBytes, weightBits, type NpuMode } from '../../generator/platforms/siracusa/npu/weights.js';
import { Rng } from '../helpers/random.js';

/*
 * The N-EUREKA weight format (HARDWARE.md "Weight layout"; pulp-nnx test/NeurekaWeight.py describes the same
 * layout as array reshapes). Expected bytes below are worked out by hand from that description; the round trip
 * uses a decoder written here from the description, not from the encoder.
 */

const bit = (bytes: Uint8Array, i: number): number => (bytes[i >> 3] >> (i & 7)) & 1;

test('1x1: one word per (cout, cin subtile); plane b of channel c at (c >> 2) * 32 + b * 4 + (c & 3)', () => {
  // w = -127 at 8 bits is stored as 1: only plane 0 of channel 0, bit 0 of byte 0.
  let e = encodeWeights({ mode: '1x1', bits: 8, cout: 1, cin: 1, weight: () => -127 });
  assert.equal(e.length, 32);
  assert.equal(Array.from(e), [1, ...new Array(31).fill(0)]);
  // w = 0 is stored as 128: plane 7 of channel 0 -> bit 28 -> byte 3, bit 4 (0x10).
  e = encodeWeights({ mode: '1x1', bits: 8, cout: 1, cin: 1, weight: () => 0 });
  assert.equal(e[3], 0x10);
  assert.equal(e.reduce((a, b) => a + b, 0), 0x10);
  // Channel 5 (group 1, lane 1), w = -126 stored 2 = plane 1: bit 32 + 4 + 1 = 37 -> byte 4, bit 5 (0x20).
  e = encodeWeights({ mode: '1x1', bits: 8, cout: 1, cin: 6, weight: (_co, ci) => (ci === 5 ? -126 : -128) });
  assert.equal(e[4], 0x20);
  assert.equal(e.reduce((a, b) => a + b, 0), 0x20);
  // 4-bit weights keep all 8 plane slots: w = 7 stored 15 -> planes 0..3 of channel 0 at bits 0, 4, 8, 12.
  e = encodeWeights({ mode: '1x1', bits: 4, cout: 1, cin: 1, weight: () => 7 });
  assert.equal(Array.from(e.subarray(0, 2)), [0x11, 0x11]);
  // Output channel 1 starts one word later; 33 input channels need 2 subtiles: 4 words for 2 channels out.
  assert.is(encodedBytes('1x1', 8, 2, 33), 4 * 32);
  e = encodeWeights({ mode: '1x1', bits: 8, cout: 2, cin: 33, weight: (co, ci) => (co === 1 && ci === 32 ? -127 : -128) });
  assert.equal(e[3 * 32], 1); // word (co 1, subtile 1), channel 0 of that subtile, plane 0
});

test('3x3: one word per (cout, cin subtile, plane) with bit tap * 28 + channel', () => {
  // 2-bit weights, offset -2: w = 1 is stored 3 (planes 0 and 1). Centre tap (4), channel 0 -> bit 112 = byte 14.
  const e = encodeWeights({ mode: '3x3', bits: 2, cout: 1, cin: 1, weight: (_co, _ci, tap) => (tap === 4 ? 1 : -2) });
  assert.is(e.length, 64);
  assert.is(e[14], 1);
  assert.is(e[32 + 14], 1);
  assert.is(e.reduce((a, b) => a + b, 0), 2);
  // Channel 29 is channel 1 of subtile 1: word (co 0, subtile 1, plane 0) = word 8 at 8 bits; tap 8 -> bit 225.
  const f = encodeWeights({ mode: '3x3', bits: 8, cout: 1, cin: 30, weight: (_co, ci, tap) => (ci === 29 && tap === 8 ? -127 : -128) });
  assert.is(f.length, 2 * 8 * 32);
  assert.is(f[8 * 32 + 28], 1 << 1); // bit 225 = byte 28, bit 1
  assert.is(f.reduce((a, b) => a + b, 0), 2);
});

test('3x3 depthwise: one word per (28-channel subtile, plane)', () => {
  // 30 channels -> 2 subtiles; channel 29 is lane 1 of subtile 1; 3-bit weights (offset -4): w = -3 stored 1.
  const e = encodeWeights({ mode: '3x3dw', bits: 3, cout: 30, cin: 30, weight: (co, _ci, tap) => (co === 29 && tap === 0 ? -3 : -4) });
  assert.is(e.length, 2 * 3 * 32);
  assert.is(e[3 * 32], 1 << 1); // word (subtile 1, plane 0), bit 1
  assert.is(e.reduce((a, b) => a + b, 0), 2);
});

test('weightBits picks the narrowest signed width from 2 to 8', () => {
  assert.is(weightBits([0, 1, -2]), 2);
  assert.is(weightBits([-3, 4]), 4);
  assert.is(weightBits([-128, 127]), 8);
  assert.throws(() => weightBits([128]), /more than 8 bits/);
  assert.throws(() => encodeWeights({ mode: '1x1', bits: 2, cout: 1, cin: 1, weight: () => 2 }), /does not fit 2 bits/);
});

/** Reads weight (co, ci, tap) back from the memory format, following HARDWARE.md's description. */
function decode(bytes: Uint8Array, mode: NpuMode, bits: number, cin: number, co: number, ci: number, tap: number): number {
  let s = 0;
  for (let b = 0; b < bits; b++) {
    let at: number;
    if (mode === '1x1') {
      const word = co * Math.ceil(cin / 32) + Math.floor(ci / 32);
      const c = ci % 32;
      at = word * 256 + Math.floor(c / 4) * 32 + b * 4 + (c % 4);
    } else if (mode === '3x3') {
      const word = (co * Math.ceil(cin / 28) + Math.floor(ci / 28)) * bits + b;
      at = word * 256 + tap * 28 + (ci % 28);
    } else {
      const word = Math.floor(co / 28) * bits + b;
      at = word * 256 + tap * 28 + (co % 28);
    }
    s |= bit(bytes, at) << b;
  }
  return s - (1 << (bits - 1));
}

test('random weights round-trip through the format in every mode and width', () => {
  const rng = new Rng(7);
  for (let i = 0; i < 60; i++) {
    const mode = rng.pick<NpuMode>(['1x1', '3x3', '3x3dw']);
    const bits = rng.int(2, 8);
    const cout = rng.int(1, 70);
    const cin = mode === '3x3dw' ? cout : rng.int(1, 70);
    const taps = mode === '1x1' ? 1 : 9;
    const lo = -(1 << (bits - 1));
    const w = Array.from({ length: cout * cin * taps }, () => rng.int(lo, -lo - 1));
    const at = (co: number, ci: number, tap: number): number => (mode === '3x3dw' ? w[co * taps + tap] : w[(co * cin + ci) * taps + tap]);
    const e = encodeWeights({ mode, bits, cout, cin, weight: at });
    assert.is(e.length, encodedBytes(mode, bits, cout, cin));
    for (let co = 0; co < cout; co++) {
      for (let ci = 0; ci < (mode === '3x3dw' ? 1 : cin); ci++) {
        for (let tap = 0; tap < taps; tap++) {
          const want = at(co, ci, tap);
          const got = decode(e, mode, bits, cin, co, ci, tap);
          if (got !== want) assert.unreachable(`${mode} ${bits}-bit co ${co} ci ${ci} tap ${tap}: ${got} != ${want}`);
        }
      }
    }
  }
});

test.run();
