/** L3 as a home memory (generator/midend/l3.ts): which tensors move out of L2, and the staged graph computes the same. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GenError } from '../../generator/errors.js';
import type { Graph, Node, Tensor } from '../../generator/ir/graph.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { chooseSpills, stageThroughL2, type SpillInput } from '../../generator/midend/l3.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/**
 * x -> n1(w1) -> a1 -> n2(w2) -> a2 -> n3(w3) -> y: each layer reads its own constant of 2048, 4096 and 8192 bytes;
 * every activation is 256 bytes. Only sizes and lifetimes matter to the choice, so the graph is written directly.
 * Steps: 0 inputs, 1..3 the layers, 4 outputs; constants live at every step, x [0,1], a1 [1,2], a2 [2,3], y [3,4].
 */
function chain(): Graph {
  const t = (name: string, bytes: number, data = false): Tensor => ({
    name, shape: [bytes], dtype: 'int8', ...(data ? { data: { dtype: 'int8' as const, shape: [bytes], data: new Float64Array(bytes) } } : {}),
  });
  const tensors = [t('x', 256), t('w1', 2048, true), t('w2', 4096, true), t('w3', 8192, true), t('a1', 256), t('a2', 256), t('y', 256)];
  const node = (name: string, inputs: string[], out: string): Node => ({ name, op: 'Add', domain: '', inputs, outputs: [out], attrs: {} });
  return {
    name: 'chain', source: 'chain.onnx', tensors: new Map(tensors.map((x) => [x.name, x])),
    nodes: [node('n1', ['x', 'w1'], 'a1'), node('n2', ['a1', 'w2'], 'a2'), node('n3', ['a2', 'w3'], 'y')],
    inputs: ['x'], outputs: ['y'],
  };
}

const input = (graph: Graph, budget: number): SpillInput => ({
  graph, isAliased: () => false, budget, fixedBytes: 0, elsewhere: new Set(), align: 4,
});

test('the live set decides: the move that leaves the least excess over the budget goes first', () => {
  // Live: 14592 at steps 0 and 4, 14848 at steps 1..3 (constants 14336 + two activations). Budget 14000: at step 1
  // w2 and w3 are idle. Moving w3 leaves 14592 - 8192, 6656, 6656, 14848 - 14000 = 848 at step 3, 0: excess 848;
  // moving w2 leaves 0, 0, 848 (step 2 stages it), 0, 0: also 848; equal, so the larger, w3. Then step 3 (848 over):
  // w1 leaves 14848 - 2048 = 12800 there, w2 leaves 10752: w2. Live at step 3 is then 10752.
  assert.equal([...chooseSpills(input(chain(), 14000))], ['w3', 'w2']);
  // 10752 > 10000: w1 moves too -> 8704 at step 3.
  assert.equal([...chooseSpills(input(chain(), 10000))], ['w3', 'w2', 'w1']);
  assert.equal([...chooseSpills(input(chain(), 14848))], [], 'a plan that fits moves nothing');
  // Tile tables and fragmentation slack count against the budget: 14848 + 1 no longer fits.
  assert.equal([...chooseSpills({ ...input(chain(), 14848), fixedBytes: 1 })], ['w3', 'w2']);
  assert.equal([...chooseSpills({ ...input(chain(), 14849), slack: 2 })], ['w3', 'w2']);
});

test('a layer whose own tensors do not fit L2 is an error naming it and its largest tensor', () => {
  // After all three move, step 3 still holds w3 (8192) + a2 + y = 8704 bytes.
  assert.throws(() => chooseSpills(input(chain(), 8000)), (e: Error) =>
    e instanceof GenError && e.kind === 'capacity' && e.site.node === 'n3' &&
    /this layer needs 8704 bytes of L2 at once .*largest tensor 'w3' 8192 bytes\), 8000 bytes are available; L3 cannot help/.test(e.message));
});

/**
 * A skip connection: s = Relu(x) (4096 bytes) waits in L2 while b = Concat(x, x, x, x) (16384) and c = Slice(b)
 * (4096) are made, then y = Add(s, c) (int16: 8192). Steps: 1 x, s (8192); 2 x, s, b (24576); 3 s, b, c (24576);
 * 4 s, c, y (16384). With 21000 bytes of L2 the idle activation s moves to L3: its producer writes an L2 copy that L3Store moves out, its
 * consumer reads it back through an L3Load.
 */
function skip(): Graph {
  return inferGraph(new OnnxBuilder('skip')
    .input('x', 'int8', [1, 4096])
    .initializer('starts', 'int64', [1], [0])
    .initializer('ends', 'int64', [1], [4096])
    .initializer('axes', 'int64', [1], [1])
    .node('Relu', ['x'], ['s'])
    .node('Concat', ['x', 'x', 'x', 'x'], ['b'], { axis: 1 })
    .node('Slice', ['b', 'starts', 'ends', 'axes'], ['c'])
    .node('Add', ['s', 'c'], ['y'])
    .output('y', 'int16', [1, 4096])
    .graph());
}

test('an activation idle across layers moves out and comes back; the staged graph computes the same', () => {
  const g = skip();
  const spilled = chooseSpills(input(g, 21000));
  assert.equal([...spilled], ['s']);
  const staged = stageThroughL2(g, spilled);
  assert.equal(staged.nodes.map((n) => `${n.op}(${n.inputs.join(',')})->${n.outputs.join(',')}`), [
    'Relu(x)->s.l2',
    'L3Store(s.l2)->s',
    'Concat(x,x,x,x)->b',
    'Slice(b,starts,ends,axes)->c',
    'L3Load(s)->s.l2.Add_3',
    'Add(s.l2.Add_3,c)->y',
  ]);
  assert.equal(staged.nodes.filter((n) => n.op.startsWith('L3')).map((n) => n.domain), ['firmgen', 'firmgen']);
  const x = { shape: [1, 4096], dtype: 'int8' as const, data: Float64Array.from(new Rng(5).ints(4096, -128, 127)) };
  const want = runReference(g, [x]).get('y')!;
  const got = runReference(staged, [x]).get('y')!;
  assert.equal(Array.from(got.data), Array.from(want.data));
  assert.equal(stageThroughL2(g, new Set()), g, 'nothing to stage: the same graph');
});

test('graph inputs, outputs and tensors named by a fused requantization never move', () => {
  const g = skip();
  // Only s may move; after it, step 2 still needs x and b (20480 bytes) and Slice's three index constants, too small
  // to move (narrowed to 8- and 16-bit by inference, 4 bytes each once aligned).
  assert.throws(() => chooseSpills(input(g, 20000)), (e: Error) =>
    e instanceof GenError && e.site.node === 'Concat_1' && /needs 20492 bytes of L2 at once .*largest tensor 'b' 16384 bytes/.test(e.message));
  const r = chain();
  r.nodes[0].requant = { mul: 'w3', add: 'w3', shift: 0, min: -128, max: 127 };
  // w3 stays: w2 moves (step 1 drops to 10752), step 2 peaks at 14848 with w2 staged: w1 moves -> 12800.
  assert.equal([...chooseSpills(input(r, 13000))], ['w2', 'w1'], 'w3 is read in place by the fused requantization');
});

/**
 * A decoder's cache c [1, 2, 64, 4] (512 bytes, a graph input) updated in place by CacheWrite at the position and read
 * by a MatMul bounded by the position along its k axis (B's rows: the cache's row axis); then r = Relu(x) (1024 bytes
 * each) while the cache waits as a graph output. With L2 too small for all, the cache moves as one group with its
 * update: the write stays a CacheWrite (marked for L3: its rows go there, no copy), the reader reads an L3Load of the
 * rows up to the position; the staged graph computes the same.
 */
function cached(): Graph {
  const t = (name: string, shape: number[], dtype: 'int8' | 'int32' = 'int8'): Tensor => ({ name, shape, dtype });
  const tensors = [t('c', [1, 2, 64, 4]), t('v', [1, 2, 1, 4]), t('pos', [1], 'int32'), t('y', [1, 2, 64, 4]), t('q', [1, 2, 1, 64]),
    t('o', [1, 2, 1, 4], 'int32'), t('x', [1, 1024]), t('r', [1, 1024])];
  return {
    name: 'cached', source: 'cached.onnx', tensors: new Map(tensors.map((x) => [x.name, x])),
    nodes: [
      { name: 'write', op: 'CacheWrite', domain: 'firmgen', inputs: ['c', 'v', 'pos'], outputs: ['y'], attrs: { axis: { kind: 'int', value: 2 } } },
      { name: 'mm', op: 'MatMul', domain: '', inputs: ['q', 'y', '', 'pos'], outputs: ['o'], attrs: { position_bound: { kind: 'string', value: 'k' } } },
      { name: 'relu', op: 'Relu', domain: '', inputs: ['x'], outputs: ['r'], attrs: {} },
    ],
    inputs: ['c', 'v', 'pos', 'q', 'x'], outputs: ['o', 'y', 'r'],
  };
}

test('a cache moves with its in-place update; the write stays in L3, the bounded reader loads rows up to the position', () => {
  const g = cached();
  const isAliased = (i: number): boolean => g.nodes[i].op === 'CacheWrite';
  // Live: step 0 c, v, pos, q, x = 1676; 1 (the write) the same; 2 (the reader) c, q, pos, o, x = 1700; 3 (Relu) c,
  // o, x, r = 2592; 4 (outputs) c, o, r = 1568. At 2200 the cache, idle at step 3, moves (x is a graph input, r an
  // output): the write needs only v and pos in L2, the reader its copy (1700 stays), step 3 drops to 2080.
  assert.equal([...chooseSpills({ ...input(g, 2592), isAliased })], [], 'a plan that fits moves nothing');
  const spilled = chooseSpills({ ...input(g, 2200), isAliased });
  assert.equal([...spilled], ['c']);
  assert.throws(() => chooseSpills({ ...input(g, 2000), isAliased }), /node 'relu'.*needs 2080 bytes/);
  const staged = stageThroughL2(g, spilled, { isAliased, copyCycles: (bytes) => 100 + bytes });
  assert.equal(staged.nodes.map((n) => `${n.op}(${n.inputs.join(',')})->${n.outputs.join(',')}`), [
    'CacheWrite(c,v,pos)->y',
    'L3Load(y,pos)->y.l2.mm',
    'MatMul(q,y.l2.mm,,pos)->o',
    'Relu(x)->r',
  ]);
  assert.ok(staged.nodes[0].attrs.l3, 'the write is marked for L3');
  assert.equal(staged.nodes[1].attrs.axis, { kind: 'int', value: 2 });
  // Without a copy cost, or when one copy per head costs more than the whole cache, the load takes it whole.
  assert.equal(stageThroughL2(g, spilled, { isAliased }).nodes[1].inputs, ['y']);
  assert.equal(stageThroughL2(g, spilled, { isAliased, copyCycles: (bytes) => 10000 + bytes }).nodes[1].inputs, ['y']);
  const rng = new Rng(8);
  const inputs = g.inputs.map((name) => {
    const x = g.tensors.get(name)!;
    const n = x.shape.reduce((a, d) => a * d, 1);
    return { shape: x.shape, dtype: x.dtype, data: Float64Array.from(name === 'pos' ? [5] : rng.ints(n, -128, 127)) };
  });
  const want = runReference(g, inputs);
  const got = runReference(staged, inputs);
  for (const o of g.outputs) assert.equal(Array.from(got.get(o)!.data), Array.from(want.get(o)!.data), o);
});

test.run();
