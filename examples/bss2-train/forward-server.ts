/**
 * The emulated chip's forward pass as a long-lived process, for train.py (emulator-in-the-loop training): one request
 * per line on stdin, one answer per line on stdout. It does what `gen forward --platform brainscales2 --layers` does
 * (Platform.forward: the reference of the lowered graph, which the generated firmware equals bit for bit), without a
 * Node start and module load per training step (measured: `gen forward --layers` on 64 samples of the example's MLP
 * takes 0.85 s wall, of which the compile and the batch 0.43 s).
 *
 * request:  {"model": "<int8 .onnx>", "inputs": "<.npz>", "out": "<.npz>", "options": {"chipSeed": 2, ...}, "layers": true}
 * answer:   {"ok": true, "samples": 64, "ms": 310}   or   {"error": "<one line>"}
 *
 * `options` are the platform options of `gen firmware` (chipSeed, fixedPattern, noiseSeed, noiseStd, analogSamples,
 * analogCalibration), checked the same way. End of stdin ends the process.
 */
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { platformByName, PLATFORMS } from '../../generator/platforms/index.js';
import { configurePlatform } from '../../generator/platforms/options.js';

interface Request {
  model: string;
  inputs: string;
  out: string;
  options?: Record<string, unknown>;
  layers?: boolean;
}

const platform = platformByName('brainscales2');

async function serve(line: string): Promise<Record<string, unknown>> {
  const r = JSON.parse(line) as Request;
  if (typeof r.model !== 'string' || typeof r.inputs !== 'string' || typeof r.out !== 'string') {
    throw new Error('a request needs "model", "inputs" and "out"');
  }
  const given = r.options ?? {};
  configurePlatform(platform, given, { untiled: false }, Object.values(PLATFORMS));
  const batches = [...readNpz(r.inputs).values()];
  const t0 = performance.now();
  const f = await platform.forward!(r.model, batches, given, r.layers === true);
  const names = loadOnnxFile(r.model).outputs;
  writeFileSync(r.out, encodeNpz(new Map([...f.outputs.map((a, i): [string, NDArray] => [names[i] ?? `output_${i}`, a]), ...f.layers])));
  return { ok: true, samples: batches[0]?.shape[0] ?? 0, ms: Math.round(performance.now() - t0) };
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === '') continue;
  let answer: Record<string, unknown>;
  try {
    answer = await serve(line);
  } catch (e) {
    answer = { error: (e instanceof Error ? e.message : String(e)).split('\n')[0] };
  }
  process.stdout.write(JSON.stringify(answer) + '\n');
}
