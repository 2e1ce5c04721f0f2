/**
 * The searched dataflow's pipelined segments of small networks quantized by firmgen (ResNet-8 and MobileNetV1-0.25
 * of MLPerf Tiny), each run as one segment program on the engine model with its layers' arithmetic
 * (segment-functions.ts): every layer's output equal to the reference interpreter's on the model, and the
 * timing-only run of the same program with the same schedule and counters. The reasons that split the segments
 * (layers the engines cannot compute inside one) are those of segment-functions.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bytesOf } from '../../generator/ir/dtype.js';
import { type Graph, tensorOf } from '../../generator/ir/graph.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { compileModel, generateFirmware } from '../../generator/pipeline.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runFirmware } from '../../runtime/node/run.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runHostModelC } from '../helpers/host-model.js';
import { graphDataflow } from '../../generator/platforms/tangram/graph-segments.js';
import { operandNames } from '../../generator/platforms/tangram/engine-kernel.js';
import { ALIAS_OPS } from '../../generator/midend/lifetimes.js';
import { layersOfGraph } from '../../generator/platforms/tangram/from-graph.js';
import { TANGRAM_DEFAULT } from '../../generator/platforms/tangram/hardware.js';
import { searchDataflow } from '../../generator/platforms/tangram/search.js';
import { segmentFunctionOf } from '../../generator/platforms/tangram/segment-functions.js';
import { segmentProgram, type SegmentLayerFunction } from '../../generator/platforms/tangram/segment-programs.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { arrays } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';
import { writeTinyModel } from '../helpers/tiny-models.js';
import { type SegmentOperands, runSegment } from '../helpers/tangram-engines.js';

const { dir, cleanup } = workDir('tangram-model-segments');

const TYPED = { int8: Int8Array, uint8: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array } as const;

/** A tensor's values (a constant's or the reference run's) as the bytes of its element type. */
function bytes(g: Graph, values: Map<string, NDArray>, name: string): Uint8Array {
  const t = tensorOf(g, name);
  const v = t.data ?? values.get(name);
  if (!v) throw new Error(`no values for ${name}`);
  const a = TYPED[t.dtype as keyof typeof TYPED].from(v.data);
  return new Uint8Array(a.buffer);
}

/** Runs every pipelined segment of the model's searched dataflow; returns how many layers of each kind ran so. */
async function checkSegments(name: string, model: string): Promise<Map<number, number>> {
  const inputs = arrays(join(model, '..', 'inputs.npz'));
  const c = compileModel({ model, sampleInputs: join(model, '..', 'inputs.npz'), platform: 'tangram' });
  const g = c.lowered;
  // The reference runs the model as loaded (the lowered graph's fused nodes keep the names of what they fuse's results).
  const values = runReference(c.graph, inputs);
  const { shapes, ids } = layersOfGraph(g, c.layers, true);
  const plan = searchDataflow(shapes, TANGRAM_DEFAULT, { batch: 1, strategy: { sharing: true, pipelining: 'allo', objective: 'energy' } });
  const nodeOf = new Map(c.layers.map((l) => [l.id, l.node]));
  const ran = new Map<number, number>();
  for (const seg of plan.segments) {
    if (seg.layers.length < 2) continue;
    const nodes = seg.layers.map((pl) => nodeOf.get(ids[pl.index])!);
    const fns = nodes.map((n) => segmentFunctionOf(n, g));
    fns.forEach((f, i) => assert.type(f, 'object', `${name}: ${nodes[i].name} in a segment: ${String(f)}`));
    // A map produced inside the segment (through an alias such as a Flatten) is that layer's output there.
    const aliasOf = new Map(g.nodes.filter((m) => ALIAS_OPS.has(m.op)).map((m) => [m.outputs[0], m.inputs[0]]));
    const root = (t: string): string => (aliasOf.has(t) ? root(aliasOf.get(t)!) : t);
    const producedAt = (t: string): number => nodes.findIndex((m) => root(m.outputs[0]) === root(t));
    const operands: Array<SegmentOperands & { from?: number; from2?: number }> = nodes.map((n, i) => {
      const [x, w, bias, , mul, add, x2] = operandNames(n, g, fns[i] as SegmentLayerFunction);
      const value = (t: string | undefined): Uint8Array | undefined => (t ? bytes(g, values, t) : undefined);
      const y = tensorOf(g, n.outputs[0]);
      return {
        ...(producedAt(x!) >= 0 ? { from: producedAt(x!) } : { x: value(x) }),
        ...(x2 && producedAt(x2) >= 0 ? { from2: producedAt(x2) } : { x2: value(x2) }),
        w: value(w), bias: value(bias), mul: value(mul), add: value(add),
        yBytes: y.shape.reduce((a, d) => a * d, 1) * bytesOf(y.dtype),
      };
    });
    const image = segmentProgram(seg, shapes, 1, TANGRAM_DEFAULT, true, fns as SegmentLayerFunction[]);
    const f = await runSegment(image, operands);
    nodes.forEach((n, i) => assert.equal(Array.from(f.ys![i]), Array.from(bytes(g, values, n.outputs[0])), `${name}: ${n.name}`));
    const t = await runSegment(image);
    assert.equal([t.cycles, t.dramWords, t.wordHops, t.computeCycles, t.linkWait], [f.cycles, f.dramWords, f.wordHops, f.computeCycles, f.linkWait], name);
    for (const f of fns as SegmentLayerFunction[]) ran.set(f.kind, (ran.get(f.kind) ?? 0) + 1);
  }
  return ran;
}

test('ResNet-8: its pipelined segments, two residual Adds inside them, exact against the reference', async () => {
  // Its dataflow: conv > conv > conv > Add > conv > conv | conv > Add > conv > conv > conv | Add | ReduceSum | ...
  const ran = await checkSegments('ResNet-8', writeTinyModel('ResNet-8', dir));
  assert.ok((ran.get(1) ?? 0) >= 8, `${ran.get(1)} products`);
  assert.is(ran.get(4), 2);
});

test('MobileNetV1-0.25: its pipelined element-wise -> Gemm segment exact against the reference', async () => {
  const ran = await checkSegments('MobileNetV1-0.25', writeTinyModel('MobileNetV1-0.25', dir));
  assert.equal([ran.get(3), ran.get(1)], [1, 1]);
});

test('firmware.json and dataflow.txt say why a layer is a segment of its own', () => {
  const model = writeTinyModel('ResNet-8', dir);
  const out = join(dir, 'ResNet-8-fw');
  generateFirmware({ model, platform: 'tangram', out });
  const data = JSON.parse(readFileSync(join(out, 'firmware.json'), 'utf8')).platformData.tangram as { segments: Array<{ firmware?: string; layers: Array<{ name: string; notPipelined?: string }> }> };
  const alone = data.segments.flatMap((s) => s.layers).filter((l) => l.notPipelined !== undefined);
  // On the control core: the global average pooling's sum (ReduceSum).
  assert.equal(alone.map((l) => l.name), ['GlobalAveragePool_19']);
  const pipelined = data.segments.filter((s) => s.layers.length > 1);
  assert.ok(pipelined.length >= 1);
  for (const s of pipelined) {
    assert.ok(s.layers.every((l) => l.notPipelined === undefined));
    assert.is(s.firmware, 'one program');
  }
  const picture = readFileSync(join(out, 'dataflow.txt'), 'utf8');
  assert.is((picture.match(/; not pipelined: runs on the control core/g) ?? []).length, 1);
  assert.is((picture.match(/; the firmware runs it as one program/g) ?? []).length, pipelined.length);
});

test('MobileNetV1-0.25 firmware exact with its element-wise -> Gemm segment run as one program on the engines; its host-built C equal', async () => {
  const file = writeTinyModel('MobileNetV1-0.25', dir);
  const sample = join(file, '..', 'inputs.npz');
  const inputs = arrays(sample);
  const graph = loadOnnxFile(file);
  const values = runReference(graph, inputs);
  const out = join(dir, 'MobileNet-fw');
  const g = generateFirmware({ model: file, sampleInputs: sample, platform: 'tangram', out });
  const r = await runFirmware(out, inputs);
  const c = compareOutputs(g.manifest.outputs, r.outputs, graph.outputs.map((o) => values.get(o)!));
  assert.is(c.errors, 0, c.details.join('; '));
  // The segment's first layer is the element-wise one: its AS hands the segment's program to the engines.
  const dataflow = graphDataflow(g.lowered, TANGRAM_DEFAULT, { sharing: true, pipelining: 'allo', objective: 'energy' }, 1);
  const firsts = [...dataflow.of.entries()].filter(([, s]) => s.at === 0).map(([name]) => g.lowered.nodes.find((n) => n.name === name)!.op);
  assert.ok(firsts.includes('Elementwise'), firsts.join(', '));
  const network = readFileSync(join(out, 'as', 'network.ts'), 'utf8');
  assert.ok(network.includes('a pipelined segment of 2 layers, this one first'));
  // The C (every layer on the control core, the element-wise one by tangram-elementwise's C) built on the host.
  const host = compareOutputs(g.manifest.outputs, runHostC(out, inputs), r.outputs);
  assert.is(host.errors, 0, host.details.join('; '));
  // The C's engine path: the same programs through the engine HAL, on the functional C model of the engines.
  const c2 = readFileSync(join(out, 'c', 'network.c'), 'utf8');
  assert.ok(c2.includes('fg_tangram_run_segment(program'), 'the segment program in the C');
  const model = compareOutputs(g.manifest.outputs, runHostModelC(out, inputs), r.outputs);
  assert.is(model.errors, 0, model.details.join('; '));
});

test.after(cleanup);
test.run();
