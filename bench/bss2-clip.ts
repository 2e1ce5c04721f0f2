/**
 * How often the analog layers clip (docs/brainscales2.md "Mapping"): `node dist/bench/bss2-clip.js <int8 model>
 * <inputs.npz> [--analog-samples <npz>] [--chip-seed n] [--noise-std x] [--fixed-pattern on|off] [--count n]`.
 * inputs.npz: the integer model's inputs (the first array, samples along axis 0) and optionally `label`. Prints one
 * JSON line per analog layer (num_sends, the share of its analog outputs, after the digital block sum, at -128 or
 * 127, and of those where the layer's output is not saturated: forward.ts clipRates) and, with labels, the accuracy of the chip's outputs (argmax of the first output).
 */
import { parseArgs } from 'node:util';
import { readNpz } from '../generator/onnx/npy.js';
import { compileModel } from '../generator/pipeline.js';
import { analogForward, clipRates, type ForwardOptions } from '../generator/platforms/brainscales2/forward.js';
import { ANALOG_OP } from '../generator/platforms/brainscales2/lower-analog.js';
import { referenceGraph } from '../generator/platforms/brainscales2/platform.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'analog-samples': { type: 'string' }, 'chip-seed': { type: 'string' }, 'noise-std': { type: 'string' },
    'fixed-pattern': { type: 'string' }, count: { type: 'string' }, classes: { type: 'string' },
  },
});
const [model, inputs] = positionals;
if (!model || !inputs) {
  console.error('usage: bss2-clip <int8 model> <inputs.npz> [--analog-samples npz] [--chip-seed n] [--noise-std x] [--fixed-pattern on|off] [--count n]');
  process.exit(2);
}
const arrays = readNpz(inputs);
const labels = arrays.get('label');
const x = [...arrays.entries()].find(([k]) => k !== 'label')![1];
const count = Math.min(x.shape[0], values.count ? Number(values.count) : Infinity);
const size = x.data.length / x.shape[0];
const samples = Array.from({ length: count }, (_, i) => [{ dtype: x.dtype, shape: [1, ...x.shape.slice(1)], data: x.data.subarray(i * size, (i + 1) * size) }]);
const opts: ForwardOptions = {
  chipSeed: Number(values['chip-seed'] ?? 1), noiseStd: Number(values['noise-std'] ?? 2),
  fixedPattern: (values['fixed-pattern'] ?? 'on') as 'on' | 'off',
  ...(values['analog-samples'] ? { analogSamples: values['analog-samples'] } : {}),
};
const c = compileModel({ model, platform: 'brainscales2', ...opts });
const sends = referenceGraph(c.platform, c.graph).nodes.filter((n) => n.op === ANALOG_OP).map((n) => (n.attrs.num_sends as { value: number }).value);
const f = analogForward(model, samples, opts, { layers: true });
f.layers!.forEach((l, i) => {
  const r = clipRates(l);
  console.log(JSON.stringify({ layer: i, numSends: sends[i], clipped: Number(r.all.toFixed(4)), clippedTelling: Number(r.telling.toFixed(4)), samples: count }));
});
if (labels) {
  const classes = values.classes ? Number(values.classes) : Infinity;
  const right = f.outputs.filter((o, i) => {
    const y = Array.from(o[0].data).slice(0, classes);
    return y.indexOf(Math.max(...y)) === labels.data[i];
  }).length;
  console.log(JSON.stringify({ accuracy: Number(((100 * right) / count).toFixed(2)), samples: count }));
}
