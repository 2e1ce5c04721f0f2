// The convolution of the N-EUREKA job neureka-job.ts decoded (docs/neureka.md, "What a job computes"; SEMANTICS.md
// section 3). The weight memory format is decoded here from its description (HARDWARE.md "Weight layout",
// docs/neureka.md), not from the generator's encoder: the tests encode with generator/platforms/siracusa/npu/weights.ts and compare
// with the reference interpreter, so the two implementations check each other.

import {
  biasBase, biasOn, bits, bottom, inBase, inD0, inD1, k, ki, ko, left, MAX_WEIGHTS, mode, MODE_1X1, MODE_DW, nKi, norm,
  outBase, outD1, outD2, outShift, padValue, perShift, relu, remKi, right, scale32, scaleBase, shiftBase, signedIn, top,
  wBase, wD0, wD1, woff, ho, wo,
} from "./neureka-job";

const KI_3X3: i32 = 28;
const KI_1X1: i32 = 32;
/** The decoded weights of one output channel, [tap][ci] (depthwise [tap]), and their sum per tap (for padding). */
const W = memory.data(MAX_WEIGHTS * 4, 16);
const WSUM = memory.data(9 * 4);

// @ts-ignore: decorator
@inline function bit(word: usize, b: i32): i32 {
  return (<i32>load<u8>(word + <usize>(b >> 3)) >> (b & 7)) & 1;
}

/** Weights of output channel `co` into W as [tap][ci] (depthwise: [tap]), offset added; WSUM per tap. */
function decodeWeights(co: i32): void {
  const taps = k * k;
  if (mode == MODE_DW) {
    const sub = co / KI_3X3;
    const c = co % KI_3X3;
    for (let t = 0; t < 9; t++) store<i32>(W + (<usize>t << 2), 0);
    for (let b = 0; b < bits; b++) {
      const word = <usize>(wBase + <i64>(sub * bits + b) * wD0);
      for (let t = 0; t < 9; t++) {
        const p = W + (<usize>t << 2);
        store<i32>(p, load<i32>(p) | (bit(word, t * KI_3X3 + c) << b));
      }
    }
    for (let t = 0; t < 9; t++) {
      const p = W + (<usize>t << 2);
      store<i32>(p, load<i32>(p) + woff);
      store<i32>(WSUM + (<usize>t << 2), load<i32>(p));
    }
    return;
  }
  memory.fill(W, 0, <usize>(taps * ki) << 2);
  const chan = wBase + <i64>co * wD1;
  for (let s = 0; s < nKi; s++) {
    const n = s == nKi - 1 ? remKi : (mode == MODE_1X1 ? KI_1X1 : KI_3X3);
    if (mode == MODE_1X1) {
      const word = <usize>(chan + <i64>s * wD0);
      for (let c = 0; c < n; c++) {
        let v = 0;
        for (let b = 0; b < bits; b++) v |= bit(word, (c >> 2) * 32 + b * 4 + (c & 3)) << b;
        store<i32>(W + (<usize>(s * KI_1X1 + c) << 2), v);
      }
    } else {
      for (let b = 0; b < bits; b++) {
        const word = <usize>(chan + <i64>(s * bits + b) * wD0);
        for (let t = 0; t < 9; t++) {
          for (let c = 0; c < n; c++) {
            const p = W + (<usize>(t * ki + s * KI_3X3 + c) << 2);
            store<i32>(p, load<i32>(p) | (bit(word, t * KI_3X3 + c) << b));
          }
        }
      }
    }
  }
  for (let t = 0; t < taps; t++) {
    let sum = 0;
    for (let c = 0; c < ki; c++) {
      const p = W + (<usize>(t * ki + c) << 2);
      const w = load<i32>(p) + woff;
      store<i32>(p, w);
      sum += w;
    }
    store<i32>(WSUM + (<usize>t << 2), sum);
  }
}

/** The accumulator of output channel `co` at output pixel (y, x): wrap_int32 of the padded convolution. */
function accumulate<T>(co: i32, y: i32, x: i32): i32 {
  const hp = ho + k - 1;
  const wp = wo + k - 1;
  let acc: i32 = 0;
  for (let ky = 0; ky < k; ky++) {
    const r = y + ky;
    const rowPad = r < top || r >= hp - bottom;
    for (let kx = 0; kx < k; kx++) {
      const c = x + kx;
      const t = ky * k + kx;
      if (rowPad || c < left || c >= wp - right) {
        acc += padValue * load<i32>(WSUM + (<usize>t << 2));
        continue;
      }
      const px = <usize>(inBase + <i64>r * inD1 + <i64>c * inD0);
      if (mode == MODE_DW) {
        acc += <i32>load<T>(px + <usize>co) * load<i32>(W + (<usize>t << 2));
      } else {
        const w = W + (<usize>(t * ki) << 2);
        for (let i = 0; i < ki; i++) acc += <i32>load<T>(px + <usize>i) * load<i32>(w + (<usize>i << 2));
      }
    }
  }
  return acc;
}

/** Runs the decoded job: every output lands in L1 now, computed from the inputs as they are now. */
export function runJob(): void {
  for (let co = 0; co < ko; co++) {
    decodeWeights(co);
    const scale: i64 = !norm ? 0 : scale32 ? <i64>load<u32>(<usize>(scaleBase + <i64>co * 4)) : <i64>load<u8>(<usize>(scaleBase + co));
    const shift: i32 = perShift ? <i32>load<u8>(<usize>(shiftBase + co)) : outShift;
    const bias: i64 = biasOn ? <i64>load<i32>(<usize>(biasBase + <i64>co * 4)) : 0;
    for (let y = 0; y < ho; y++) {
      for (let x = 0; x < wo; x++) {
        const acc = signedIn ? accumulate<i8>(co, y, x) : accumulate<u8>(co, y, x);
        const px = <usize>(outBase + <i64>y * outD2 + <i64>x * outD1);
        if (!norm) {
          store<i32>(px + (<usize>co << 2), acc);
          continue;
        }
        store<u8>(px + <usize>co, <u8>outputStage(acc, scale, bias, shift));
      }
    }
  }
}

/**
 * SEMANTICS.md section 3: 64-bit product, bias after wrap_int32 with sat_int32, ReLU, floor shift (5 bits: a
 * per-channel shift byte is taken & 31, docs/neureka.md), saturate.
 */
function outputStage(acc: i32, scale: i64, bias: i64, shift: i32): i32 {
  let t: i64 = <i64>acc * scale;
  if (biasOn) t = min(max(<i64><i32>t + bias, <i64>i32.MIN_VALUE), <i64>i32.MAX_VALUE);
  if (relu) t = max(t, 0);
  t = t >> <i64>(shift & 31);
  return relu ? <i32>min(t, 255) : <i32>min(max(t, -128), 127);
}
