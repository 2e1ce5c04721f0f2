import * as ort from 'onnxruntime-node';

/**
 * An onnxruntime-node CPU session as the examples and tests compare against it. On x86 without VNNI (AVX2, AVX-512F)
 * ORT's u8·s8 kernels add two products in a saturating 16-bit lane (vpmaddubsw): with full-range int8 weights its
 * integer results are then off by up to thousands of LSB (seen on an AVX2-only machine: 16,001). Its session option
 * x64quantprecision computes those products in 16 bits instead, as ORT documents for this case (elsewhere it changes
 * nothing). That option, and on such machines ORT's optimizer alone, can turn an operator's int8 weights into uint8
 * and then find no kernel for the pair (onnxruntime-node 1.30: "Failed to find kernel for com.microsoft.QGemm",
 * QLinearConv, QLinearMatMul): the next way in the list below is the same computation.
 */
export async function ortSession(model: Uint8Array, optimize = true): Promise<ort.InferenceSession> {
  const levels: ('all' | 'disabled')[] = optimize ? ['all', 'disabled'] : ['disabled'];
  const ways = levels.flatMap((l): ['all' | 'disabled', boolean][] => [[l, true], [l, false]]);
  let last: unknown;
  for (const [l, precise] of ways) {
    try {
      return await ort.InferenceSession.create(model, {
        graphOptimizationLevel: l, intraOpNumThreads: 1, executionProviders: ['cpu'],
        ...(precise ? { extra: { session: { x64quantprecision: '1' } } } : {}),
      });
    } catch (e) {
      if (!/Failed to find kernel for /.test((e as Error).message)) throw e;
      last = e;
    }
  }
  throw last;
}
