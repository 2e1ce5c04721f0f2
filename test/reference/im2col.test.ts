/**
 * Im2col (generator/reference/ops/im2col.ts): the unfolded windows times the filters as a matrix equal the reference
 * interpreter's own Conv, on 2-D shapes with strides, pads, dilations and several images.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Node } from '../../generator/ir/graph.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { convOp } from '../../generator/reference/ops/conv.js';
import { im2colOp } from '../../generator/reference/ops/im2col.js';
import { Rng } from '../helpers/random.js';

const ints = (value: number[]) => ({ kind: 'ints' as const, value });

const cases = [
  { x: [1, 9, 1, 128], k: [1, 32], s: [1, 6], p: [0, 0, 0, 0], d: [1, 1], O: 4 },
  { x: [2, 3, 8, 8], k: [3, 3], s: [2, 2], p: [1, 1, 1, 1], d: [1, 1], O: 5 },
  { x: [1, 2, 7, 9], k: [2, 3], s: [1, 2], p: [0, 2, 1, 0], d: [2, 1], O: 3 },
];

for (const c of cases) {
  test(`x ${c.x.join('x')}, kernel ${c.k.join('x')}, strides ${c.s}, pads ${c.p}, dilations ${c.d}`, () => {
    const rng = new Rng(c.x.reduce((a, b) => a * 7 + b, 1));
    const [N, C] = c.x;
    const attrs = { kernel_shape: ints(c.k), strides: ints(c.s), pads: ints(c.p), dilations: ints(c.d) };
    const node: Node = { name: 'n', op: 'Conv', domain: '', inputs: ['x', 'w'], outputs: ['y'], attrs };
    const x = ndarray('uint8', c.x, rng.ints(c.x.reduce((a, b) => a * b, 1), 0, 31));
    const K = C * c.k[0] * c.k[1];
    const w = ndarray('int8', [c.O, C, c.k[0], c.k[1]], rng.ints(c.O * K, -63, 63));
    const [y] = convOp.evaluate(node, [x, w]);
    const [cols] = im2colOp.evaluate({ ...node, op: 'Im2col', domain: 'firmgen' }, [x]);
    const [, , OH, OW] = y.shape;
    assert.equal(cols.shape, [N * OH * OW, K]);
    for (let n = 0; n < N; n++) {
      for (let o = 0; o < c.O; o++) {
        for (let p = 0; p < OH * OW; p++) {
          let acc = 0;
          for (let k = 0; k < K; k++) acc += cols.data[(n * OH * OW + p) * K + k] * w.data[o * K + k];
          assert.is(acc, y.data[(n * c.O + o) * OH * OW + p]);
        }
      }
    }
  });
}

test.run();
