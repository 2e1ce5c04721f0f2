/**
 * Tiled window ops (Conv, depthwise Conv, MaxPool; 2-D and 1-D), every geometry of the sweep (helpers/window-cases.ts)
 * under every choice of tile sizes the search could make (rows 1..all, channels by whole groups): the plan must fit
 * each tile in the buffers it sized, double-buffer every box that changes, and each tile, run by the reference
 * interpreter as the kernel instance the firmware runs (its own input box and clipped pads), must give exactly the
 * reference's values of the whole op in that tile. The firmware sweep (e2e/window-tiles.test.ts) runs a few of these
 * plans on the chip; this one covers the geometry of all of them in the planner alone.
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attrInt } from '../../generator/ir/attrs.js';
import type { Graph, Tensor } from '../../generator/ir/graph.js';
import { tensorOf } from '../../generator/ir/graph.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { boxElements, sliceArray } from '../../generator/midend/tiling/box.js';
import { planLayerTiles } from '../../generator/midend/tiling/layer-plan.js';
import { evaluateTiles } from '../../generator/midend/tiling/search.js';
import { tilingSpecOf } from '../../generator/midend/tiling/specs.js';
import { compileModel } from '../../generator/pipeline.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { windowIndices, windowModel, type WindowModel, type WindowOp } from '../helpers/window-cases.js';

const { dir, cleanup } = workDir('window-tiles');

/** Every tile size along an axis of D: all of 1..D, whole groups of `multiple` channels (and D itself). */
function sizesAlong(D: number, multiple: number): number[] {
  return Array.from({ length: D }, (_, i) => i + 1).filter((s) => s % multiple === 0 || s === D);
}

function product(lists: number[][]): number[][] {
  return lists.reduce<number[][]>((acc, l) => acc.flatMap((p) => l.map((v) => [...p, v])), [[]]);
}

interface Tally {
  plans: number;
  tiles: number;
  /** Tiles whose input box is empty (windows wholly in the padding). */
  empty: number;
  /** Tiles whose own pads differ from the layer's (clipped halo at an edge). */
  clipped: number;
}

function checkEveryPlan(name: string, m: WindowModel, tally: Tally): void {
  const written = writeCase(join(dir, name), m);
  const c = compileModel({ model: written.model, platform: 'siracusa', sampleInputs: written.sample, untiled: true });
  const g = c.lowered;
  const values = runReference(g, m.inputs);
  const layers = c.layers.filter((l) => l.kernel !== 'alias' && (l.node.op === 'Conv' || l.node.op === 'MaxPool'));
  assert.is(layers.length, m.cases.length, 'one window layer per case');
  for (const layer of layers) {
    if (layer.kernel === 'alias') continue;
    const { node, kernel } = layer;
    const spec = tilingSpecOf(node, g);
    assert.ok(spec, `${node.op} is tiled`);
    const shape = tensorOf(g, node.outputs[0]).shape;
    const axes = spec!.axes(node, g).filter((a) => shape[a] > 1);
    const group = node.op === 'Conv' ? attrInt(node, 'group', 1) : 1;
    const co = shape[1];
    const multiple = (a: number): number => (a === 1 && group > 1 && group < co ? co / group : 1);
    const macs = kernel.view({ node, graph: g, platform: c.platform }).macs;
    const inp = { node, graph: g, kernel, spec: spec!, platform: c.platform, l1Budget: Infinity, double: true, macs };
    for (const sizes of product(axes.map((a) => sizesAlong(shape[a], multiple(a))))) {
      const where = `${node.op} ${JSON.stringify(node.attrs)} tiles ${JSON.stringify(sizes)} on axes ${JSON.stringify(axes)}`;
      const choice = evaluateTiles(inp, axes, sizes);
      // The plan checks every tile against its buffers and slots (layer-plan.ts) and throws if one does not fit.
      const plan = planLayerTiles(node, g, kernel, spec!, axes, choice, 0, true);
      tally.plans++;
      // The planner's cost counts the plan's kernel instances as the AS charges them: each further one's CODE_SHAPE.
      const flat = evaluateTiles({ ...inp, platform: { ...c.platform, costs: { ...c.platform.costs, CODE_SHAPE: 0 } } }, axes, sizes);
      const shapes = (plan.instances.length - 1) * c.platform.costs.CODE_SHAPE;
      assert.ok(Math.abs(choice.cycles - flat.cycles - shapes) < 1e-6, `${where}: ${plan.instances.length} shapes, ${choice.cycles - flat.cycles} cycles`);
      plan.tiles.forEach((step, t) => {
        // Every transfer lands inside its operand's buffer; with double buffering, a box fetched (or an output
        // stored) for tile t sits in another buffer than tile t - 1's, which the cores may still be reading.
        for (const tr of [...step.fetch, ...step.store]) {
          const at = step.ptrs[tr.operand];
          const end = tr.l1Stride ? tr.l1 + (tr.bytes / tr.length - 1) * tr.l1Stride + tr.length : tr.l1 + tr.bytes;
          assert.ok(tr.l1 >= at && end <= at + plan.operands[tr.operand].bytes, `${where}: tile ${t} transfer inside its buffer`);
          if (t > 0) assert.ok(plan.tiles[t - 1].ptrs[tr.operand] !== at, `${where}: tile ${t} operand ${tr.operand} in the other buffer`);
        }
      });
      for (const step of plan.tiles) {
        const geo = spec!.geometry(node, g, step.out);
        const inst = plan.instances[step.instance];
        // The tile's op as a graph of constants: every operand its box of the layer's values.
        const tensors = new Map<string, Tensor>();
        for (const [tensor, box] of geo.boxes) {
          const t = tensorOf(inst.graph, tensor);
          const data = tensor === node.outputs[0] ? undefined : sliceArray(values.get(tensor)!, box);
          tensors.set(tensor, { ...t, ...(data ? { data } : {}) });
        }
        const tile: Graph = { ...g, tensors, nodes: [inst.node], inputs: [], outputs: [node.outputs[0]] };
        const got = runReference(tile, []).get(node.outputs[0]) as NDArray;
        const want = sliceArray(values.get(node.outputs[0])!, step.out);
        assert.equal(got.shape, want.shape, `${where}: tile ${JSON.stringify(step.out)} shape`);
        assert.equal([...got.data], [...want.data], `${where}: tile ${JSON.stringify(step.out)} values`);
        tally.tiles++;
        if (boxElements(geo.boxes.get(node.inputs[0])!) === 0) tally.empty++;
        if (JSON.stringify(inst.node.attrs.pads) !== JSON.stringify(node.attrs.pads)) tally.clipped++;
      }
    }
  }
}

const ALL: WindowOp[] = ['conv', 'depthwise', 'maxpool'];
const total: Tally = { plans: 0, tiles: 0, empty: 0, clipped: 0 };

test('2-D conv, depthwise conv and max-pool: every geometry, every tile split, each tile exact', () => {
  checkEveryPlan('2d', windowModel(ALL, windowIndices(), { seed: 3 }), total);
});

test('1-D conv, depthwise conv and max-pool: every geometry, every tile split, each tile exact', () => {
  checkEveryPlan('1d', windowModel(ALL, windowIndices(), { oneD: true, seed: 4 }), total);
});

test('the sweep met clipped halos and tiles wholly in the padding', () => {
  assert.ok(total.plans > 5000, `plans: ${total.plans}`);
  assert.ok(total.clipped > 1000, `clipped tiles: ${total.clipped}`);
  assert.ok(total.empty > 50, `empty tiles: ${total.empty}`);
});

test.after(cleanup);
test.run();
