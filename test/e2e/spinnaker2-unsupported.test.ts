/**
 * What SpiNNaker2 cannot run fails generation with one clear 'unsupported' error naming the node and the reason:
 * deeploy-tests folders listed in spinnaker2-folders.ts (none at present), and small models outside the layer types
 * (a MatMul of 16-bit operands the MLA cannot take, an iLayerNorm whose weights vary across rows).
 * (A MaxPool with ceil_mode 1 runs now: kernels/spinnaker2-ceil-leaves.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { integerFolders } from '../helpers/deeploy.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { s2Supported } from './spinnaker2-folders.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-s2-unsupported-'));

function unsupported(model: string, reason: RegExp): void {
  try {
    generateFirmware({ model, platform: 'spinnaker2', out: join(work, 'out') });
  } catch (e) {
    assert.instance(e, GenError);
    assert.is((e as GenError).kind, 'unsupported', (e as Error).message);
    assert.ok((e as GenError).site.node, 'the error names the node');
    assert.match((e as Error).message, reason);
    return;
  }
  assert.unreachable('generation should fail');
}

for (const f of integerFolders().filter((x) => !s2Supported(x.name))) {
  test(f.name, () => unsupported(f.model, /spinnaker2/));
}

const cases: [string, (b: OnnxBuilder) => OnnxBuilder, RegExp][] = [
  ['a MatMul of int16 operands', (b) => b.input('x', 'int16', [4, 8]).initializer('w', 'int16', [8, 4], new Array(32).fill(300)).node('MatMul', ['x', 'w'], ['y']), /8-bit operands/],
  ['an iLayerNorm with weights per row', (b) => b.input('x', 'int8', [2, 8]).initializer('w', 'int32', [2, 1], [1, 2]).initializer('c', 'int32', [8], new Array(8).fill(0))
    .node('iLayerNorm', ['x', 'w', 'c'], ['y'], { D: 256, n_levels: 256 }), /'w' varies across rows/],
];
for (const [name, build, reason] of cases) {
  test(name, () => {
    const model = join(work, `${name.replace(/\W+/g, '_')}.onnx`);
    writeFileSync(model, build(new OnnxBuilder('u')).output('y', 'float32').bytes());
    unsupported(model, reason);
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
