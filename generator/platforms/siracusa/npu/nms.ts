import { GenError } from '../../../errors.js';
import type { Graph } from '../../../ir/graph.js';
import type { Layer } from '../../../frontend/select.js';
import type { Elsewhere, Platform } from '../../types.js';
import { memoryOf } from '../../types.js';

/** The half of the neural memory that holds N-EUREKA weights the firmware places (the SRAM: writable at load). */
export const NMS_REGION = 'NMS_SRAM';

/** The engine reads weights in 32-byte words (HARDWARE.md, 256-bit port): every layer's weights start on one. */
const WORD = 32;

/**
 * Places the weights of N-EUREKA layers that read them from the neural memory (--weights-in nms) in its SRAM half,
 * one after another: they are constants, loaded once, read by no one else.
 */
export function planNms(g: Graph, layers: Layer[], platform: Platform): Elsewhere {
  return { region: NMS_REGION, offsets: nmsOffsets(g, layers, platform) };
}

function nmsOffsets(g: Graph, layers: Layer[], platform: Platform): Map<string, number> {
  const out = new Map<string, number>();
  let cursor = 0;
  for (const l of layers) {
    if (l.kernel === 'alias' || l.kernel.engine !== 'npu' || !l.node.npu?.wmem) continue;
    const w = l.node.inputs[1];
    if (out.has(w)) continue;
    out.set(w, cursor);
    cursor += Math.ceil(g.tensors.get(w)!.data!.data.length / WORD) * WORD;
  }
  if (out.size === 0) return out;
  const size = memoryOf(platform, NMS_REGION).size;
  if (cursor > size) throw new GenError('capacity', `N-EUREKA weights need ${cursor} bytes of the neural memory, ${size} are there (try --weights-in l2)`);
  return out;
}
