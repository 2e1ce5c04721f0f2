import { attrInt, attrNumber } from '../../ir/attrs.js';
import { AnalogChip } from '../../platforms/brainscales2/analog/chip-model.js';
import { analogBlocks, rowBlocks } from '../../platforms/brainscales2/analog/partition.js';
import { intArray, modelError, need, type OpSpec } from '../op-spec.js';

/**
 * Bss2Matmul (domain firmgen): a matrix product on BrainScaleS-2's analog core, the reference model of
 * generator/platforms/brainscales2/analog/ (SEMANTICS.md 3's mock model with the chip's seeded fixed-pattern and
 * temporal noise). x: [M, K] in [0, 31]; W: [K, N] in [-63, 63]; the result is each 128-row block's int8 outputs,
 * [row blocks, M, N] (or [M, N] with one block): the digital sum follows as ordinary nodes. Attributes: num_sends,
 * gain, first_array (where the layer's first block goes), chip_seed, fixed_pattern, noise_seed, noise_std.
 */
export const analogMatmulOp: OpSpec = {
  ops: ['Bss2Matmul'],
  shape(node, inputs) {
    const x = need(node, inputs, 0).shape;
    const w = need(node, inputs, 1).shape;
    if (x.length !== 2 || w.length !== 2 || x[1] !== w[0]) throw modelError(node, 'Bss2Matmul takes [M, K] by [K, N]');
    const rb = rowBlocks(x[1]);
    return [rb > 1 ? [rb, x[0], w[1]] : [x[0], w[1]]];
  },
  range: () => [{ min: -128, max: 127 }],
  evaluate(node, inputs) {
    const x = need(node, inputs, 0);
    const w = need(node, inputs, 1);
    const [M, K] = x.shape;
    const N = w.shape[1];
    const chip = new AnalogChip({
      chipSeed: attrInt(node, 'chip_seed'), fixedPattern: attrInt(node, 'fixed_pattern') !== 0,
      noiseSeed: attrInt(node, 'noise_seed'), noiseStd: attrNumber(node, 'noise_std'),
    });
    let local: number[][];
    try {
      local = analogBlocks(chip, {
        x: x.data, w: w.data, M, K, N, numSends: attrInt(node, 'num_sends'), gain: attrNumber(node, 'gain'),
        firstArray: attrInt(node, 'first_array'),
      });
    } catch (e) {
      throw modelError(node, (e as Error).message);
    }
    const rb = local.length;
    const out = intArray(rb > 1 ? [rb, M, N] : [M, N]);
    local.forEach((b, i) => out.data.set(b, i * M * N));
    return [out];
  },
};
