/**
 * Two SpiNNaker2 gaps the random-graph fuzzer found (clean rejections of valid graphs): MaxPool with ceil_mode 1
 * (now the same pool with more end padding, platforms/spinnaker2/ceil-pool.ts) and chains of elementwise ops whose
 * fusion would give one layer more operands than it takes (fusion now stops at that bound). Both exact against the
 * reference, emulated and as host C, on pool geometries where ceil and floor counts differ (1-D and 2-D, strides,
 * dilation, pads, a last window dropped by the start-in-padding rule) and on a 12-input sum.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import { checkS2Case } from '../helpers/s2-check.js';
import { workDir } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('s2-ceil');

const POOLS: { shape: number[]; k: number[]; s: number[]; d?: number[]; pads: number[] }[] = [
  { shape: [1, 3, 7, 7], k: [2, 2], s: [2, 2], pads: [0, 0, 0, 0] },
  { shape: [1, 2, 8, 9], k: [3, 3], s: [2, 2], pads: [1, 1, 0, 1] },
  { shape: [1, 2, 10, 6], k: [3, 2], s: [3, 2], d: [1, 2], pads: [0, 1, 1, 0] },
  { shape: [1, 4, 11], k: [3], s: [2], pads: [1, 1] },
  // ceil would start a last window in the end padding: the reference drops it, so must the rewrite.
  { shape: [1, 1, 5, 5], k: [2, 2], s: [2, 2], pads: [0, 0, 1, 1] },
];

test('MaxPool with ceil_mode 1 on spinnaker2', async () => {
  let seed = 1;
  for (const p of POOLS) {
    const rng = new Rng(seed);
    const b = new OnnxBuilder('ceil').input('x', 'int8', p.shape)
      .node('MaxPool', ['x'], ['y'], { kernel_shape: p.k, strides: p.s, dilations: p.d ?? p.k.map(() => 1), pads: p.pads, ceil_mode: 1 })
      .output('y', 'float32');
    await checkS2Case(join(dir, `pool${seed}`), { builder: b, inputs: [randomValues(rng, 'int8', p.shape)] }, { op: 'MaxPool', layer: 's2-pool' });
    seed++;
  }
});

test('a sum of 12 inputs: fusion stops at the layer\'s operand bound', async () => {
  const rng = new Rng(99);
  const b = new OnnxBuilder('sum12');
  const inputs = [];
  for (let i = 0; i < 12; i++) {
    b.input(`x${i}`, 'int8', [1, 16]);
    inputs.push(randomValues(rng, 'int8', [1, 16], 10));
  }
  let acc = 'x0';
  for (let i = 1; i < 12; i++) {
    b.node('Add', [acc, `x${i}`], [`s${i}`]);
    acc = `s${i}`;
  }
  b.output(acc, 'float32');
  await checkS2Case(join(dir, 'sum12'), { builder: b, inputs }, { op: 'Add', layer: 's2-elementwise' });
});

test.after(cleanup);

test.run();
