/**
 * A graph output whose value is a constant renamed by a view op (Identity, Reshape) is copied into the output, not
 * aliased to the constant's bytes (outputs live in the arena, constants in the constant image: the alias gave zeros,
 * a wrong answer the mutation fuzzer found). Exact on the core platforms, emulated and as host C; an initializer
 * listed directly as a graph output is refused with one line.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { writeFileSync } from 'node:fs';

const { dir, cleanup } = workDir('const-out');

test('a constant through Identity and Reshape to graph outputs', async () => {
  const b = new OnnxBuilder('const-out').input('x', 'int8', [4])
    .initializer('w', 'int8', [4], [1, -2, 3, -4]).initializer('s', 'int64', [2], [2, 2])
    .node('Identity', ['w'], ['y']).output('y', 'int8')
    .node('Reshape', ['w', 's'], ['r']).output('r', 'int8')
    .node('Relu', ['x'], ['z']).output('z', 'int8');
  const c = { builder: b, inputs: [ndarray('int8', [4], [5, -6, 7, -8])] };
  const w = writeCase(join(dir, 'case'), c);
  for (const platform of ['generic', 'siracusa', 'gemmini']) {
    const out = join(dir, platform);
    const g = generateFirmware({ model: w.model, sampleInputs: w.sample, platform, out });
    const emu = compareOutputs(g.manifest.outputs, (await runFirmware(out, c.inputs)).outputs, w.expected);
    assert.is(emu.errors, 0, `${platform} emulated: ${emu.details.join('; ')}`);
    const host = compareOutputs(g.manifest.outputs, runHostC(out, c.inputs), w.expected);
    assert.is(host.errors, 0, `${platform} host C: ${host.details.join('; ')}`);
  }
});

test('SpiNNaker2 (constants live in its layer configurations) refuses a constant copied to an output, naming it', () => {
  const b = new OnnxBuilder('const-s2').input('x', 'int8', [4]).initializer('w', 'int8', [4], [1, -2, 3, -4])
    .node('Identity', ['w'], ['y']).output('y', 'int8')
    .node('Relu', ['x'], ['z']).output('z', 'int8');
  const w = writeCase(join(dir, 's2'), { builder: b, inputs: [ndarray('int8', [4], [5, -6, 7, -8])] });
  assert.throws(() => generateFirmware({ model: w.model, sampleInputs: w.sample, platform: 'spinnaker2', out: join(dir, 's2', 'out') }),
    (e: Error) => /no kernel of platform 'spinnaker2' runs this op \(s2-move: it copies the constant 'w'/.test(e.message) && !/internal/.test(e.message));
});

test('an initializer listed as a graph output is refused, naming it', () => {
  const b = new OnnxBuilder('init-out').input('x', 'int8', [4]).initializer('w', 'int8', [4], [1, 2, 3, 4])
    .node('Relu', ['x'], ['z']).output('z', 'int8').output('w', 'int8');
  const model = join(dir, 'init-out.onnx');
  writeFileSync(model, b.bytes());
  assert.throws(() => generateFirmware({ model, platform: 'generic', out: join(dir, 'init-out') }), /graph output 'w' is a constant \(an initializer\)/);
});

test.after(cleanup);

test.run();
