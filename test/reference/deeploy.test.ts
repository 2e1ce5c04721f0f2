import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rangeOf, rangeOfValues, type IntType } from '../../generator/ir/dtype.js';
import { inferGraph, inputRangesFromArrays } from '../../generator/ir/infer.js';
import { formatShape, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { readNpz } from '../../generator/onnx/npy.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { deeployDir } from '../helpers/paths.js';

/*
 * The reference interpreter against the golden outputs of ../shared/deeploy-tests: every integer folder must match
 * outputs.npz exactly, inference must give every output its shape and a device type that holds its values, and
 * every intermediate tensor saved in activations.npz must be one of the interpreter's tensors.
 */

function folders(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'network.onnx') out.push(relative(deeployDir, dir));
    }
  };
  walk(deeployDir);
  return out.sort();
}

const arrays = (path: string): NDArray[] => [...readNpz(path).values()];
const all = folders();
const integer = all.filter((f) => !f.startsWith('Kernels/Mixed'));
const mixed = all.filter((f) => f.startsWith('Kernels/Mixed'));
const t0 = Date.now();

const s = suite('deeploy-tests');

s('finds the 55 integer folders', () => {
  assert.is(integer.length, 55);
});

function check(name: string, inferTypes: boolean): void {
  const dir = join(deeployDir, name);
  const g = loadOnnxFile(join(dir, 'network.onnx'));
  const inputs = arrays(join(dir, 'inputs.npz')).slice(0, g.inputs.length);
  const expected = arrays(join(dir, 'outputs.npz'));
  const values = runReference(g, inputs);
  assert.is(expected.length, g.outputs.length, 'one expected array per graph output');
  const inferred = inferTypes ? inferGraph(g, inputRangesFromArrays(g, inputs)) : undefined;
  g.outputs.forEach((o, i) => {
    const y = values.get(o) as NDArray;
    const e = expected[i];
    assert.is(y.data.length, e.data.length, `${o}: element count`);
    let mismatches = 0;
    for (let k = 0; k < e.data.length; k++) if (y.data[k] !== e.data[k]) mismatches++;
    assert.is(mismatches, 0, `${o}: ${mismatches} of ${e.data.length} values differ`);
    if (!inferred) return;
    const t = inferred.tensors.get(o);
    assert.ok(t, `${o} inferred`);
    assert.equal(t.shape, e.shape, `${o}: inferred shape ${formatShape(t.shape)}, outputs.npz has ${formatShape(e.shape)}`);
    const r = rangeOfValues(e.data);
    const type = rangeOf(t.dtype as IntType);
    assert.ok(type && r.min >= type.min && r.max <= type.max, `${o}: values [${r.min}, ${r.max}] do not fit ${t.dtype}`);
    assert.ok(t.range && r.min >= t.range.min && r.max <= t.range.max, `${o}: values outside the inferred range`);
  });
  const actPath = join(dir, 'activations.npz');
  if (!existsSync(actPath)) return;
  // activations.npz names PyTorch modules, not ONNX tensors: each array must equal some node output.
  const produced = g.nodes.flatMap((n) => n.outputs).map((o) => values.get(o) as NDArray);
  for (const [key, a] of readNpz(actPath)) {
    const hit = produced.some((y) => y.data.length === a.data.length && y.data.every((v, k) => v === a.data[k]));
    assert.ok(hit, `activation '${key}' matches no intermediate tensor`);
  }
}

for (const name of integer) s(name, () => check(name, true));

// Not part of the 55: the float Quant/Dequant graphs (float32 Div/Round/Clip/Sub/Mul) match too.
for (const name of mixed) s(`${name} (float ops)`, () => check(name, false));

s.after(() => console.log(`deeploy-tests: ${integer.length + mixed.length} folders in ${Date.now() - t0} ms`));
s.run();
