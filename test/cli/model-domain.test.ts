import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DType } from '../../generator/ir/dtype.js';
import { PLATFORMS } from '../../generator/platforms/index.js';
import { MAX_TENSOR_BYTES } from '../../generator/validate/sizes.js';
import { gen } from '../helpers/cli.js';
import { float, OnnxBuilder, type AttrInput } from '../helpers/onnx-builder.js';

/*
 * The domain of what `gen firmware` accepts (generator/validate/): one mutated model per defect class that once hung
 * a planner, crashed, produced firmware that does not build, or produced firmware that silently disagrees with the
 * reference. Each must fail at once, on every platform the same way: exit 2, one line naming the file, the node
 * and the reason, no output folder. The legal edges of the same domains are in model-domain-edges.test.ts.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-domain-'));
const PLATFORM_NAMES = ['siracusa', 'generic', 'spinnaker2'];
const { onnx } = onnxProto;

interface ConvMutation {
  xShape?: number[];
  wType?: DType;
  w?: number;
  conv?: Record<string, AttrInput>;
  mulType?: DType;
  mul?: number;
  addType?: DType;
  add?: number;
  requant?: Record<string, AttrInput>;
}

/** Conv 3x3 + RequantShift, a well-formed model that generates on every platform; one field at a time mutates it. */
function convModel(m: ConvMutation = {}): OnnxBuilder {
  const b = new OnnxBuilder('domain').input('x', 'int8', m.xShape ?? [1, 2, 6, 6]);
  b.initializer('w', m.wType ?? 'int8', [2, 2, 3, 3], new Array<number>(36).fill(m.w ?? 1));
  b.node('Conv', ['x', 'w'], ['c'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [1, 1], ...m.conv });
  b.initializer('mul', m.mulType ?? 'int32', [1], [m.mul ?? 3]);
  b.initializer('add', m.addType ?? 'int32', [1], [m.add ?? 0]);
  b.node('RequantShift', ['c', 'mul', 'add'], ['y'], { div: float(16), n_levels: float(256), signed: float(1), ...m.requant });
  // Declared, not inferred: a mutated geometry must reach the generator as the user's file has it.
  return b.output('y', 'float32', [1, 2, 6, 6]);
}

function poolModel(attrs: Record<string, AttrInput>): OnnxBuilder {
  return new OnnxBuilder('domain').input('x', 'int8', [1, 2, 6, 6])
    .node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], strides: [2, 2], ...attrs })
    .output('y', 'float32', [1, 2, 3, 3]);
}

/** The model's bytes edited as protobuf: for defects the builder (a name-keyed map) cannot express. */
function edited(b: OnnxBuilder, edit: (g: onnxProto.onnx.IGraphProto) => void): Uint8Array {
  const m = onnx.ModelProto.decode(b.bytes());
  edit(m.graph as onnxProto.onnx.IGraphProto);
  return onnx.ModelProto.encode(m).finish();
}

function save(name: string, model: OnnxBuilder | Uint8Array): string {
  const f = join(work, `${name}.onnx`);
  writeFileSync(f, model instanceof Uint8Array ? model : model.bytes());
  return f;
}

/**
 * Rejected on every platform with the same line (file, node or tensor, reason), exit 2, within a few seconds,
 * leaving no output folder.
 */
function rejected(name: string, model: OnnxBuilder | Uint8Array, site: RegExp, reason: RegExp): void {
  const file = save(name, model);
  const lines = new Set<string>();
  for (const platform of PLATFORM_NAMES) {
    const out = join(work, `out-${name}-${platform}`);
    const started = Date.now();
    const r = gen('firmware', '--platform', platform, file, '-o', out);
    const seconds = (Date.now() - started) / 1000;
    assert.is(r.code, 2, `${platform}: exit code (stderr: ${r.stderr})`);
    const text = r.stderr.trim().split('\n');
    assert.is(text.length, 1, `${platform}: one line, got: ${r.stderr}`);
    assert.ok(text[0].includes(file), `${platform}: names the file: ${text[0]}`);
    assert.match(text[0], site, `${platform}: names the site`);
    assert.match(text[0], reason, `${platform}: gives the reason`);
    assert.not.match(text[0], /internal error|Cannot read|at .*\.js:\d+/, `${platform}: a model error, not a crash`);
    assert.ok(seconds < 10, `${platform}: fails fast (${seconds} s)`);
    assert.not.ok(existsSync(out), `${platform}: no output folder`);
    lines.add(text[0]);
  }
  assert.is(lines.size, 1, `the same error on every platform: ${[...lines].join(' | ')}`);
}

const CONV = /node 'Conv_0' \(Conv\)/;
const POOL = /node 'MaxPool_0' \(MaxPool\)/;
const RQS = /node 'RequantShift_1' \(RequantShift\)/;
/** A defect of the graph as a whole: the reason follows the file name directly. */
const GRAPH = /\.onnx: [a-z]/;

test('the tensor bound is what the largest memory of any platform holds', () => {
  const largest = Math.max(...Object.values(PLATFORMS).flatMap((p) => p.memories.map((m) => m.size)));
  assert.is(MAX_TENSOR_BYTES, largest);
});

// Geometry that hung the Siracusa planner or exhausted the host's memory.
test('a Conv stride of 0', () => rejected('conv-stride0', convModel({ conv: { strides: [0, 1] } }), CONV, /'strides' = 0: must be an integer in 1\.\./));
test('a MaxPool stride of 0', () => rejected('pool-stride0', poolModel({ strides: [2, 0] }), POOL, /'strides' = 0/));
test('Conv pads of 1e9', () => rejected('conv-pads', convModel({ conv: { pads: [1e9, 1, 1, 1] } }), CONV, /'pads' = 1000000000: must be an integer in 0\.\.67108864/));
test('negative Conv pads', () => rejected('conv-negpads', convModel({ conv: { pads: [-3, 1, 1, 1] } }), CONV, /'pads' = -3/));
test('a Conv dilation of 0', () => rejected('conv-dil0', convModel({ conv: { dilations: [1, 0] } }), CONV, /'dilations' = 0/));
test('a MaxPool window wholly in the padding', () => rejected('pool-pad', poolModel({ pads: [0, 2, 0, 0] }), POOL, /output 0 along spatial axis 1 has its window entirely in the padding/));
test('a MaxPool kernel of size 0', () => rejected('pool-k0', poolModel({ kernel_shape: [0, 2] }), POOL, /'kernel_shape' = 0/));
test('an input dimension of 2^31', () => rejected('dim31', convModel({ xShape: [1, 2, 2 ** 31, 6] }), /tensor 'x'/, /dimension 2147483648 is not a size from 0 to 67108864/));
test('a result larger than any memory', () => rejected('huge', new OnnxBuilder('domain').input('x', 'int8', [1, 1, 8192, 8192])
  .initializer('w', 'int8', [2, 1, 1, 1], [1, 1]).node('Conv', ['x', 'w'], ['y'], { kernel_shape: [1, 1] }).output('y', 'float32', [1, 2, 8192, 8192]),
CONV, /tensor 'y': shape \[1, 2, 8192, 8192\] needs 134217728 bytes, more than the largest memory of any platform/));

// Requantization parameters that generated C and AS that do not compile, or shift by 64.
test('div = Infinity', () => rejected('div-inf', convModel({ requant: { div: float(Infinity) } }), RQS, /div = Infinity: must be a power of two from 1 to 2\^31/));
test('div = 2^64', () => rejected('div-64', convModel({ requant: { div: float(2 ** 64) } }), RQS, /div = 18446744073709551616/));
test('div = 2^32', () => rejected('div-32', convModel({ requant: { div: float(2 ** 32) } }), RQS, /div = 4294967296/));
test('div = 1/2', () => rejected('div-half', convModel({ requant: { div: float(0.5) } }), RQS, /div = 0\.5/));
test('div = 3', () => rejected('div-3', convModel({ requant: { div: float(3) } }), RQS, /div = 3:/));
test('mul = 0.5', () => rejected('mul-half', convModel({ mulType: 'float32', mul: 0.5 }), RQS, /mul\[0\] = 0\.5: must be an integer from -2147483648 to 2147483647/));
test('mul = 2^31', () => rejected('mul-31', convModel({ mulType: 'int64', mul: 2 ** 31 }), RQS, /mul\[0\] = 2147483648/));
test('mul = 2^62', () => rejected('mul-62', convModel({ mulType: 'int64', mul: 2 ** 62 }), RQS, /mul\[0\] = 4611686018427387904/));
test('add = 2^40', () => rejected('add-40', convModel({ addType: 'int64', add: 2 ** 40 }), RQS, /add\[0\] = 1099511627776/));
test('n_levels = 0 and 1', () => {
  rejected('levels-0', convModel({ requant: { n_levels: float(0) } }), RQS, /n_levels = 0: must be an integer from 2/);
  rejected('levels-1', convModel({ requant: { n_levels: float(1) } }), RQS, /n_levels = 1: must be an integer from 2/);
});
test('n_levels = 2.5', () => rejected('levels-frac', convModel({ requant: { n_levels: float(2.5) } }), RQS, /n_levels = 2\.5/));
test('signed = 2', () => rejected('signed-2', convModel({ requant: { signed: float(2) } }), RQS, /signed = 2: must be 0 or 1/));

// Constants beyond what the kernels' int32 arithmetic holds.
test('int64 weights of 2^40', () => rejected('w-40', convModel({ wType: 'int64', w: 2 ** 40 }), CONV, /constant 'w' \(input 1\) holds 1099511627776/));
test('int32 weights whose sums leave int32', () => rejected('w-acc', convModel({ wType: 'int32', w: 2 ** 24 }), CONV, /its result can reach -?\d+, beyond int32/));

test('TrueIntegerDiv by zero', () => {
  const b = new OnnxBuilder('domain').input('x', 'int8', [1, 4])
    .node('TrueIntegerDiv', ['x'], ['d'], { Delta: float(1), eps: float(0), eta: float(1), y: float(0) })
    .initializer('mul', 'int32', [1], [1]).initializer('add', 'int32', [1], [0])
    .node('RequantShift', ['d', 'mul', 'add'], ['y'], { div: float(1), n_levels: float(256), signed: float(1) })
    .output('y', 'float32', [1, 4]);
  rejected('tid-zero', b, /node 'TrueIntegerDiv_0' \(TrueIntegerDiv\)/, /y\*eta \+ eps = 0: division by zero/);
});

test('a fractional pad value for an integer tensor', () => {
  const b = new OnnxBuilder('domain').input('x', 'int8', [1, 4])
    .initializer('pads', 'int64', [4], [0, 1, 0, 1]).initializer('value', 'float32', [], [0.5])
    .node('Pad', ['x', 'pads', 'value'], ['y'], { mode: 'constant' }).output('y', 'float32', [1, 6]);
  rejected('pad-frac', b, /node 'Pad_0' \(Pad\)/, /pad value 0\.5: the padded tensor holds integers/);
});

// Graphs that are not well formed.
const add = (): OnnxBuilder => new OnnxBuilder('domain').input('a', 'int8', [1, 4]).input('b', 'int8', [1, 4])
  .node('Add', ['a', 'b'], ['y']).output('y', 'int32', [1, 4]);

test('an op no platform knows: a float model is told to quantize first, an integer one is not', () => {
  const floatModel = new OnnxBuilder('domain').input('x', 'float32', [1, 4]).initializer('w', 'float32', [4, 4], new Array<number>(16).fill(0.25))
    .node('MatMul', ['x', 'w'], ['m']).node('Frobnicate', ['m'], ['y']).output('y', 'float32', [1, 4]);
  rejected('float-unknown-op', floatModel, /node 'Frobnicate_1' \(Frobnicate\)/, /op Frobnicate is not supported; the model computes in floating point: .*quantize it first/);
  const intModel = add().node('Frobnicate', ['y'], ['z']).output('z', 'int32', [1, 4]);
  rejected('int-unknown-op', intModel, /node 'Frobnicate_1' \(Frobnicate\)/, /op Frobnicate is not supported$/);
});
test('a graph output no node produces', () => {
  rejected('orphan-output', add().output('ghost', 'int32', [1, 4]), GRAPH, /graph output 'ghost' is produced by no node/);
});
test('two nodes writing one tensor', () => {
  rejected('two-writers', add().node('Sub', ['a', 'b'], ['y']), /node 'Sub_1' \(Sub\)/, /tensor 'y' is written by node 'Sub_1', but it is already written by node 'Add_0'/);
});
test('two initializers of one name', () => {
  const b = add().initializer('k', 'int8', [1, 4], [1, 2, 3, 4]).node('Mul', ['y', 'k'], ['z']).output('z', 'int32', [1, 4]);
  const bytes = edited(b, (g) => { g.initializer?.push({ ...g.initializer[0] }); });
  rejected('dup-init', bytes, GRAPH, /tensor 'k' is an initializer, but it is already an initializer/);
});
test('an unnamed graph input, output or initializer', () => {
  rejected('unnamed-input', edited(add(), (g) => { (g.input ?? [])[0].name = ''; }), GRAPH, /a graph input has no name/);
  rejected('unnamed-output', edited(add(), (g) => { (g.output ?? [])[0].name = ''; }), GRAPH, /a graph output has no name/);
  const init = add().initializer('k', 'int8', [1, 4], [1, 2, 3, 4]).node('Mul', ['y', 'k'], ['z']).output('z', 'int32', [1, 4]);
  rejected('unnamed-init', edited(init, (g) => { (g.initializer ?? [])[0].name = ''; }), GRAPH, /an initializer has no name/);
});
test('a node input nothing produces', () => {
  rejected('dangling', add().node('Mul', ['y', 'nothing'], ['z']).output('z', 'int32', [1, 4]), /node 'Mul_1' \(Mul\)/, /input 'nothing' is produced by no node/);
});

test('an omitted operand the op needs', () => {
  rejected('omitted', edited(add(), (g) => { (g.node ?? [])[0].input = ['a', '']; }), /node 'Add_0' \(Add\)/, /input 1 has no name: Add needs it/);
});
test('too few operands: an ONNX op up to its last needed input, a dialect op all of its own', () => {
  rejected('few-add', edited(add(), (g) => { (g.node ?? [])[0].input = ['a']; }), /node 'Add_0' \(Add\)/, /1 input: Add needs 2/);
  const rms = new OnnxBuilder('domain').input('x', 'int8', [2, 8]).node('iRMSNorm', ['x'], ['y'], { D: 65536, n_levels: 256 }).output('y', 'float32', [2, 8]);
  rejected('few-rms', rms, /node 'iRMSNorm_0' \(iRMSNorm\)/, /1 input: iRMSNorm needs 2/);
  const rq = new OnnxBuilder('domain').input('x', 'int8', [2, 8]).initializer('m', 'int32', [1], [3])
    .node('RequantShift', ['x', 'm'], ['y'], { div: 4, n_levels: 256, signed: 1 }).output('y', 'float32', [2, 8]);
  rejected('few-rq', rq, /node 'RequantShift_0' \(RequantShift\)/, /2 inputs: RequantShift needs 3/);
});
test('an integer-dialect op reading fractions (a bias with fractions upstream)', () => {
  const b = new OnnxBuilder('domain').input('x', 'int8', [2, 4]).initializer('bias', 'float32', [4], [1, -1.5, 0, 2])
    .initializer('m', 'int32', [1], [3]).initializer('k', 'int32', [1], [0])
    .node('Add', ['x', 'bias'], ['s']).node('RequantShift', ['s', 'm', 'k'], ['y'], { div: 4, n_levels: 256, signed: 1 })
    .output('y', 'float32', [2, 4]);
  rejected('rq-float', b, /node 'RequantShift_1' \(RequantShift\)/, /RequantShift needs an integer input: 's' holds fractions/);
});
test('a softmax or norm with fewer than 2 levels (an empty output range)', () => {
  for (const [op, levels] of [['iSoftmax', 0], ['ITAMax', 1], ['iRMSNorm', 1.5]] as const) {
    const b = new OnnxBuilder('domain').input('x', 'int8', [2, 8]);
    const inputs = ['x'];
    if (op === 'iRMSNorm') { b.initializer('g', 'int32', [8], [1, 2, 3, 4, 5, 6, 7, 8]); inputs.push('g'); }
    const attrs: Record<string, number> = op === 'iSoftmax' ? { coeffA: 1, coeffB: 345, coeffC: 26, log2: 255, n_levels: levels }
      : op === 'ITAMax' ? { n_levels: levels } : { D: 65536, n_levels: levels };
    b.node(op, inputs, ['y'], attrs).output('y', 'float32', [2, 8]);
    rejected(`levels-${op}`, b, new RegExp(`node '${op}_0' \\(${op}\\)`), new RegExp(`n_levels = ${levels}: must be an integer from 2`));
  }
});
test('an empty input dimension', () => {
  const b = new OnnxBuilder('domain').input('x', 'int8', [1, 0, 4]).node('ReduceMean', ['x'], ['y'], { axes: [2], keepdims: 0 }).output('y', 'float32', [1, 0]);
  rejected('empty', b, /tensor 'x'/, /dimension 0 is not a size from 1 to 67108864/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
