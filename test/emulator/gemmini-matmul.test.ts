/**
 * Whole int8 matmuls on the emulator's Gemmini against the SEMANTICS.md 3 reference of gemmini-driver.ts:
 * C = act(sat_int8(round_half_even(float32(D + A.B) * acc_scale))). Tiled by hand through mvin/preload/compute/mvout
 * in both dataflows (16x16 and 37x53x29), and through loop_ws on several shapes, non-multiples of 16 included.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ACC, ACC_ADD, accScaleRef, type Chip, compute, configEx, configLd, configSt, DRAM, GARBAGE, gemmini, getI32, getI8,
  int8s, loopWs, matmulRef, mvin, mvout, OS, preload, putI32, putI8, WS,
} from './gemmini-driver.js';

const A_AT = DRAM + 0x1_0000;
const B_AT = DRAM + 0x4_0000;
const D_AT = DRAM + 0x8_0000;
const C_AT = DRAM + 0xC_0000;

interface Problem {
  M: number; N: number; K: number;
  A: number[]; B: number[]; bias: number[] | null;
  scale: number; relu: boolean;
}

function problem(M: number, K: number, N: number, seed: number, withBias: boolean, scale: number, relu: boolean): Problem {
  const bias = withBias ? int8s(N, seed + 2).map((v) => v * 700) : null;
  return { M, N, K, A: int8s(M * K, seed), B: int8s(K * N, seed + 1), bias, scale, relu };
}

function expected(p: Problem): number[] {
  return matmulRef(p.A, p.B, p.bias, p.M, p.N, p.K).map((x) => accScaleRef(x, p.scale, p.relu));
}

function load(c: Chip, p: Problem): void {
  putI8(c, A_AT, p.A);
  putI8(c, B_AT, p.B);
  if (p.bias) putI32(c, D_AT, p.bias);
}

/** Blocks of 16 along a dimension: [start, size]. */
function blocks(n: number): [number, number][] {
  const out: [number, number][] = [];
  for (let s = 0; s < n; s += 16) out.push([s, Math.min(16, n - s)]);
  return out;
}

/**
 * Hand-tiled, as gemmini.h's sp_tiled_matmul_ws / _os issue it: per 16x16 output block, the bias moved into the
 * accumulator (one row repeated: stride 0), then per k block A and B moved in (alternating scratchpad buffers) and
 * multiplied; the block moved out scaled.
 */
function tiled(c: Chip, p: Problem, dataflow: number): void {
  const { M, N, K } = p;
  configEx(c, { dataflow });
  configLd(c, K, 1, 0, 16, 0);
  configLd(c, N, 1, 0, 16, 1);
  configLd(c, 0, 1, 0, 16, 2);
  configSt(c, N, p.relu ? 1 : 0, p.scale);
  let buf = 0;
  for (const [i0, rows] of blocks(M)) {
    for (const [j0, cols] of blocks(N)) {
      if (p.bias) mvin(c, D_AT + j0 * 4, ACC | 0, cols, rows, 2);
      const ks = blocks(K);
      ks.forEach(([k0, kk], n) => {
        const aAddr = 64 * buf;
        const bAddr = 64 * buf + 32;
        buf ^= 1;
        mvin(c, A_AT + i0 * K + k0, aAddr, kk, rows, 0);
        mvin(c, B_AT + k0 * N + j0, bAddr, cols, kk, 1);
        const first = n === 0;
        const last = n === ks.length - 1;
        const out = first && !p.bias ? ACC | 0 : ACC_ADD | 0;
        if (dataflow === WS) {
          preload(c, bAddr, out, cols, kk, cols, rows);
          compute(c, true, aAddr, GARBAGE, kk, rows, 16, 16);
        } else {
          // the partial sums stay in the PEs; C leaves once, after the last k block, added onto the bias
          preload(c, GARBAGE, last ? (p.bias ? ACC_ADD : ACC) | 0 : GARBAGE, 16, 16, cols, rows);
          compute(c, first, aAddr, bAddr, kk, rows, cols, kk);
        }
      });
      mvout(c, C_AT + i0 * N + j0, ACC | 0, cols, rows);
    }
  }
  c.emu.gemmini_fence();
}

for (const dataflow of [WS, OS]) {
  const name = dataflow === WS ? 'weight-stationary' : 'output-stationary';
  test(`${name}, hand-tiled: 16x16x16 and 37x53x29 (bias, ReLU, scale) equal the reference`, async () => {
    for (const p of [problem(16, 16, 16, 11, false, 0.004, false), problem(37, 53, 29, 5, true, 0.0015, true)]) {
      const c = await gemmini();
      load(c, p);
      tiled(c, p, dataflow);
      assert.equal(getI8(c, C_AT, p.M * p.N), expected(p), `${p.M}x${p.K}x${p.N}`);
    }
  });
}

interface LoopCase {
  p: Problem;
  fullC?: boolean;
  bTranspose?: boolean;
  repeatingBias?: boolean;
}

/** loop_ws as gemmini.h's tiled_matmul_outer sets it up: mvin strides per operand, store stride and scale, loop. */
function viaLoop(c: Chip, l: LoopCase): void {
  const { M, N, K } = l.p;
  const I = Math.ceil(M / 16);
  const J = Math.ceil(N / 16);
  const KB = Math.ceil(K / 16);
  if (l.bTranspose) {
    const Bt = new Array<number>(K * N);
    for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) Bt[n * K + k] = l.p.B[k * N + n];
    putI8(c, B_AT, Bt);
  }
  const sizeofC = l.fullC ? 4 : 1;
  configEx(c, { dataflow: WS, bTranspose: l.bTranspose ? 1 : 0 });
  configLd(c, K, 1, 0, 16, 0);
  configLd(c, l.bTranspose ? K : N, 1, 0, 16, 1);
  configLd(c, l.repeatingBias ? 0 : N * 4, 1, 0, 16, 2);
  configSt(c, N * sizeofC, l.p.relu ? 1 : 0, l.p.scale);
  loopWs(c, {
    I, J, K: KB, padI: I * 16 - M, padJ: J * 16 - N, padK: KB * 16 - K,
    A: A_AT, B: B_AT, D: l.p.bias ? D_AT : 0, C: C_AT,
    strideA: K, strideB: l.bTranspose ? K : N, strideD: l.repeatingBias ? 0 : N, strideC: N,
    bTranspose: l.bTranspose ? 1 : 0, fullC: l.fullC ? 1 : 0, exAccumulate: l.p.bias ? 1 : 0,
  });
  c.emu.gemmini_fence();
}

test('loop_ws: 16x16x16, 37x53x29 (bias, ReLU), 50x20x70 (int32 out), 20x33x18 (B transposed) equal the reference', async () => {
  const cases: LoopCase[] = [
    { p: problem(16, 16, 16, 21, false, 0.004, false) },
    { p: problem(37, 53, 29, 5, true, 0.0015, true), repeatingBias: true },
    { p: problem(50, 20, 70, 8, false, 1, false), fullC: true },
    { p: problem(20, 33, 18, 3, false, 0.002, true), bTranspose: true },
  ];
  for (const l of cases) {
    const c = await gemmini();
    load(c, l.p);
    viaLoop(c, l);
    const { M, N, K } = l.p;
    const want = l.fullC ? matmulRef(l.p.A, l.p.B, l.p.bias, M, N, K) : expected(l.p);
    const got = l.fullC ? getI32(c, C_AT, M * N) : getI8(c, C_AT, M * N);
    assert.equal(got, want, `${M}x${K}x${N}`);
  }
});

test('loop_ws with a bias matrix (one row per output row) and a bias-free residual-add loop', async () => {
  const c = await gemmini();
  const p = problem(19, 24, 21, 9, false, 0.003, false);
  const D = int8s(19 * 21, 77).map((v) => v * 300);
  load(c, p);
  putI32(c, D_AT, D);
  configEx(c, { dataflow: WS });
  configLd(c, 24, 1, 0, 16, 0);
  configLd(c, 21, 1, 0, 16, 1);
  configLd(c, 21 * 4, 1, 0, 16, 2);
  configSt(c, 21, 0, 0.003);
  loopWs(c, { I: 2, J: 2, K: 2, padI: 13, padJ: 11, padK: 8, A: A_AT, B: B_AT, D: D_AT, C: C_AT,
    strideA: 24, strideB: 21, strideD: 21, strideC: 21, exAccumulate: 1 });
  c.emu.gemmini_fence();
  const acc = matmulRef(p.A, p.B, null, 19, 21, 24).map((x, i) => (x + D[i]) | 0);
  assert.equal(getI8(c, C_AT, 19 * 21), acc.map((x) => accScaleRef(x, 0.003, false)));

  // resadd: C = scale(A + B), both int8 moved into the accumulator (shrunk), 18 x 20
  const X = int8s(18 * 20, 4);
  const Y = int8s(18 * 20, 6);
  putI8(c, A_AT, X);
  putI8(c, B_AT, Y);
  configLd(c, 20, 1, 1, 16, 0);
  configLd(c, 20, 1, 1, 16, 1);
  configSt(c, 20, 1, 0.5);
  loopWs(c, { I: 2, J: 2, K: 0, padI: 14, padJ: 12, padK: 0, A: A_AT, B: B_AT, D: 0, C: C_AT,
    strideA: 20, strideB: 20, strideD: 0, strideC: 20, exAccumulate: 0, resadd: 1 });
  c.emu.gemmini_fence();
  assert.equal(getI8(c, C_AT, 18 * 20), X.map((x, i) => accScaleRef(x + Y[i], 0.5, true)));
});

test.run();
