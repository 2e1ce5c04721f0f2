import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import type { KernelCase } from './kernel-check.js';

/**
 * The SpiNNaker2 twin of kernel-check.ts: a small graph through the whole spinnaker2 pipeline, its op given the
 * expected layer type, the emulated AS firmware and the host-built C both equal to the reference interpreter.
 */
export async function checkS2Case(dir: string, c: KernelCase, opts: { op: string; layer: string; pes?: number }): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  const sample = join(dir, 'in.npz');
  writeFileSync(model, c.builder.bytes());
  writeFileSync(sample, encodeNpz(new Map(c.inputs.map((a, i) => [`in${i}`, a]))));
  const graph = loadOnnxFile(model);
  const values = runReference(graph, c.inputs);
  const expected = graph.outputs.map((o) => values.get(o)!);
  const out = join(dir, 'spinnaker2');
  const { manifest, layers } = generateFirmware({ model, platform: 'spinnaker2', out, sampleInputs: sample, pes: opts.pes });
  const mine = layers.filter((l) => l.node.op === opts.op || l.node.fusedFrom?.some((n) => graph.nodes.find((x) => x.name === n)?.op === opts.op));
  assert.ok(mine.length > 0, `no ${opts.op} layer`);
  for (const l of mine) assert.is(l.kernel === 'alias' ? 'alias' : l.kernel.name, opts.layer);
  const r = await runFirmware(out, c.inputs);
  const emu = compareOutputs(manifest.outputs, r.outputs, expected);
  assert.is(emu.errors, 0, `emulated: ${emu.details.join('; ')}`);
  const host = compareOutputs(manifest.outputs, runHostC(out, c.inputs), expected);
  assert.is(host.errors, 0, `host C: ${host.details.join('; ')}`);
}
