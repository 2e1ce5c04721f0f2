/**
 * The deeploy-tests folders SpiNNaker2 runs (every op of the folder has a SpiNNaker2 layer type); every other folder
 * must fail generation with a clear GenError('unsupported') naming the node (spinnaker2-unsupported.test.ts).
 */
export const S2_SUPPORTED: RegExp[] = [
  /^Kernels\/Integer\/GEMM\//,
  /^Kernels\/Integer\/MatMul\//,
  // Elementwise layers (fused expressions run by the firmware's stack machine).
  /^Kernels\/Integer\/(Add|Hardswish|Identity)\//,
  /^Kernels\/Integer\/(iNoNorm|Sub|TrueIntegerDiv)$/,
  /^Others\/TypeInference$/,
  // Row layers (the integer softmaxes).
  /^Kernels\/Integer\/Softmax\//,
  // Conv on the MLA over an im2col buffer.
  /^Kernels\/Integer\/(Conv|MaxPool)\//,
  // Whole networks of the layers above.
  // Data movement: copies of boxes through the worker's SRAM.
  /^Kernels\/Integer\/(Pad\/.*|Slice|Concat|Attention)$/,
  /^Others\/Backtracking$/,
  /^Models\/(miniMobileNet|miniMobileNetv2|CNN_Linear1|CNN_Linear2|EEGFormer)$/,
];

export const s2Supported = (name: string): boolean => S2_SUPPORTED.some((re) => re.test(name));
