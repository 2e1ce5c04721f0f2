/**
 * The workload classes of Tangram's evaluation (ASPLOS'19 Sec. 6: AlexNet, VGG, GoogLeNet, ResNet, two MLPs, two
 * LSTMs), written here as layer shapes for the cost model. They follow the published layer dimensions of the
 * networks (AlexNet: Krizhevsky et al. 2012; VGG-16: Simonyan & Zisserman 2015; GoogLeNet: Szegedy et al. 2015;
 * ResNet-50: He et al. 2016); the MLPs and LSTMs are of the sizes such evaluations use (ASSUMPTION: exact sizes of
 * Tangram's MLP/LSTM models not checked; stated beside each).
 */
import { conv, eltwise, fc, type LayerShape, pool } from '../../generator/platforms/tangram/layers.js';

class Net {
  readonly layers: LayerShape[] = [];
  add(l: LayerShape): number {
    this.layers.push(l);
    return this.layers.length - 1;
  }
  get last(): number {
    return this.layers.length - 1;
  }
}

function inputs(prev: number): number[] {
  return prev >= 0 ? [prev] : [];
}

export function alexnet(): LayerShape[] {
  const n = new Net();
  n.add(conv('conv1', 3, 96, 55, 11, 4, []));
  n.add(pool('pool1', 96, 27, 3, 2, [n.last]));
  n.add(conv('conv2', 96, 256, 27, 5, 1, [n.last]));
  n.add(pool('pool2', 256, 13, 3, 2, [n.last]));
  n.add(conv('conv3', 256, 384, 13, 3, 1, [n.last]));
  n.add(conv('conv4', 384, 384, 13, 3, 1, [n.last]));
  n.add(conv('conv5', 384, 256, 13, 3, 1, [n.last]));
  n.add(pool('pool3', 256, 6, 3, 2, [n.last]));
  n.add(fc('fc1', 256 * 6 * 6, 4096, [n.last]));
  n.add(fc('fc2', 4096, 4096, [n.last]));
  n.add(fc('fc3', 4096, 1000, [n.last]));
  return n.layers;
}

export function vgg16(): LayerShape[] {
  const n = new Net();
  const stages: Array<[number, number, number]> = [[64, 224, 2], [128, 112, 2], [256, 56, 3], [512, 28, 3], [512, 14, 3]];
  let c = 3;
  let prev = -1;
  stages.forEach(([k, hw, reps], s) => {
    for (let r = 0; r < reps; r++) {
      prev = n.add(conv(`conv${s + 1}_${r + 1}`, c, k, hw, 3, 1, inputs(prev)));
      c = k;
    }
    prev = n.add(pool(`pool${s + 1}`, k, hw / 2, 2, 2, [prev]));
  });
  n.add(fc('fc1', 512 * 7 * 7, 4096, [n.last]));
  n.add(fc('fc2', 4096, 4096, [n.last]));
  n.add(fc('fc3', 4096, 1000, [n.last]));
  return n.layers;
}

/** An inception module: four branches (1x1; 1x1-3x3; 1x1-5x5; pool-1x1) joined by a concatenation. */
function inception(n: Net, name: string, input: number, c: number, hw: number, k: [number, number, number, number, number, number]): number {
  const b1 = n.add(conv(`${name}_1x1`, c, k[0], hw, 1, 1, [input]));
  const r3 = n.add(conv(`${name}_3x3r`, c, k[1], hw, 1, 1, [input]));
  const b3 = n.add(conv(`${name}_3x3`, k[1], k[2], hw, 3, 1, [r3]));
  const r5 = n.add(conv(`${name}_5x5r`, c, k[3], hw, 1, 1, [input]));
  const b5 = n.add(conv(`${name}_5x5`, k[3], k[4], hw, 5, 1, [r5]));
  const p = n.add(pool(`${name}_pool`, c, hw, 3, 1, [input]));
  const bp = n.add(conv(`${name}_poolproj`, c, k[5], hw, 1, 1, [p]));
  // The concatenation is modelled as an element-wise pass over the joined channels (it moves the four maps).
  return n.add(eltwise(`${name}_concat`, k[0] + k[2] + k[4] + k[5], hw, [b1, b3, b5, bp]));
}

export function googlenet(): LayerShape[] {
  const n = new Net();
  n.add(conv('conv1', 3, 64, 112, 7, 2, []));
  n.add(pool('pool1', 64, 56, 3, 2, [n.last]));
  n.add(conv('conv2r', 64, 64, 56, 1, 1, [n.last]));
  n.add(conv('conv2', 64, 192, 56, 3, 1, [n.last]));
  let at = n.add(pool('pool2', 192, 28, 3, 2, [n.last]));
  at = inception(n, 'i3a', at, 192, 28, [64, 96, 128, 16, 32, 32]);
  at = inception(n, 'i3b', at, 256, 28, [128, 128, 192, 32, 96, 64]);
  at = n.add(pool('pool3', 480, 14, 3, 2, [at]));
  at = inception(n, 'i4a', at, 480, 14, [192, 96, 208, 16, 48, 64]);
  at = inception(n, 'i4b', at, 512, 14, [160, 112, 224, 24, 64, 64]);
  at = inception(n, 'i4c', at, 512, 14, [128, 128, 256, 24, 64, 64]);
  at = inception(n, 'i4d', at, 512, 14, [112, 144, 288, 32, 64, 64]);
  at = inception(n, 'i4e', at, 528, 14, [256, 160, 320, 32, 128, 128]);
  at = n.add(pool('pool4', 832, 7, 3, 2, [at]));
  at = inception(n, 'i5a', at, 832, 7, [256, 160, 320, 32, 128, 128]);
  at = inception(n, 'i5b', at, 832, 7, [384, 192, 384, 48, 128, 128]);
  at = n.add(pool('pool5', 1024, 1, 7, 1, [at]));
  n.add(fc('fc', 1024, 1000, [at]));
  return n.layers;
}

/** ResNet-50: bottleneck blocks (1x1, 3x3, 1x1) with a residual Add; the first block of a stage projects. */
export function resnet50(): LayerShape[] {
  const n = new Net();
  n.add(conv('conv1', 3, 64, 112, 7, 2, []));
  let at = n.add(pool('pool1', 64, 56, 3, 2, [n.last]));
  let c = 64;
  const stages: Array<[number, number, number]> = [[64, 56, 3], [128, 28, 4], [256, 14, 6], [512, 7, 3]];
  stages.forEach(([mid, hw, blocks], s) => {
    for (let b = 0; b < blocks; b++) {
      const name = `res${s + 2}${String.fromCharCode(97 + b)}`;
      const stride = b === 0 && s > 0 ? 2 : 1;
      const a = n.add(conv(`${name}_a`, c, mid, hw, 1, stride, [at]));
      const bb = n.add(conv(`${name}_b`, mid, mid, hw, 3, 1, [a]));
      const cc = n.add(conv(`${name}_c`, mid, mid * 4, hw, 1, 1, [bb]));
      const skip = b === 0 ? n.add(conv(`${name}_proj`, c, mid * 4, hw, 1, stride, [at])) : at;
      at = n.add(eltwise(`${name}_add`, mid * 4, hw, [cc, skip]));
      c = mid * 4;
    }
  });
  at = n.add(pool('pool5', 2048, 1, 7, 1, [at]));
  n.add(fc('fc', 2048, 1000, [at]));
  return n.layers;
}

/** ASSUMPTION: the MLP-M and MLP-L sizes of the PRIME/nn_dataflow MLP benchmarks (784-1000-500-250-10, 784-1500-1000-500-10). */
export function mlp(name: string, sizes: number[]): LayerShape[] {
  const n = new Net();
  for (let i = 1; i < sizes.length; i++) n.add(fc(`${name}_fc${i}`, sizes[i - 1], sizes[i], inputs(n.last)));
  return n.layers;
}

/**
 * An LSTM unrolled over `steps` time steps: per step one fully connected layer for the four gates over [x, h]
 * (c = input + hidden, k = 4 hidden) and one element-wise cell update over the gates and the previous cell state.
 * ASSUMPTION: LSTM-M 1 layer of 1024 hidden on 1024 inputs, LSTM-L 2 layers of 2048 hidden; 8 steps each.
 */
export function lstm(name: string, layersCount: number, hidden: number, input: number, steps: number): LayerShape[] {
  const n = new Net();
  const prevCell: number[] = Array(layersCount).fill(-1);
  for (let t = 0; t < steps; t++) {
    let x = -1;
    for (let l = 0; l < layersCount; l++) {
      const ins = [x, prevCell[l]].filter((i) => i >= 0);
      const gates = n.add(fc(`${name}_t${t}_l${l}_gates`, (l === 0 ? input : hidden) + hidden, 4 * hidden, ins));
      const cell = n.add(eltwise(`${name}_t${t}_l${l}_cell`, hidden, 1, [gates, ...(prevCell[l] >= 0 ? [prevCell[l]] : [])]));
      prevCell[l] = cell;
      x = cell;
    }
  }
  return n.layers;
}

export const WORKLOADS: Array<{ name: string; layers: () => LayerShape[] }> = [
  { name: 'AlexNet', layers: alexnet },
  { name: 'VGG-16', layers: vgg16 },
  { name: 'GoogLeNet', layers: googlenet },
  { name: 'ResNet-50', layers: resnet50 },
  { name: 'MLP-M', layers: () => mlp('mlpm', [784, 1000, 500, 250, 10]) },
  { name: 'MLP-L', layers: () => mlp('mlpl', [784, 1500, 1000, 500, 10]) },
  { name: 'LSTM-M', layers: () => lstm('lstmm', 1, 1024, 1024, 8) },
  { name: 'LSTM-L', layers: () => lstm('lstml', 2, 2048, 2048, 8) },
];
