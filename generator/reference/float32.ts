/*
 * float32 arithmetic in the order ONNX Runtime's CPU kernels use (NCHW kernels, one thread), so float results can
 * be compared bit for bit. Elementwise ops are one IEEE operation each (computing in float64 and rounding once with
 * Math.fround is exact for + - * / of float32 values). Dot products follow MLAS's SGEMM: fused multiply-adds along
 * k in blocks, each block summed from zero and then folded into the output. Sums follow the pooling kernels.
 * Checked against onnxruntime-node in test/reference/ort.test.ts. ORT's NCHWc layout (graph optimisation level
 * 'all' on wide channel counts), its depthwise kernels and multi-threaded convolution block differently and can
 * differ in the last bit.
 */

const f32 = Math.fround;

/** K is split in blocks of this many products by MLAS's SGEMM on a packed (constant) B. */
export const SGEMM_STRIDE_K = 256;

/**
 * The K block of MLAS's convolution (im2col, then SGEMM on column slices) for `columns` output positions and a
 * K of `k`, on one thread: it starts from 128 x 128 and trades N for K the way MlasConvOperation does.
 */
export function convStrideK(columns: number, k: number): number {
  let strideN = 128;
  let strideK = 128;
  if (columns >= k) {
    while (strideK / 2 >= k) {
      strideN *= 2;
      strideK /= 2;
    }
  } else {
    while (strideN > 16 && strideN / 2 >= columns) {
      strideK *= 2;
      strideN /= 2;
    }
  }
  return strideK;
}

/**
 * fround(a*b + c) with a single rounding (an FMA), for float32 a, b, c. The product is exact in float64 (48 bits);
 * the float64 sum can be rounded, which matters only when it lands exactly halfway between two float32 values:
 * then the sign of the sum's rounding error decides (TwoSum), as the exact sum would.
 */
export function fma32(a: number, b: number, c: number): number {
  const p = a * b;
  const s = c + p;
  const r = f32(s);
  const d = s - r;
  if (d === 0) return r;
  const other = s + d; // the float32 on the other side when s is a midpoint
  if (f32(other) !== other) return r;
  const z = s - c;
  const e = (c - (s - z)) + (p - z);
  if (e === 0) return r; // a true tie: fround already rounded half to even
  return (e > 0) === (other > r) ? other : r;
}

/**
 * A float32 dot product in MLAS SGEMM order: reset(), add(a, b) per product, then result(). Each block of
 * SGEMM_STRIDE_K products is accumulated from zero and folded into the output as the SGEMM kernel does:
 * y = alpha*block for the first block when there is no initial value, else y = fma(block, alpha, y).
 * With an initial value (Gemm's beta*C, laid down before the GEMM) every block is folded in.
 */
export class SgemmDot {
  private total = 0;
  private block = 0;
  private n = 0;
  private alpha = 1;
  private zeroMode = true;
  private strideK = SGEMM_STRIDE_K;

  reset(alpha = 1, init?: number, strideK = SGEMM_STRIDE_K): void {
    this.strideK = strideK;
    this.total = init ?? 0;
    this.zeroMode = init === undefined;
    this.alpha = alpha;
    this.block = 0;
    this.n = 0;
  }

  add(a: number, b: number): void {
    this.block = fma32(a, b, this.block);
    if (++this.n % this.strideK === 0) this.flush();
  }

  result(): number {
    if (this.n === 0 || this.n % this.strideK !== 0) this.flush();
    return this.total;
  }

  private flush(): void {
    const first = this.n <= this.strideK;
    this.total = first && this.zeroMode ? f32(this.alpha * this.block) : fma32(this.block, this.alpha, this.total);
    this.block = 0;
  }
}

/**
 * A float32 sum in the order of Eigen's vectorised reduction with 4-lane packets (ORT's GlobalAveragePool): lane l
 * sums elements l, l+4, l+8, ...; the lanes combine pairwise ((l0+l2) + (l1+l3)); the tail is added in order.
 */
export function packetSum4(values: ArrayLike<number>, start: number, count: number): number {
  const full = count - (count % 4);
  if (full === 0) {
    let t = 0;
    for (let i = 0; i < count; i++) t = f32(t + values[start + i]);
    return t;
  }
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  for (let i = 0; i < full; i += 4) {
    l0 = f32(l0 + values[start + i]);
    l1 = f32(l1 + values[start + i + 1]);
    l2 = f32(l2 + values[start + i + 2]);
    l3 = f32(l3 + values[start + i + 3]);
  }
  let t = f32(f32(l0 + l2) + f32(l1 + l3));
  for (let i = full; i < count; i++) t = f32(t + values[start + i]);
  return t;
}
