import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { unrollLstms } from '../../generator/quantize/expand-lstm.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { runInteger } from '../../generator/quantize/report.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from '../helpers/cli.js';
import { REPO } from '../helpers/deeploy.js';
import { OnnxBuilder, type AttrInput } from '../helpers/onnx-builder.js';
import { runOrt } from '../helpers/ort-compare.js';
import { Rng } from '../helpers/random.js';

/*
 * ONNX LSTM in the quantizer (generator/quantize/expand-lstm.ts): the unrolled float graph in the reference
 * interpreter against onnxruntime's LSTM kernel (zero, given and constant initial states, batch 2, all three outputs, a full
 * sequence_lens, zero peepholes); the unrolled cell quantized (no LSTM left, tables for Sigmoid and Tanh, close to the
 * float model); every attribute or input outside the unrolled form refused with one line naming the node, exit 2 and
 * no output from `gen quantize`. The torch-built LSTM end to end: test/examples/tangram-torch.test.ts.
 */

const S = 5;
const I = 3;
const H = 4;

interface Variant {
  batch?: number;
  /** initial_h and initial_c as graph inputs or as constants (else absent: zero). */
  states?: 'inputs' | 'constants';
  bias?: boolean;
  attrs?: Record<string, AttrInput>;
  seqLens?: number[];
  peepholes?: number[];
  /**
   * A Gemm head on Y_h (a classifier reading the last state), and the input batch first, [1, S, I], transposed to the
   * LSTM's [S, 1, I] as torch exports batch_first: calibration files hold samples of a batch-1 input.
   */
  head?: boolean;
}

function lstmModel(v: Variant = {}): OnnxBuilder {
  const rng = new Rng(7);
  const B = v.batch ?? 1;
  const b = new OnnxBuilder('lstm', { opset: 14 });
  if (v.head) b.input('x', 'float32', [B, S, I]).node('Transpose', ['x'], ['xt'], { perm: [1, 0, 2] });
  else b.input('x', 'float32', [S, B, I]);
  b
    .initializer('W', 'float32', [1, 4 * H, I], rng.floats(4 * H * I, -0.8, 0.8))
    .initializer('R', 'float32', [1, 4 * H, H], rng.floats(4 * H * H, -0.8, 0.8));
  if (v.bias !== false) b.initializer('B', 'float32', [1, 8 * H], rng.floats(8 * H, -0.5, 0.5));
  if (v.states === 'inputs') b.input('h0', 'float32', [1, B, H]).input('c0', 'float32', [1, B, H]);
  if (v.states === 'constants') b.initializer('h0', 'float32', [1, B, H], rng.floats(B * H, -1, 1)).initializer('c0', 'float32', [1, B, H], rng.floats(B * H, -2, 2));
  if (v.seqLens) b.initializer('lens', 'int32', [B], v.seqLens);
  if (v.peepholes) b.initializer('P', 'float32', [1, 3 * H], v.peepholes);
  const inputs = [v.head ? 'xt' : 'x', 'W', 'R', v.bias !== false ? 'B' : '', v.seqLens ? 'lens' : '', v.states ? 'h0' : '', v.states ? 'c0' : '', v.peepholes ? 'P' : ''];
  while (inputs[inputs.length - 1] === '') inputs.pop();
  b.node('LSTM', inputs, ['Y', 'Y_h', 'Y_c'], { hidden_size: H, ...v.attrs });
  if (v.head) {
    b.initializer('flat', 'int64', [2], [B, H]).initializer('Wo', 'float32', [2, H], rng.floats(2 * H, -1, 1));
    b.node('Reshape', ['Y_h', 'flat'], ['h']).node('Gemm', ['h', 'Wo'], ['logits'], { transB: 1 });
    return b.output('logits', 'float32', [B, 2]);
  }
  return b.output('Y', 'float32', [S, 1, B, H]).output('Y_h', 'float32', [1, B, H]).output('Y_c', 'float32', [1, B, H]);
}

function randomInputs(v: Variant, seed: number): NDArray[] {
  const rng = new Rng(seed);
  const B = v.batch ?? 1;
  const x = ndarray('float32', v.head ? [B, S, I] : [S, B, I], rng.floats(S * B * I, -2, 2));
  return v.states === 'inputs' ? [x, ndarray('float32', [1, B, H], rng.floats(B * H, -1, 1)), ndarray('float32', [1, B, H], rng.floats(B * H, -2, 2))] : [x];
}

const cases: [string, Variant][] = [
  ['zero state, bias', {}],
  ['given states, no bias, batch 2', { states: 'inputs', bias: false, batch: 2 }],
  ['constant states', { states: 'constants' }],
  ['full sequence_lens, zero peepholes, default attributes spelt out', {
    seqLens: [S], peepholes: new Array<number>(3 * H).fill(0),
    attrs: { direction: 'forward', activations: { kind: 'strings', value: ['Sigmoid', 'Tanh', 'Tanh'] }, input_forget: 0, layout: 0 },
  }],
];

test('the unrolled LSTM equals onnxruntime\'s LSTM (Y, Y_h, Y_c)', async () => {
  for (const [label, v] of cases) {
    const bytes = lstmModel(v).bytes();
    const g = unrollLstms(loadOnnxBytes(bytes, 'lstm.onnx'));
    assert.not.ok(g.nodes.some((n) => n.op === 'LSTM'), label);
    let worst = 0;
    for (let s = 0; s < 4; s++) {
      const inputs = randomInputs(v, 100 + s);
      const ours = runReference(g, inputs);
      const ort = await runOrt(bytes, g.inputs, inputs, false);
      g.outputs.forEach((name, k) => {
        const r = ours.get(name)!;
        assert.equal(r.shape, ort[k].shape, `${label}: ${name} shape`);
        r.data.forEach((x, i) => (worst = Math.max(worst, Math.abs(x - ort[k].data[i]))));
      });
    }
    console.log(`  ${label}: max |unrolled - ORT| ${worst.toExponential(2)}`);
    assert.ok(worst < 1e-5, `${label}: ${worst}`);
  }
});

test('quantized: no LSTM left, Sigmoid and Tanh as tables, outputs close to the float model', () => {
  for (const v of [{ head: true }, { head: true, states: 'inputs' }, { head: true, states: 'constants' }] as Variant[]) {
    const float = loadOnnxBytes(lstmModel(v).bytes(), 'lstm.onnx');
    const cal = Array.from({ length: 64 }, (_, s) => randomInputs(v, 200 + s));
    const stacked = cal[0].map((_, k) => ndarray('float32', [cal.length, ...cal[0][k].shape.slice(1)], cal.flatMap((c) => Array.from(c[k].data))));
    const q = quantizeGraph(float, stacked, 'cal.npz', { biasCorrection: false });
    assert.not.ok(q.intGraph.nodes.some((n) => n.op === 'LSTM'));
    // Per step: Sigmoid for i, o, f and Tanh for g and C, each a 256-entry Gather table; from a zero state the first
    // step's forget gate multiplies zero and is dropped.
    const tables = q.intGraph.nodes.filter((n) => n.op === 'Gather' && q.intGraph.tensors.get(n.inputs[0])?.data?.shape[0] === 256);
    assert.is(tables.length, 5 * S - (v.states ? 0 : 1));
    const unrolled = unrollLstms(float);
    const scale = q.plan.act.get('logits')!.scale;
    let err = 0;
    let top = 0;
    for (let s = 0; s < 8; s++) {
      const inputs = randomInputs(v, 300 + s);
      const want = runReference(unrolled, inputs).get('logits')!;
      const got = runInteger(q.intGraph, q.plan, inputs).get('logits')!;
      want.data.forEach((x, i) => {
        err = Math.max(err, Math.abs(got.data[i] * scale - x));
        top = Math.max(top, Math.abs(x));
      });
    }
    console.log(`  ${v.states ? `states as ${v.states}` : 'zero state'}: max |int8 - float| ${err.toFixed(4)} on logits up to ${top.toFixed(3)} (output scale ${scale.toPrecision(4)})`);
    assert.ok(err < 0.05 * top + 2 * scale, `${err} of ${top}`);
  }
});

const refused: [string, Variant, RegExp][] = [
  ['bidirectional', { attrs: { direction: 'bidirectional' } }, /direction 'bidirectional'/],
  ['reverse', { attrs: { direction: 'reverse' } }, /direction 'reverse'/],
  ['clip', { attrs: { clip: 3 } }, /'clip'/],
  ['other activations', { attrs: { activations: { kind: 'strings', value: ['Relu', 'Tanh', 'Tanh'] } } }, /activations Relu, Tanh, Tanh/],
  ['input_forget', { attrs: { input_forget: 1 } }, /input_forget/],
  ['layout 1', { attrs: { layout: 1 } }, /layout 1/],
  ['peepholes', { peepholes: new Array<number>(3 * H).fill(0.5) }, /peepholes/],
  ['a short sequence', { seqLens: [S - 1] }, /sequence_lens/],
];

test('attributes outside the unrolled form: one error naming the node', () => {
  const cal = [ndarray('float32', [S, 1, I], new Rng(1).floats(S * I, -1, 1))];
  for (const [label, v, why] of refused) {
    const g = loadOnnxBytes(lstmModel(v).bytes(), 'lstm.onnx');
    try {
      quantizeGraph(g, cal, 'cal.npz');
      assert.unreachable(label);
    } catch (e) {
      assert.instance(e, GenError, label);
      const m = (e as GenError).message;
      assert.match(m, /node 'LSTM_0' \(LSTM\)/, `${label}: ${m}`);
      assert.match(m, why, `${label}: ${m}`);
      assert.not.match(m, /\n/, label);
    }
  }
});

test('an LSTM reading a graph input of dynamic sequence length: refused, not fixed to one step', () => {
  const g = loadOnnxBytes(lstmModel().bytes(), 'lstm.onnx');
  g.tensors.get('x')!.shape[0] = -1;
  assert.throws(() => quantizeGraph(g, [ndarray('float32', [S, 1, I], new Rng(1).floats(S * I, -1, 1))], 'cal.npz'),
    (e: Error) => e instanceof GenError && /node 'LSTM_0' \(LSTM\): LSTM input 'x' has a dynamic sequence length/.test(e.message));
});

test('gen quantize and gen firmware --calibration on a clipped LSTM: one line, exit 2, no output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-lstm-'));
  try {
    const model = join(dir, 'lstm.onnx');
    writeFileSync(model, lstmModel({ attrs: { clip: 3 } }).bytes());
    writeFileSync(join(dir, 'cal.npz'), encodeNpz(new Map([['x', ndarray('float32', [S, 1, I], new Rng(1).floats(S * I, -1, 1))]])));
    const out = join(dir, 'lstm.int8.onnx');
    const r = gen('quantize', model, '--calibration', join(dir, 'cal.npz'), '-o', out);
    assert.is(r.code, 2, r.stderr);
    assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /lstm\.onnx: node 'LSTM_0' \(LSTM\): LSTM attribute 'clip' is not supported/);
    assert.not.ok(existsSync(out));
    // gen firmware --calibration quantizes in a private folder first: the refusal leaves neither it nor the output.
    const tmp = join(dir, 'tmp');
    mkdirSync(tmp);
    const fw = join(dir, 'fw');
    const f = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), 'firmware', '--platform', 'tangram', model, '--calibration', join(dir, 'cal.npz'), '-o', fw],
      { encoding: 'utf8', env: { ...process.env, TMPDIR: tmp } });
    assert.is(f.status, 2, f.stderr);
    assert.is(f.stderr.trim().split('\n').length, 1, f.stderr);
    assert.match(f.stderr, /LSTM attribute 'clip' is not supported/);
    assert.not.ok(existsSync(fw));
    assert.equal(readdirSync(tmp), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
