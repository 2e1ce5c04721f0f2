/**
 * The depthwise cost rule (platforms/gemmini/dw-cost.ts): on a small depthwise layer (2x2, stride 2, an 8x8 image:
 * one input pixel per tap, a loop per channel mostly its fixed part) and on a big one (3x3 over 16x16, nine taps per
 * pixel), each model is built with the layer forced onto the array and forced onto the host core (--depthwise-on),
 * both emulated (exact against the reference interpreter), and the rule's own choice must be the one that ran in
 * fewer cycles. Nothing is expected of either side in advance: the emulator decides which is faster.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';

const { dir, cleanup } = workDir('gemmini-dw-cost');

interface Layer {
  name: string;
  channels: number;
  size: number;
  kernel: number;
  stride: number;
  pad: number;
}

/** Where the generated firmware runs the conv: 'array' (gemmini-conv) or 'host' (the shared conv2d). */
function side(kernels: string[]): 'array' | 'host' {
  if (kernels.includes('gemmini-conv')) return 'array';
  assert.ok(kernels.includes('conv2d'), kernels.join(', '));
  return 'host';
}

async function measure(l: Layer): Promise<void> {
  const rng = new Rng(l.channels * 31 + l.size);
  const xShape = [1, l.channels, l.size, l.size];
  const wShape = [l.channels, 1, l.kernel, l.kernel];
  const b = new OnnxBuilder('dw').input('x', 'int8', xShape);
  b.initializer('w', 'int8', wShape, randomValues(rng, 'int8', wShape, 20).data);
  b.initializer('b', 'int32', [l.channels], rng.ints(l.channels, -1000, 1000));
  const p = l.pad;
  b.node('Conv', ['x', 'w', 'b'], ['y'], {
    kernel_shape: [l.kernel, l.kernel], pads: [p, p, p, p], strides: [l.stride, l.stride], group: l.channels,
  }).output('y', 'int32');
  const inputs = [randomValues(rng, 'int8', xShape)];
  const w = writeCase(join(dir, l.name), { builder: b, inputs });
  const cycles = new Map<string, number>();
  for (const on of ['array', 'host'] as const) {
    const out = join(dir, l.name, on);
    const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out, depthwiseOn: on });
    assert.is(side(g.layers.map((x) => (x.kernel === 'alias' ? 'alias' : x.kernel.name))), on);
    const r = await runFirmware(out, inputs);
    const cmp = compareOutputs(g.manifest.outputs, r.outputs, w.expected);
    assert.is(cmp.errors, 0, `${l.name} on ${on}: ${cmp.details.join('; ')}`);
    cycles.set(on, r.profile.total.cycles);
  }
  const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'gemmini', out: join(dir, l.name, 'rule') });
  const chosen = side(g.layers.map((x) => (x.kernel === 'alias' ? 'alias' : x.kernel.name)));
  const [array, host] = [cycles.get('array')!, cycles.get('host')!];
  const note = g.lowered.nodes.find((n) => /depthwise/.test(n.engineNote ?? ''))?.engineNote ?? '';
  console.log(`  ${l.name}: array ${array} cycles, host core ${host}; the rule chose the ${chosen}: ${note}`);
  assert.is(chosen, array < host ? 'array' : 'host', `${l.name}: array ${array}, host ${host}, chosen ${chosen}`);
}

test('the cost rule puts a small depthwise layer and a big one where they run faster', async () => {
  await measure({ name: 'small 2x2/2 16ch 8x8', channels: 16, size: 8, kernel: 2, stride: 2, pad: 0 });
  await measure({ name: 'big 3x3 32ch 16x16', channels: 32, size: 16, kernel: 3, stride: 1, pad: 1 });
});

test('--depthwise-on takes cost, array or host only', () => {
  assert.throws(() => generateFirmware({ model: 'none.onnx', platform: 'gemmini', out: join(dir, 'bad'), depthwiseOn: 'npu' }), /--depthwise-on takes cost, array, host/);
});

test.after(cleanup);

test.run();
