import { GenError } from '../../errors.js';
import type { Graph } from '../../ir/graph.js';
import type { Layer } from '../../frontend/select.js';
import type { Platform } from '../../platforms/types.js';
import { memoryOf } from '../../platforms/types.js';
import { planLayerTiles, type TiledLayer } from './layer-plan.js';
import { operandsOf, searchTiles, type Candidate, type SearchInput } from './search.js';
import { searchKey } from './search-key.js';
import { tilingSpecOf } from './specs.js';

/** The running tiled layer's kernel arguments in L1 (the C's fg_l1_args: network.h NETWORK_L1_ARGS pointers of 4
 * bytes on the board), beside the tile buffers. */
export const L1_ARGS_BYTES = 16 * 4;

export interface TilingOptions {
  /** Bytes of L1 the tile buffers may use (default: L1 less what the board's SDK keeps, CImage.tileReserved). */
  l1?: number;
  double: boolean;
  /** Padded filter rows for dense convs (filter-layout.ts; default true). */
  padFilters?: boolean;
}

export interface TilingPlan {
  layers: Map<number, TiledLayer>;
  l1Budget: number;
  /** The largest L1 footprint of any layer: layers run one after another, so this is the L1 the plan needs. */
  l1Peak: number;
  ms: number;
}

/**
 * Tiles every layer whose op has a tiling spec: kernels compute in L1 on tiles that the cluster DMA brings from
 * the home memory. Other layers (data movement, reductions) run on the home memory directly.
 */
export function planTiling(g: Graph, layers: Layer[], platform: Platform, opts: TilingOptions): TilingPlan | undefined {
  const target = platform.tiling;
  if (!target) return undefined;
  const t0 = performance.now();
  const l1 = memoryOf(platform, target.memory);
  // By default the tiles get what the board's SDK leaves of L1 (cluster stacks): a plan that uses it all would not link.
  // The C keeps the running layer's kernel arguments beside the tile buffers (L1_ARGS_BYTES), and rounds the buffer
  // array up to 8 bytes: both come out of the default budget.
  const l1Budget = opts.l1 ?? l1.size - (platform.image ? platform.image.tileReserved + L1_ARGS_BYTES + 8 : 0);
  if (l1Budget > l1.size) throw new GenError('input', `--l1 ${l1Budget} is larger than the chip's ${l1.name} (${l1.size} bytes)`);
  const out = new Map<number, TiledLayer>();
  const searched = new Map<string, Candidate>();
  let l1Peak = 0;
  for (const layer of layers) {
    if (layer.kernel === 'alias') continue;
    const spec = tilingSpecOf(layer.node, g);
    if (!spec) continue;
    const kernel = layer.kernel;
    const macs = kernel.view({ node: layer.node, graph: g, platform }).macs;
    const shape = g.tensors.get(layer.node.outputs[0])!.shape;
    const axes = spec.axes(layer.node, g).filter((a) => shape[a] > 1);
    const padFilters = opts.padFilters ?? true;
    const choice = searchOnce(searched, { node: layer.node, graph: g, kernel, spec, platform, l1Budget, double: opts.double, macs, padFilters });
    const tiled = planLayerTiles(layer.node, g, kernel, spec, axes, choice, 0, opts.double, padFilters);
    out.set(layer.id, tiled);
    l1Peak = Math.max(l1Peak, choice.l1Bytes);
  }
  return { layers: out, l1Budget, l1Peak, ms: performance.now() - t0 };
}

/**
 * The search's choice for a layer, costed once per distinct problem (search-key.ts): a layer equal to one searched
 * before gets that choice with its own tensors in the operands (operandsOf lists them in the same order).
 */
function searchOnce(searched: Map<string, Candidate>, inp: SearchInput): Candidate {
  if (inp.kernel.tileCycles) return searchTiles(inp);
  const key = searchKey(inp.node, inp.graph, inp.kernel.name, { l1: inp.l1Budget, double: inp.double, macs: inp.macs, pad: inp.padFilters });
  const seen = searched.get(key);
  if (!seen) {
    const choice = searchTiles(inp);
    searched.set(key, choice);
    return choice;
  }
  const own = operandsOf(inp.node);
  return { ...seen, sizes: [...seen.sizes], counts: [...seen.counts], operands: seen.operands.map((o, i) => ({ ...o, tensor: own[i].tensor })) };
}
