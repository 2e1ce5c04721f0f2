import { GenError } from '../errors.js';
import { cType } from '../ir/dtype.js';
import type { Graph } from '../ir/graph.js';
import type { TiledLayer } from '../midend/tiling/layer-plan.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Platform } from '../platforms/types.js';
import { renderKernel } from './kernel-closure.js';
import { templatePath } from './paths.js';
import { renderFile } from './render.js';

export interface RenderedTiledLayer {
  as: string;
  c: string;
  /** Every instance closure, for the closure lint. */
  closures: { fn: string; fields: string[]; source: string }[];
  /**
   * The C every core of the layer fetches cold (CODE_LAYER, CODE_BYTE): the tile loop and the first shape's closure;
   * a further shape's is fetched by the cores that run it (CODE_SHAPE).
   */
  coldC: string;
  /**
   * Of coldC, the tile loop's C before the kernel (the cores run it before the first barrier, core 0 while the first
   * tile's inputs come in) and after it (core 0's write-back of the first tile): runtime/as/cluster.ts layer_code.
   */
  loopParts: { before: string; after: string };
  /** The C path of the first shape's kernel (KernelView.codePath): the cold C's, which may differ from the whole layer's. */
  codePath?: string;
}

/**
 * A tiled layer: one kernel closure per tile geometry (instance), and the tile loop that drives DMA and forks the
 * cores once for the whole layer (firmware-templates/common/{as,c}/tiled-layer.*).
 */
export function renderTiledLayer(
  id: number, fn: string, tl: TiledLayer, graph: Graph, plan: MemoryPlan, platform: Platform,
  tableName: string, comment: string, symbolOf: (t: string) => string,
): RenderedTiledLayer {
  const instances = tl.instances.map((inst, index) => {
    const name = `${fn}_t${index}`;
    const r = renderKernel(tl.kernel, inst.node, inst.graph, platform, name, `${comment}, tile shape ${index}`, symbolOf);
    return { index, fn: name, r };
  });
  const fields = instances[0].r.view.args;
  for (const i of instances) {
    if (i.r.view.args.map((a) => a.field).join() !== fields.map((a) => a.field).join()) {
      throw new GenError('internal', 'tile instances of one layer need the same argument struct', { node: tl.node.name, op: tl.node.op });
    }
  }
  const table = plan.blobs.get(tableName);
  if (!table) throw new GenError('internal', `no memory for ${tableName}`);
  const l1Region = platform.memories.findIndex((m) => m.name === platform.tiling!.memory);
  const double = tl.double;
  const view = {
    id,
    fn,
    tiles: tl.tiles.length,
    buffering: double ? 'double' : 'single',
    double,
    homeRegion: platform.memories.findIndex((m) => m.name === plan.region),
    l1Region,
    arenaOffset: plan.arenaOffset,
    tableOffset: table.offset - plan.arenaOffset,
    tableArenaOffset: table.offset - plan.arenaOffset,
    operands: tl.operands.length,
    argsClass: `${instances[0].fn}_args`,
    fields: fields.map((a) => ({
      field: a.field,
      operand: tl.operands.findIndex((o) => o.tensor === a.tensor),
      cptr: `${a.write ? '' : 'const '}${cType(a.dtype)} *`,
    })),
    instances: instances.map((i) => ({ index: i.index, fn: i.fn })),
    ...tileChecks(fields, tl),
  };
  const loopAs = renderFile(templatePath(platform.name, 'as', 'tiled-layer.ts.mustache'), view);
  const loopC = renderFile(templatePath(platform.name, 'c', 'tiled-layer.c.mustache'), view);
  return {
    as: [...instances.map((i) => i.r.as), loopAs].join('\n'),
    c: [...instances.map((i) => i.r.c), loopC].join('\n'),
    closures: instances.map((i) => ({ fn: i.fn, fields: i.r.view.args.map((a) => a.field), source: i.r.as })),
    coldC: [instances[0].r.c, loopC].join('\n'),
    loopParts: loopParts(loopC),
    codePath: instances[0].r.view.codePath,
  };
}

/** The tile loop's C cut at its markers (tiled-layer.c.mustache `fg:kernel`, `fg:write-back`). */
function loopParts(loopC: string): { before: string; after: string } {
  const kernel = loopC.indexOf('/* fg:kernel');
  const back = loopC.indexOf('/* fg:write-back');
  if (kernel < 0 || back < kernel) throw new GenError('internal', 'the tile loop\'s C has lost its fg:kernel / fg:write-back markers');
  return { before: loopC.slice(0, kernel), after: loopC.slice(back) };
}

/**
 * The emulator's per-tile checks (AS only): every input buffer lies in L1 (check), every output buffer too and is
 * guarded while the cores compute (tile_guard; emulator/assembly/check.ts), at its slot's size (the largest tile).
 */
function tileChecks(fields: { field: string; tensor: string; write: boolean }[], tl: TiledLayer) {
  const sized = fields.map((a) => ({ a, o: tl.operands.find((o) => o.tensor === a.tensor) })).filter((x) => x.o !== undefined);
  const writes = sized.filter((x) => x.a.write);
  return {
    checks: sized.filter((x) => !x.a.write).map((x) => ({ field: x.a.field, bytes: x.o!.bytes })),
    guards: writes.map((x, i) => ({ field: x.a.field, bytes: x.o!.bytes, first: i === 0 ? 1 : 0 })),
    guarded: writes.length > 0,
  };
}
