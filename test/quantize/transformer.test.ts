import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { quantizeGraph } from '../../generator/quantize/index.js';
import { floatLlama, SMALL_LLAMA } from '../helpers/float-llama.js';
import { Rng } from '../helpers/random.js';

const ids = (n: number, seed = 1) => {
  const rng = new Rng(seed);
  return ndarray('int64', [n, SMALL_LLAMA.seq], rng.ints(n * SMALL_LLAMA.seq, 0, SMALL_LLAMA.vocab - 1));
};

test('a float Llama decoder quantizes to the integer dialect', () => {
  const g = loadOnnxBytes(floatLlama().bytes(), 'llama.onnx');
  const q = quantizeGraph(g, [ids(32)], 'cal.npz');
  for (const l of q.layers) console.log(l.layer, l.ops, l.dtype, l.sqnrDb?.toFixed(1));
  const ops = new Set(q.intGraph.nodes.map((n) => n.op));
  console.log([...ops]);
  assert.ok(ops.has('iRMSNorm'));
});

test.run();
