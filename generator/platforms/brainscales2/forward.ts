import { consumersOf, tensorOf, type Graph, type Node } from '../../ir/graph.js';
import type { IntRange } from '../../ir/dtype.js';
import { valueRange } from '../../kernels/common.js';
import { GenError } from '../../errors.js';
import { ndarray, type NDArray } from '../../ir/ndarray.js';
import { compileModel } from '../../pipeline.js';
import { CHUNK, runBatched, sampleOf } from '../../quantize/batch.js';
import { ANALOG_OP } from './lower-analog.js';
import { referenceGraph } from './platform.js';

/** The emulated chip of a forward pass (the platform's options; defaults as `gen firmware`). */
export interface ForwardOptions {
  chipSeed?: number;
  fixedPattern?: 'on' | 'off';
  noiseSeed?: number;
  noiseStd?: number;
  /** Corrections of calibrate.ts (or a JSON file of them). */
  analogCalibration?: unknown;
  /** Calibration samples for num_sends (a .npz file, or the arrays: one per graph input, samples along axis 0). */
  analogSamples?: unknown;
}

export interface Forward {
  /** Per sample, per graph output. */
  outputs: NDArray[][];
  /** Whether the samples ran in batches (vectors of a batch share each block write) or one by one. */
  batched: boolean;
  /**
   * With `layers`: per analog layer (model order), per sample, what a straight-through backward pass needs: the
   * layer's 5-bit input rows [M, K] (a convolution's windows), its analog outputs after the digital block sum [M, N],
   * and its requantized output [M, N] (before a convolution's reshape to NCHW); the range of that output.
   */
  layers?: { input: NDArray[]; analog: NDArray[]; output: NDArray[]; range: IntRange }[];
}

/**
 * How often a layer's analog outputs (after the digital block sum) sit at the int8 edges: `all`, the share of them;
 * `telling`, the share that also leave the layer's requantized output inside its range (uint8 or int8: `range`), where the
 * clip changed a value the layer would have told apart (a ReLU layer's sums clipped at -128 give 0 either way).
 */
export function clipRates(layer: { analog: readonly NDArray[]; output: readonly NDArray[]; range: IntRange }): { all: number; telling: number } {
  let edge = 0;
  let telling = 0;
  let count = 0;
  layer.analog.forEach((a, i) => {
    const y = layer.output[i];
    a.data.forEach((v, j) => {
      if (v > -128 && v < 127) return;
      edge++;
      if (y.data[j] > layer.range.min && y.data[j] < layer.range.max) telling++;
    });
    count += a.data.length;
  });
  return count === 0 ? { all: 0, telling: 0 } : { all: edge / count, telling: telling / count };
}

/** The tensor the rescale of an analog layer reads (the clipped block sum, or the analog output itself), and its output. */
export function rescaleOf(g: Graph, analog: Node): { input: string; output: string } {
  const readers = consumersOf(g);
  let t = analog.outputs[0];
  for (;;) {
    const next = readers.get(t) ?? [];
    if (next.length !== 1) throw new Error(`analog layer ${analog.name}: no single reader of ${t}`);
    if (next[0].op === 'RequantShift') return { input: t, output: next[0].outputs[0] };
    t = next[0].outputs[0];
  }
}

/** The lowered graph with each analog layer's temporal noise seeded for chunk `chunk` (a new draw per chunk). */
function forChunk(g: Graph, chunk: number): Graph {
  if (chunk === 0) return g;
  return {
    ...g,
    nodes: g.nodes.map((x) => (x.op !== 'Bss2Matmul' ? x : {
      ...x, attrs: { ...x.attrs, noise_seed: { kind: 'int', value: ((x.attrs.noise_seed as { value: number }).value ^ Math.imul(chunk, 0x9e3779b9)) >>> 0 } },
    })),
  };
}

/**
 * The analog chip's forward pass over many samples, for scripts (evaluation, emulator-in-the-loop training): the
 * reference of the lowered graph (generator/reference/ops/analog-matmul.ts), which the generated firmware equals bit
 * for bit, run in batches where the model carries the batch (an MLP: up to 64 vectors per block write), else per
 * sample. Without temporal noise every sample's outputs are those of its own firmware run; with it, the noise is drawn
 * along the batch (each batch of the stream seeded anew), as a chip running the batch would.
 */
export function analogForward(model: string, samples: NDArray[][], options: ForwardOptions = {}, want: { layers?: boolean } = {}): Forward {
  const c = compileModel({ model, platform: 'brainscales2', ...options });
  const g = referenceGraph(c.platform, c.graph);
  const taps = want.layers ? g.nodes.filter((x) => x.op === ANALOG_OP).map((x) => {
    const r = rescaleOf(g, x);
    return { input: x.inputs[0], analog: r.input, output: r.output, range: valueRange(tensorOf(g, r.output)) };
  }) : [];
  const read = [...g.outputs, ...taps.flatMap((t) => [t.input, t.analog, t.output])];
  const outputs: NDArray[][] = [];
  const layers = taps.map((t) => ({ input: [] as NDArray[], analog: [] as NDArray[], output: [] as NDArray[], range: t.range }));
  let batched = false;
  for (let s = 0, chunk = 0; s < samples.length; s += CHUNK, chunk++) {
    runBatched(forChunk(g, chunk), samples.slice(s, s + CHUNK), read, (values, count) => {
      if (count > 1) batched = true;
      for (let i = 0; i < count; i++) {
        outputs.push(g.outputs.map((o) => copyOf(sampleOf(values.get(o)!, i, count))));
        taps.forEach((t, l) => {
          layers[l].input.push(copyOf(rowsOf(values.get(t.input)!, i, count)));
          layers[l].analog.push(copyOf(rowsOf(values.get(t.analog)!, i, count)));
          layers[l].output.push(copyOf(rowsOf(values.get(t.output)!, i, count)));
        });
      }
    });
  }
  return { outputs, batched, ...(want.layers ? { layers } : {}) };
}

/**
 * Sample i's rows of an analog layer's tensor [count * M, ...]: M rows per sample (a convolution's windows, M > 1),
 * so not sampleOf's [1, ...], which would label a convolution's M rows as one.
 */
function rowsOf(a: NDArray, i: number, count: number): NDArray {
  const m = a.shape[0] / count;
  const n = a.data.length / count;
  return { dtype: a.dtype, shape: [m, ...a.shape.slice(1)], data: a.data.subarray(i * n, (i + 1) * n) };
}

function copyOf(a: NDArray): NDArray {
  return { dtype: a.dtype, shape: [...a.shape], data: Float64Array.from(a.data) };
}

/** Platform.forward: the samples along axis 0 of each input array, the outputs stacked the same way. */
export function forwardBatches(model: string, batches: NDArray[], given: Record<string, unknown>, layers = false): { outputs: NDArray[]; layers: Map<string, NDArray> } {
  if (batches.length === 0) throw new GenError('input', 'no input arrays given');
  const count = batches[0].shape[0];
  if (!(count >= 1) || batches.some((b) => b.shape[0] !== count)) {
    throw new GenError('input', 'every input array must hold the same number of samples along its first axis');
  }
  const samples = Array.from({ length: count }, (_, i) => batches.map((b) => {
    const one = b.data.length / count;
    return { dtype: b.dtype, shape: [1, ...b.shape.slice(1)], data: b.data.subarray(i * one, (i + 1) * one) };
  }));
  const f = analogForward(model, samples, given as ForwardOptions, { layers });
  const extra = new Map<string, NDArray>();
  (f.layers ?? []).forEach((l, i) => {
    extra.set(`analog${i}_input`, stack(l.input));
    extra.set(`analog${i}_analog`, stack(l.analog));
    extra.set(`analog${i}_output`, stack(l.output));
  });
  return { outputs: f.outputs[0].map((_, o) => stack(f.outputs.map((s) => s[o]))), layers: extra };
}

/** Samples stacked along axis 0. */
function stack(parts: NDArray[]): NDArray {
  const first = parts[0];
  const out = ndarray(first.dtype, [parts.length * first.shape[0], ...first.shape.slice(1)]);
  parts.forEach((p, i) => out.data.set(p.data, i * first.data.length));
  return out;
}
