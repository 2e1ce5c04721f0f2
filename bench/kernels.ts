/**
 * The benchmark's int8 kernels as one-node models of the integer dialect (kernel + RequantShift to int8, which the
 * generator fuses into one layer), with seeded inputs, and the same arithmetic as plain JavaScript loops.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../generator/ir/ndarray.js';
import { encodeNpz } from '../generator/onnx/npy.js';
import { float, OnnxBuilder } from '../test/helpers/onnx-builder.js';
import { Rng } from '../test/helpers/random.js';

export interface BenchKernel {
  name: string;
  macs: number;
  /** Writes model.onnx and inputs.npz into `dir`; returns the model path and the inputs. */
  write(dir: string): { model: string; inputs: NDArray[] };
  /** The same computation in plain JS (Int8Array loops, int32 accumulators, the same requantization). */
  js(): () => Int8Array;
}

const SHIFT = 14;
const MUL = 37;
const ADD = 1 << (SHIFT - 1);

function requant(b: OnnxBuilder, x: string, y: string): void {
  b.initializer(`${y}_mul`, 'int32', [1], [MUL]);
  b.initializer(`${y}_add`, 'int32', [1], [ADD]);
  b.node('RequantShift', [x, `${y}_mul`, `${y}_add`], [y], { div: float(2 ** SHIFT), n_levels: float(256), signed: float(1) });
}

/**
 * RequantShift as SEMANTICS.md defines it: floor((acc * mul + add + 2^(shift-1)) / 2^shift), clipped to int8. The
 * benchmark's sums stay far inside int32 (|acc| <= 288 x 128 x 128, x 37), so `>>` is that floor.
 */
const ROUND = 1 << (SHIFT - 1);
const rq = (acc: number): number => {
  const v = (acc * MUL + ADD + ROUND) >> SHIFT;
  return v < -128 ? -128 : v > 127 ? 127 : v;
};

function save(dir: string, b: OnnxBuilder, inputs: NDArray[]): { model: string; inputs: NDArray[] } {
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  writeFileSync(model, b.bytes());
  writeFileSync(join(dir, 'inputs.npz'), encodeNpz(new Map(inputs.map((a, i) => [`in${i}`, a]))));
  return { model, inputs };
}

/** Y[M,N] = A[M,K] x B: `transB` = Gemm with weights [N,K] (the fully-connected layout), else MatMul with [K,N]. */
export function gemmKernel(M: number, K: number, N: number, transB: boolean): BenchKernel {
  const rng = new Rng(42);
  const a = rng.ints(M * K, -128, 127);
  const w = rng.ints(K * N, -128, 127);
  return {
    name: `${transB ? 'gemm' : 'matmul'}${M}x${K}x${N}`,
    macs: M * K * N,
    write(dir) {
      const b = new OnnxBuilder('bench').input('a', 'int8', [M, K]);
      b.initializer('w', 'int8', transB ? [N, K] : [K, N], w);
      if (transB) b.node('Gemm', ['a', 'w'], ['p'], { transB: 1 });
      else b.node('MatMul', ['a', 'w'], ['p']);
      requant(b, 'p', 'y');
      b.output('y', 'float32');
      return save(dir, b, [ndarray('int8', [M, K], a)]);
    },
    js() {
      const A = Int8Array.from(a);
      const B = Int8Array.from(w);
      const Y = new Int8Array(M * N);
      const [sk, sn] = transB ? [1, K] : [N, 1];
      return () => {
        for (let m = 0; m < M; m++) {
          for (let n = 0; n < N; n++) {
            let acc = 0;
            for (let k = 0; k < K; k++) acc += A[m * K + k] * B[k * sk + n * sn];
            Y[m * N + n] = rq(acc);
          }
        }
        return Y;
      };
    },
  };
}

/** 3x3 convolution, stride 1, pad 1, NCHW: C -> CO channels on H x W. */
export function convKernel(C: number, CO: number, H: number, W: number): BenchKernel {
  const rng = new Rng(7);
  const x = rng.ints(C * H * W, -128, 127);
  const w = rng.ints(CO * C * 9, -128, 127);
  return {
    name: `conv3x3_${C}to${CO}_${H}x${W}`,
    macs: CO * H * W * C * 9,
    write(dir) {
      const b = new OnnxBuilder('bench').input('x', 'int8', [1, C, H, W]);
      b.initializer('w', 'int8', [CO, C, 3, 3], w);
      b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [1, 1] });
      requant(b, 'p', 'y');
      b.output('y', 'float32');
      return save(dir, b, [ndarray('int8', [1, C, H, W], x)]);
    },
    js() {
      const X = Int8Array.from(x);
      const Wt = Int8Array.from(w);
      const Y = new Int8Array(CO * H * W);
      return () => {
        for (let co = 0; co < CO; co++) {
          for (let oy = 0; oy < H; oy++) {
            for (let ox = 0; ox < W; ox++) {
              let acc = 0;
              for (let ci = 0; ci < C; ci++) {
                for (let ky = 0; ky < 3; ky++) {
                  const iy = oy + ky - 1;
                  if (iy < 0 || iy >= H) continue;
                  for (let kx = 0; kx < 3; kx++) {
                    const ix = ox + kx - 1;
                    if (ix < 0 || ix >= W) continue;
                    acc += X[(ci * H + iy) * W + ix] * Wt[((co * C + ci) * 3 + ky) * 3 + kx];
                  }
                }
              }
              Y[(co * H + oy) * W + ox] = rq(acc);
            }
          }
        }
        return Y;
      };
    },
  };
}
