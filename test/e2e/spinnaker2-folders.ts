/**
 * The deeploy-tests folders SpiNNaker2 runs: every integer folder (GEMM/MatMul, Conv and MaxPool on the MLA or core,
 * elementwise chains, softmaxes, norms, reductions, data movement, and the whole Models). A folder that stops being
 * supported must fail generation with a clear GenError('unsupported') (spinnaker2-unsupported.test.ts checks that
 * such errors name the node and the reason).
 */
export const S2_UNSUPPORTED: RegExp[] = [];

export const s2Supported = (name: string): boolean => !S2_UNSUPPORTED.some((re) => re.test(name));
