/**
 * `npm run bench:quantize`: how long `gen quantize` takes on the small language model (examples/tiny-llama: the
 * 16-token prompt graph on its 64 calibration windows, and the step graph with its caches), and the part of it that
 * was quadratic in the layers: bias correction, which reads each linear layer's accumulators with the earlier layers
 * corrected. Printed, one JSON line each: the whole quantization's wall time per graph (one run each: it is seconds,
 * the machine's load matters more than repeats), and bias correction's runs two ways on the prompt graph's integer
 * model, in one process: continued from the first changed node (quantize/incremental.ts, what the quantizer does) and
 * from the inputs for every layer (what it did before), with their ratio, over the linear layers of the first three
 * blocks (21: the second way is quadratic). Both give the same accumulator means (checked).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Graph } from '../generator/ir/graph.js';
import { ndarray, type NDArray } from '../generator/ir/ndarray.js';
import { inferGraph } from '../generator/ir/infer.js';
import { readNpz } from '../generator/onnx/npy.js';
import { loadOnnxFile } from '../generator/onnx/load.js';
import { runBatched } from '../generator/quantize/batch.js';
import { addChannelSums } from '../generator/quantize/calibrate.js';
import { quantizeFile } from '../generator/quantize/files.js';
import { IncrementalRuns } from '../generator/quantize/incremental.js';
import { TINY_LLAMA } from '../test/helpers/tiny-llama-prompt.js';

const example = TINY_LLAMA;
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-quantize-'));

function emit(name: string, figure: number, unit: string, reference = ''): void {
  console.log(JSON.stringify({ name, figure: Number(figure.toPrecision(4)), unit, reference }));
}

const t0 = performance.now();
quantizeFile({ model: join(example, 'prompt.onnx'), calibration: join(example, 'calibration.npz'), out: join(work, 'prompt.int8.onnx') });
emit('gen quantize prompt.onnx (16 tokens, 64 windows)', (performance.now() - t0) / 1000, 's');
const t1 = performance.now();
quantizeFile({ model: join(example, 'step.onnx'), calibration: join(example, 'calibration-step.npz'), out: join(work, 'step.int8.onnx'), context: 256 });
emit('gen quantize step.onnx (context 256, 16 samples)', (performance.now() - t1) / 1000, 's');

// Bias correction's reads on the prompt graph's integer model: every `_acc` tensor of a linear layer, in order.
const intGraph: Graph = inferGraph(loadOnnxFile(join(work, 'prompt.int8.onnx')));
// The prompt graph's one input is token ids, which the integer model reads as they are: window j of the calibration.
const ids = [...readNpz(join(example, 'calibration.npz')).values()][0];
const len = ids.shape[1];
const samples: NDArray[][] = Array.from({ length: ids.shape[0] }, (_, j) => [ndarray('int32', [1, len], ids.data.slice(j * len, (j + 1) * len))]);
// The linear layers' accumulators (their bias Adds) of the first three blocks: the from-the-inputs way is quadratic,
// six minutes for all 169 accumulators of the graph.
const accs = intGraph.nodes.filter((n) => n.name.endsWith('_bias') && /^\/layers\.[0-2]\//.test(n.name)).map((n) => n.outputs[0]);
const lastOf = (acc: string): number => intGraph.nodes.findIndex((n) => n.outputs.includes(acc));
const sumsOf = (values: Map<string, NDArray>, acc: string, into: Float64Array): void => {
  const a = values.get(acc)!;
  addChannelSums(a, a.shape.length - 1, into);
};

const c0 = performance.now();
const runs = new IncrementalRuns(intGraph, samples, accs);
const incremental = accs.map((acc) => {
  const sums = new Float64Array(intGraph.tensors.get(acc)!.shape.at(-1)!);
  for (const { values } of runs.evaluateTo(intGraph, lastOf(acc))) sumsOf(values, acc, sums);
  return sums;
});
const incMs = performance.now() - c0;

const c1 = performance.now();
const whole = accs.map((acc) => {
  const sums = new Float64Array(intGraph.tensors.get(acc)!.shape.at(-1)!);
  const cut: Graph = { ...intGraph, nodes: intGraph.nodes.slice(0, lastOf(acc) + 1) };
  runBatched(cut, samples, [acc], (values) => sumsOf(values, acc, sums));
  return sums;
});
const wholeMs = performance.now() - c1;
if (incremental.some((s, i) => s.some((v, j) => v !== whole[i][j]))) throw new Error('the continued runs\' sums differ from the whole runs\'');
emit(`bias correction's runs, continued (${accs.length} layers)`, incMs / 1000, 's');
emit(`bias correction's runs, from the inputs for every layer (${accs.length} layers)`, wholeMs / 1000, 's');
emit('bias correction: from the inputs / continued', wholeMs / incMs, 'x');
rmSync(work, { recursive: true, force: true });
