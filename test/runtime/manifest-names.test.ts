/**
 * readManifest (runtime/node/manifest.ts) refuses a firmware.json whose inputs, outputs or layers name a tensor it does
 * not list, with a one-line error that says where; an untouched one reads back.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { readManifest } from '../../runtime/node/manifest.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';

const { dir, cleanup } = workDir('manifest-names');
const b = new OnnxBuilder('names').input('x', 'int8', [1, 8]).input('y', 'int8', [1, 8]);
b.node('Add', ['x', 'y'], ['z']).output('z', 'int32');
const x = ndarray('int8', [1, 8], [1, 2, 3, 4, 5, 6, 7, 8]);
const w = writeCase(dir, { builder: b, inputs: [x, x] });
const out = join(dir, 'fw');
generateFirmware({ model: w.model, platform: 'generic', out, sampleInputs: w.sample });
const file = join(out, 'firmware.json');
const original = readFileSync(file, 'utf8');

function refused(edit: (m: { outputs: string[]; layers: { reads?: string[]; writes?: string[] }[] }) => void, message: RegExp): void {
  const m = JSON.parse(original);
  edit(m);
  writeFileSync(file, JSON.stringify(m));
  try {
    assert.throws(() => readManifest(out), (e: unknown) => e instanceof GenError && message.test(e.message));
  } finally {
    writeFileSync(file, original);
  }
}

test('an untouched manifest reads back with its layers\' tensors', () => {
  const m = readManifest(out);
  assert.ok(m.layers.length > 0);
  const names = new Set(m.tensors.map((t) => t.name));
  for (const l of m.layers) for (const n of [...(l.reads ?? []), ...(l.writes ?? [])]) assert.ok(names.has(n), n);
});

test('an output that names no tensor is refused', () => {
  refused((m) => m.outputs.push('nowhere'), /inputs\/outputs: no tensor named 'nowhere'/);
});

test('a layer that reads or writes no tensor is refused, naming the layer', () => {
  refused((m) => (m.layers[0].reads = [...(m.layers[0].reads ?? []), 'ghost']), /layers\[0\]: reads or writes 'ghost', which is no tensor/);
  refused((m) => (m.layers[0].writes = ['ghost']), /layers\[0\]: reads or writes 'ghost'/);
});

test.after(cleanup);
test.run();
