/**
 * Whole small networks on the tangram platform, exact against the reference interpreter: ResNet-8 (residual Adds:
 * the dataflow's forks) and DS-CNN (depthwise convolutions, which stay on the control core) of MLPerf Tiny, and a
 * 16-64-8 MLP, all float networks with seeded weights quantized by firmgen's own quantizer. Their convolutions and
 * products run as engine programs on the emulator's engine model; the dataflow in firmware.json places every layer.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runHostModelC } from '../helpers/host-model.js';
import { arrays } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';
import { Rng } from '../helpers/random.js';
import { writeTinyModel } from '../helpers/tiny-models.js';
import { runEngines } from '../helpers/tangram-engines.js';
import { compileModel } from '../../generator/pipeline.js';
import { engineOpOf, engineProgramOf } from '../../generator/platforms/tangram/engine-kernel.js';
import { TANGRAM_DEFAULT } from '../../generator/platforms/tangram/hardware.js';
import { graphDataflow } from '../../generator/platforms/tangram/graph-segments.js';
import { unevenMlp, uniformInputs } from '../quantize/models.js';

const { dir, cleanup } = workDir('tangram-models');

function writeMlp(): string {
  const float = loadOnnxBytes(unevenMlp().bytes(), 'mlp.onnx');
  const q = quantizeGraph(float, [uniformInputs(4, [16], 21)], 'calibration', { scheme: 'per-channel', equalize: false, biasCorrection: false });
  const folder = join(dir, 'MLP');
  mkdirSync(folder, { recursive: true });
  const model = join(folder, 'network.onnx');
  writeFileSync(model, encodeModel(q.intGraph, { opset: 13, producer: 'firmgen test' }));
  const shape = q.intGraph.tensors.get(q.intGraph.inputs[0])!.shape;
  const size = shape.reduce((a, d) => a * d, 1);
  writeFileSync(join(folder, 'inputs.npz'), encodeNpz(new Map([['input_0', ndarray('float32', shape, new Rng(5).ints(size, -128, 127))]])));
  return model;
}

async function check(name: string, model: string): Promise<void> {
  const sample = join(model, '..', 'inputs.npz');
  const inputs = arrays(sample);
  const graph = loadOnnxFile(model);
  const values = runReference(graph, inputs);
  const expected = graph.outputs.map((o) => values.get(o)!);
  const out = join(dir, `${name}-out`);
  const g = generateFirmware({ model, sampleInputs: sample, platform: 'tangram', out });
  const onEngines = g.layers.filter((l) => l.kernel !== 'alias' && l.kernel.name === 'tangram-engines').length;
  assert.ok(onEngines > 0, `${name}: no layer on the engines`);
  const r = await runFirmware(out, inputs);
  const c = compareOutputs(g.manifest.outputs, r.outputs, expected);
  assert.is(c.errors, 0, `${name}: ${c.details.join('; ')}`);
  assert.is(c.total, expected.reduce((n, e) => n + e.data.length, 0));
  const data = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')).platformData.tangram as { segments: Array<{ layers: unknown[] }> };
  const computing = g.layers.filter((l) => l.kernel !== 'alias').length;
  assert.is(data.segments.reduce((n, s) => n + s.layers.length, 0), computing);
}

test('ResNet-8 (residual forks) exact, its pipelined segments (residual Adds inside) as one program each; engine layers take in the functional run what their programs take timing-only', async () => {
  const model = writeTinyModel('ResNet-8', dir);
  await check('ResNet-8', model);
  // The same programs run timing-only (no operands, no arithmetic) give each engine layer's cycles in the functional
  // run, less the closure's call cost (one CALL, SCALAR_CORE_COSTS: the control core's prologue).
  const sample = join(model, '..', 'inputs.npz');
  const out = join(dir, 'ResNet-8-out');
  const r = await runFirmware(out, arrays(sample));
  // The C (every layer on the control core; the residual Adds of the segments by tangram-elementwise's C) built on
  // the host gives the emulated AS's outputs.
  const manifest = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')) as { outputs: Parameters<typeof compareOutputs>[0] };
  const host = compareOutputs(manifest.outputs, runHostC(out, arrays(sample)), r.outputs);
  assert.is(host.errors, 0, host.details.join('; '));
  // the C's engine path (the segments' programs and each engine layer's) on the functional C model of the engines
  const engines = compareOutputs(manifest.outputs, runHostModelC(out, arrays(sample)), r.outputs);
  assert.is(engines.errors, 0, engines.details.join('; '));
  const compiled = compileModel({ model, sampleInputs: sample, platform: 'tangram' });
  // A pipelined segment (graph-segments.ts) runs as one program at its first layer; its other layers run nothing.
  const dataflow = graphDataflow(compiled.lowered, TANGRAM_DEFAULT, { sharing: true, pipelining: 'allo', objective: 'energy' }, 1);
  let checked = 0;
  let inSegments = 0;
  for (const l of compiled.layers) {
    if (l.kernel === 'alias' || l.kernel.name !== 'tangram-engines') continue;
    const seg = dataflow.of.get(l.node.name);
    const layer = r.profile.layers.find((p) => p.layer === l.id)!;
    if (seg) inSegments++;
    if (seg && seg.at > 0) {
      assert.is(layer.cycles - compiled.platform.costs.CALL, 0, `${l.node.name}`);
      continue;
    }
    const program = seg ? (seg.segment.program as Int32Array) : engineProgramOf(engineOpOf(l.node, compiled.graph), TANGRAM_DEFAULT, 'energy');
    const timing = await runEngines(program);
    assert.is(layer.cycles - compiled.platform.costs.CALL, timing.cycles, `${l.node.name}`);
    checked++;
  }
  // Two pipelined segments (Conv_0 .. Conv_9 with the Add of the first residual block, Conv_10 .. Conv_16 with the
  // second's), nine products in them; programs: the two segments' and the classifier's Gemm alone.
  assert.is(checked, 3, `${checked} programs`);
  assert.is(inSegments, 9, `${inSegments} products in pipelined segments`);
});

test('DS-CNN exact', async () => {
  await check('DS-CNN-KWS', writeTinyModel('DS-CNN-KWS', dir));
});

test('an MLP exact', async () => {
  await check('MLP', writeMlp());
});

test.after(cleanup);
test.run();
