import { GenError } from '../../../errors.js';
import type { Graph } from '../../../ir/graph.js';
import { npuShapeOf } from './shape.js';
import type { TiledLayer } from '../../../midend/tiling/layer-plan.js';
import type { MemoryPlan } from '../../../midend/plan.js';
import { jobWords } from './registers.js';
import type { Platform } from '../../types.js';
import { templatePath } from '../../../backend/paths.js';
import { renderFile } from '../../../backend/render.js';

/** Where the NPU sees the neural memory's SRAM half (docs/neureka.md, WEIGHTS_PTR with the WMEM source). */
const NMS_SRAM_VIEW = 0x40_0000;

/**
 * An N-EUREKA layer: one job function per tile geometry (the registers computed here, pointers from the tile
 * table) and the tile loop that keeps the engine's queue full (firmware-templates/siracusa/{as,c}/neureka-layer.*).
 */
export function renderNpuLayer(
  id: number, fn: string, tl: TiledLayer, graph: Graph, plan: MemoryPlan, platform: Platform, tableName: string,
  nmsOffsets: Map<string, number>,
): { as: string; c: string } {
  const node = tl.node;
  const site = { node: node.name, op: node.op };
  const table = plan.blobs.get(tableName);
  if (!table) throw new GenError('internal', `no memory for ${tableName}`, site);
  const [x, w, scale, bias] = node.inputs;
  const operand = (t: string): number => {
    const i = tl.operands.findIndex((o) => o.tensor === t);
    if (i < 0) throw new GenError('internal', `operand ${t} is not in the tile loop`, site);
    return i;
  };
  const job = node.npu!;
  let wofs = '';
  let nmsOffset = 0;
  if (job.wmem) {
    const base = nmsOffsets.get(w);
    if (base === undefined) throw new GenError('internal', `weights ${w} have no place in the neural memory`, site);
    nmsOffset = NMS_SRAM_VIEW + base;
    const rowBytes = graph.tensors.get(w)!.shape[1];
    // A tile's first weight row follows its first output channel (depthwise: rows of 28 channels).
    const starts = tl.tiles.map((tile) => (job.mode === '3x3dw' ? tile.out.start[3] / 28 : tile.out.start[3]) * rowBytes);
    wofs = starts.join(', ');
  }
  const instances = tl.instances.map((inst, index) => {
    const { words, inputPadBytes } = jobWords(npuShapeOf(inst.node, inst.graph));
    return {
      index, fn,
      words: words.map((v, reg) => ({ reg, value: `0x${v.toString(16)}` })).filter((r) => r.reg > 5),
      inputPadBytes,
    };
  });
  const view = {
    id, fn, tiles: tl.tiles.length, buffering: tl.double ? 'double' : 'single', double: tl.double,
    homeRegion: platform.memories.findIndex((m) => m.name === plan.region),
    l1Region: platform.memories.findIndex((m) => m.name === platform.tiling!.memory),
    arenaOffset: plan.arenaOffset,
    tableOffset: table.offset - plan.arenaOffset,
    tableArenaOffset: table.offset - plan.arenaOffset,
    operands: tl.operands.length,
    l1Chip: `0x${platform.memories.find((m) => m.name === platform.tiling!.memory)!.chipBase.toString(16)}`,
    instances, wmem: job.wmem, wofs, nmsOffset: `0x${nmsOffset.toString(16)}`,
    xOperand: operand(x), yOperand: operand(node.outputs[0]),
    wOperand: job.wmem ? -1 : operand(w),
    hasScale: scale !== '', hasBias: bias !== '',
    scaleOperand: scale ? operand(scale) : -1, biasOperand: bias ? operand(bias) : -1,
  };
  return {
    as: renderFile(templatePath(platform.name, 'as', 'neureka-layer.ts.mustache'), view),
    c: renderFile(templatePath(platform.name, 'c', 'neureka-layer.c.mustache'), view),
  };
}
