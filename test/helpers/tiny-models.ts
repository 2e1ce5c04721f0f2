/**
 * Larger models for bench:compile and the plan baseline (issue 15), built here rather than shipped: an 8-layer
 * llama-style decoder in the integer dialect (decoder below), and MLPerf-Tiny-class float networks with
 * seeded weights, quantized to the integer dialect by firmgen's own quantizer (per-channel, calibrated on seeded
 * uniform inputs). Their values are meaningless; their shapes, layer counts and tensor sizes are those of the
 * MLPerf Tiny reference models, which is what generation time depends on.
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { loadOnnxBytes, loadOnnxFile } from '../../generator/onnx/load.js';
import type { Graph, Node, Tensor } from '../../generator/ir/graph.js';
import { DEEPLOY } from './deeploy.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { OnnxBuilder } from './onnx-builder.js';
import { Rng } from './random.js';
import { uniformInputs } from '../quantize/models.js';

/** A float network under construction: conv/relu/add/pool/fc layers in NCHW, He-scaled seeded weights. */
class Net {
  readonly b: OnnxBuilder;
  private n = 0;
  private readonly rng: Rng;

  constructor(name: string, readonly input: number[], seed: number) {
    this.b = new OnnxBuilder(name).input('x', 'float32', [1, ...input]);
    this.rng = new Rng(seed);
  }

  private weights(shape: number[], fanIn: number): string {
    const name = `w${this.n++}`;
    const size = shape.reduce((a, d) => a * d, 1);
    const r = Math.sqrt(6 / fanIn);
    this.b.initializer(name, 'float32', shape, this.rng.floats(size, -r, r));
    return name;
  }

  /** Conv (+ bias) (+ Relu); `group` = channels in for a depthwise conv. */
  conv(x: string, cin: number, cout: number, k: [number, number], stride: number, relu: boolean, group = 1): string {
    const w = this.weights([cout, cin / group, ...k], (cin / group) * k[0] * k[1]);
    const bias = `b${this.n++}`;
    this.b.initializer(bias, 'float32', [cout], this.rng.floats(cout, -0.05, 0.05));
    const y = `t${this.n++}`;
    const pads = [Math.floor((k[0] - 1) / 2), Math.floor((k[1] - 1) / 2), Math.ceil((k[0] - 1) / 2), Math.ceil((k[1] - 1) / 2)];
    this.b.node('Conv', [x, w, bias], [y], { kernel_shape: k, strides: [stride, stride], pads, group });
    return relu ? this.relu(y) : y;
  }

  relu(x: string): string {
    const y = `t${this.n++}`;
    this.b.node('Relu', [x], [y]);
    return y;
  }

  add(a: string, c: string): string {
    const y = `t${this.n++}`;
    this.b.node('Add', [a, c], [y]);
    return y;
  }

  /** GlobalAveragePool, Flatten, Gemm to `classes`. */
  head(x: string, channels: number, classes: number): void {
    const g = `t${this.n++}`;
    const f = `t${this.n++}`;
    this.b.node('GlobalAveragePool', [x], [g]);
    this.b.node('Flatten', [g], [f], { axis: 1 });
    const w = this.weights([classes, channels], channels);
    const bias = `b${this.n++}`;
    this.b.initializer(bias, 'float32', [classes], this.rng.floats(classes, -0.05, 0.05));
    this.b.node('Gemm', [f, w, bias], ['y'], { transB: 1 });
    this.b.output('y', 'float32');
  }
}

/** MLPerf Tiny visual wake words: MobileNetV1, width 0.25, 96x96 RGB, 2 classes (13 depthwise-separable blocks). */
function mobileNetV1(): Net {
  const net = new Net('mobilenetv1_025_96', [3, 96, 96], 11);
  let x = net.conv('x', 3, 8, [3, 3], 2, true);
  let c = 8;
  const blocks: [number, number][] = [[16, 1], [32, 2], [32, 1], [64, 2], [64, 1], [128, 2], [128, 1], [128, 1], [128, 1], [128, 1], [128, 1], [256, 2], [256, 1]];
  for (const [out, stride] of blocks) {
    x = net.conv(x, c, c, [3, 3], stride, true, c);
    x = net.conv(x, c, out, [1, 1], 1, true);
    c = out;
  }
  net.head(x, c, 2);
  return net;
}

/** MLPerf Tiny image classification: ResNet-8 on 32x32 RGB, 10 classes (three residual stages of 16, 32, 64). */
function resNet8(): Net {
  const net = new Net('resnet8', [3, 32, 32], 12);
  let x = net.conv('x', 3, 16, [3, 3], 1, true);
  let c = 16;
  for (const [out, stride] of [[16, 1], [32, 2], [64, 2]]) {
    const y = net.conv(net.conv(x, c, out, [3, 3], stride, true), out, out, [3, 3], 1, false);
    const shortcut = stride === 1 && out === c ? x : net.conv(x, c, out, [1, 1], stride, false);
    x = net.relu(net.add(y, shortcut));
    c = out;
  }
  net.head(x, c, 10);
  return net;
}

/** MLPerf Tiny keyword spotting: DS-CNN on 49x10 MFCCs, 12 classes (a 10x4 conv, four depthwise-separable blocks). */
function dsCnn(): Net {
  const net = new Net('ds_cnn_kws', [1, 49, 10], 13);
  let x = net.conv('x', 1, 64, [10, 4], 2, true);
  for (let i = 0; i < 4; i++) x = net.conv(net.conv(x, 64, 64, [3, 3], 1, true, 64), 64, 64, [1, 1], 1, true);
  net.head(x, 64, 12);
  return net;
}

/**
 * An 8-layer llama-style decoder in the integer dialect, stitched from the test vectors' own integer blocks rather
 * than quantized: per layer an iRMSNorm (Kernels/Integer/RMSNorm) and a transformer block (Kernels/Integer/
 * Attention: Q/K/V projections, 8 heads, iSoftmax, output projection, residual, 64-128-64 MLP, residual), each layer
 * with its own copy of the weights, on 16 tokens of width 64. Sample inputs: the Attention folder's.
 */
function decoder(layers: number): { graph: Graph; inputs: string } {
  const norm = loadOnnxFile(join(DEEPLOY, 'Kernels', 'Integer', 'RMSNorm', 'network.onnx'));
  const block = loadOnnxFile(join(DEEPLOY, 'Kernels', 'Integer', 'Attention', 'network.onnx'));
  const tensors = new Map<string, Tensor>();
  const nodes: Node[] = [];
  const input = block.inputs[0];
  tensors.set(input, block.tensors.get(input)!);
  let x = input;
  // Each part's tensors renamed into its layer, its input wired to the previous part's output.
  const append = (g: Graph, prefix: string): void => {
    const rename = (t: string): string => (t === '' ? t : t === g.inputs[0] ? x : `${prefix}${t}`);
    for (const [name, t] of g.tensors) if (name !== g.inputs[0]) tensors.set(rename(name), { ...t, name: rename(name) });
    for (const n of g.nodes) nodes.push({ ...n, name: `${prefix}${n.name}`, inputs: n.inputs.map(rename), outputs: n.outputs.map(rename) });
    x = rename(g.outputs[0]);
  };
  for (let l = 0; l < layers; l++) {
    append(norm, `l${l}.norm.`);
    append(block, `l${l}.`);
  }
  return { graph: { name: `decoder${layers}`, source: `decoder${layers}.onnx`, tensors, nodes, inputs: [input], outputs: [x] }, inputs: join(DEEPLOY, 'Kernels', 'Integer', 'Attention', 'inputs.npz') };
}

export const TINY_MODELS: Record<string, () => Net> = { 'MobileNetV1-0.25': mobileNetV1, 'ResNet-8': resNet8, 'DS-CNN-KWS': dsCnn };
/** Models built in the integer dialect directly (not through the quantizer). */
const INTEGER_MODELS: Record<string, () => { graph: Graph; inputs: string }> = { 'Llama-8': () => decoder(8) };
export const TINY_MODEL_NAMES = [...Object.keys(TINY_MODELS), ...Object.keys(INTEGER_MODELS)];

/** Builds, quantizes and writes one model as `<dir>/<name>/network.onnx` with a sample `inputs.npz`; returns its path. */
export function writeTinyModel(name: string, dir: string): string {
  if (name in INTEGER_MODELS) {
    const { graph, inputs } = INTEGER_MODELS[name]();
    const folder = join(dir, name);
    mkdirSync(folder, { recursive: true });
    const model = join(folder, 'network.onnx');
    writeFileSync(model, encodeModel(graph, { opset: 13, producer: 'firmgen bench' }));
    copyFileSync(inputs, join(folder, 'inputs.npz'));
    return model;
  }
  const net = TINY_MODELS[name]();
  const float = loadOnnxBytes(net.b.bytes(), `${name}.onnx`);
  const cal = uniformInputs(4, net.input, 21);
  const q = quantizeGraph(float, [cal], 'calibration', { scheme: 'per-channel', equalize: false, biasCorrection: false });
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const model = join(folder, 'network.onnx');
  writeFileSync(model, encodeModel(q.intGraph, { opset: 13, producer: 'firmgen bench' }));
  // Sample inputs in the integer model's input types (int8 at the input's scale): the generator reads their ranges.
  const inputs = new Map(q.intGraph.inputs.map((t, i) => [`input_${i}`, int8Sample(q.intGraph.tensors.get(t)!.shape)]));
  writeFileSync(join(folder, 'inputs.npz'), encodeNpz(inputs));
  return model;
}

function int8Sample(shape: number[]): NDArray {
  const size = shape.reduce((a, d) => a * d, 1);
  return ndarray('float32', shape, new Rng(5).ints(size, -128, 127));
}
