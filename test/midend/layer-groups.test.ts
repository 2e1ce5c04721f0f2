import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Graph, Node } from '../../generator/ir/graph.js';
import { bufferUses } from '../../generator/midend/lifetimes.js';

/**
 * Platform.layerGroups: layers run as one step (Tangram's pipelined segments) keep every tensor they touch live over
 * the whole group, so no two of them share bytes; without groups the lifetimes are the layers' own.
 */
function chain(): Graph {
  const t = (name: string): [string, { name: string; shape: number[]; dtype: 'int8' }] => [name, { name, shape: [4], dtype: 'int8' }];
  const node = (name: string, x: string, y: string): Node => ({ name, op: 'Relu', domain: '', inputs: [x], outputs: [y], attrs: {} });
  return {
    name: 'chain', source: 'test', inputs: ['x'], outputs: ['y'],
    tensors: new Map([t('x'), t('t1'), t('t2'), t('y')]),
    nodes: [node('a', 'x', 't1'), node('b', 't1', 't2'), node('c', 't2', 'y')],
  };
}

const span = (uses: ReturnType<typeof bufferUses>, t: string): [number, number] => [uses.get(t)!.first, uses.get(t)!.last];

test('a group of layers is one step for the lifetimes', () => {
  // Steps: 0 the inputs, layer i at i + 1, 4 the outputs. Alone: x [0, 1], t1 [1, 2], t2 [2, 3], y [3, 4] (x and t2
  // may share bytes). Layers a and b as one group (steps 1..2): x [0, 2], t1 [1, 2], t2 [1, 3]: x and t2 overlap.
  const alone = bufferUses(chain(), () => false);
  assert.equal(['x', 't1', 't2', 'y'].map((t) => span(alone, t)), [[0, 1], [1, 2], [2, 3], [3, 4]]);
  const grouped = bufferUses(chain(), () => false, [[0, 1]]);
  assert.equal(['x', 't1', 't2', 'y'].map((t) => span(grouped, t)), [[0, 2], [1, 2], [1, 3], [3, 4]]);
  assert.equal([...grouped.get('t2')!.steps].sort(), [1, 2, 3]);
});

test.run();
