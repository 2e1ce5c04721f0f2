import type { Graph } from '../../ir/graph.js';
import type { NDArray } from '../../ir/ndarray.js';
import { compileModel } from '../../pipeline.js';
import { CHUNK, runBatched, sampleOf } from '../../quantize/batch.js';
import { referenceGraph } from './platform.js';

/** The emulated chip of a forward pass (the platform's options; defaults as `gen firmware`). */
export interface ForwardOptions {
  chipSeed?: number;
  fixedPattern?: 'on' | 'off';
  noiseSeed?: number;
  noiseStd?: number;
  /** Corrections of calibrate.ts (or a JSON file of them). */
  analogCalibration?: unknown;
}

export interface Forward {
  /** Per sample, per graph output. */
  outputs: NDArray[][];
  /** Whether the samples ran in batches (vectors of a batch share each block write) or one by one. */
  batched: boolean;
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
export function analogForward(model: string, samples: NDArray[][], options: ForwardOptions = {}): Forward {
  const c = compileModel({ model, platform: 'brainscales2', ...options });
  const g = referenceGraph(c.platform, c.graph);
  const outputs: NDArray[][] = [];
  let batched = false;
  for (let s = 0, chunk = 0; s < samples.length; s += CHUNK, chunk++) {
    runBatched(forChunk(g, chunk), samples.slice(s, s + CHUNK), g.outputs, (values, count) => {
      if (count > 1) batched = true;
      for (let i = 0; i < count; i++) outputs.push(g.outputs.map((o) => copyOf(sampleOf(values.get(o)!, i, count))));
    });
  }
  return { outputs, batched };
}

function copyOf(a: NDArray): NDArray {
  return { dtype: a.dtype, shape: [...a.shape], data: Float64Array.from(a.data) };
}
