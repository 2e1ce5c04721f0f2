/**
 * `npm run bench:iss-kernels`: throughput of the board C kernels measured on the emulator's RV32 cores (the rv32-xpulp
 * build, `gen run --on iss`), one layer per model (kernel + RequantShift to int8, fused), on Siracusa with 1 and 8
 * cluster cores, tiled through L1 as the generator plans it. Beside each: the AS firmware's cycles (the cost table,
 * what `gen run` prints) and the published pulp-nn figures (HARDWARE.md "int8 kernel throughput": up to 15.5
 * MAC/cycle on 8 cores, its 4x2 loop ~2.3 MAC/cycle on one core). Cycles are the layer span (first mark to last):
 * DMA, tile loop, forks and barriers included. Both runs' outputs must be equal before a figure counts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { ndarray, type NDArray } from '../generator/ir/ndarray.js';
import { runIss } from '../runtime/node/iss-run.js';
import { runFirmware } from '../runtime/node/run.js';
import { float, OnnxBuilder } from '../test/helpers/onnx-builder.js';
import { Rng } from '../test/helpers/random.js';

interface Layer {
  name: string;
  macs: number;
  build(b: OnnxBuilder): void;
  input: number[];
}

/** int8 Conv k x k, stride 1, 'same' padding; depthwise when `dw`. */
function conv(name: string, c: number, co: number, hw: number, k: number, dw = false): Layer {
  const groups = dw ? c : 1;
  return {
    name,
    macs: co * hw * hw * (c / groups) * k * k,
    input: [1, c, hw, hw],
    build(b) {
      const rng = new Rng(11);
      const shape = [co, c / groups, k, k];
      b.initializer('w', 'int8', shape, rng.ints(shape.reduce((x, y) => x * y, 1), -128, 127));
      const p = (k - 1) / 2;
      b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [k, k], pads: [p, p, p, p], strides: [1, 1], group: groups });
    },
  };
}

/** int8 Gemm with weights [N, K] (fully connected). */
function gemm(name: string, m: number, k: number, n: number): Layer {
  return {
    name,
    macs: m * k * n,
    input: [m, k],
    build(b) {
      const rng = new Rng(12);
      b.initializer('w', 'int8', [n, k], rng.ints(n * k, -128, 127));
      b.node('Gemm', ['x', 'w'], ['p'], { transB: 1 });
    },
  };
}

const LAYERS: Layer[] = [
  conv('conv3x3 32->64 16x16', 32, 64, 16, 3),
  conv('conv1x1 64->64 16x16', 64, 64, 16, 1),
  conv('depthwise3x3 64 16x16', 64, 64, 16, 3, true),
  // A small map (MobileNetV1-class 6x6 depthwise layers): a band of a channel per unit, rows of three pairs
  // (kernels/dw-plane.ts), where the row path's edge pairs were two of the three.
  conv('depthwise3x3 128 6x6', 128, 128, 6, 3, true),
  gemm('gemm 64x256x128', 64, 256, 128),
];

function model(dir: string, l: Layer): { path: string; inputs: NDArray[] } {
  const b = new OnnxBuilder('bench').input('x', 'int8', l.input);
  l.build(b);
  // Requantized to int8 (mul 37, shift 14): the output stage every layer of the integer models has.
  b.initializer('mul', 'int32', [1], [37]);
  b.initializer('add', 'int32', [1], [1 << 13]);
  b.node('RequantShift', ['p', 'mul', 'add'], ['y'], { div: float(2 ** 14), n_levels: float(256), signed: float(1) });
  b.output('y', 'float32');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'model.onnx');
  writeFileSync(path, b.bytes());
  const rng = new Rng(13);
  const n = l.input.reduce((x, y) => x * y, 1);
  return { path, inputs: [ndarray('int8', l.input, rng.ints(n, -128, 127))] };
}

const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-isskern-'));
const rows: string[][] = [];
for (const l of LAYERS) {
  for (const cores of [1, 8]) {
    const dir = join(work, `${l.name.replace(/\W+/g, '-')}-${cores}`);
    const m = model(dir, l);
    const out = join(dir, 'out');
    generateFirmware({ model: m.path, platform: 'siracusa', out, cores });
    const as = await runFirmware(out, m.inputs);
    const iss = await runIss(out, m.inputs);
    const same = as.outputs.every((o, i) => Buffer.compare(Buffer.from(o.data.buffer), Buffer.from(iss.outputs[i].data.buffer)) === 0);
    if (!same) throw new Error(`${l.name} on ${cores} cores: the ISS outputs differ from the AS firmware's`);
    const issMpc = l.macs / iss.networkCycles;
    const asMpc = l.macs / as.cycles;
    const pulpnn = cores === 8 ? '15.5 (peak)' : '2.3 (4x2 loop)';
    console.log(JSON.stringify({ kernel: l.name, cores, macs: l.macs, issCycles: iss.networkCycles, asCycles: as.cycles,
      issMacPerCycle: Number(issMpc.toFixed(2)), asMacPerCycle: Number(asMpc.toFixed(2)), issOverAs: Number((iss.networkCycles / as.cycles).toFixed(2)) }));
    rows.push([l.name, String(cores), String(l.macs), String(iss.networkCycles), issMpc.toFixed(2), asMpc.toFixed(2), (iss.networkCycles / as.cycles).toFixed(2), pulpnn]);
  }
}
rmSync(work, { recursive: true, force: true });
const head = ['kernel', 'cores', 'MACs', 'ISS cycles', 'ISS MAC/cyc', 'AS MAC/cyc', 'ISS/AS', 'pulp-nn MAC/cyc'];
const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
console.log([head, ...rows].map((r) => r.map((x, i) => (i === 0 || i === 7 ? x.padEnd(width[i]) : x.padStart(width[i]))).join('  ')).join('\n'));
