import { tensorOf } from '../../../ir/graph.js';
import { renderNpuLayer } from './layer.js';
import { npuJobCycles } from './cost.js';
import { npuShapeOf } from './shape.js';
import type { KernelDef } from '../../../kernels/types.js';

/**
 * Core 0's register writes and trigger per N-EUREKA job: 24 stores, ACQUIRE and TRIGGER, 1 cycle each; the rest of
 * its programming of the job and of the next tile are the cost table's NPU_JOB and NPU_TILE (runtime/as/cost.ts).
 */
const NPU_ISSUE = 26;

/**
 * A convolution on N-EUREKA (docs/neureka.md): core 0 writes the job registers of each tile and triggers the
 * engine; the tile loop (firmware-templates/siracusa/{as,c}/neureka-layer.*) keeps two jobs queued while the DMA
 * brings the next tile. It has no closure body: npu/layer.ts renders the layer from the tile plan, each
 * tile's registers from its shapes; the view gives the buffers and the work.
 */
export const neurekaKernel: KernelDef = {
  name: 'neureka',
  template: 'neureka-layer',
  engine: 'npu',
  accepts(node) {
    return node.op === 'NeurekaConv' ? null : 'not a NeurekaConv';
  },
  view({ node, graph }) {
    const s = npuShapeOf(node, graph);
    const [x, w, scale, bias] = node.inputs;
    const y = node.outputs[0];
    const arg = (field: string, tensor: string, write = false) => ({ field, tensor, dtype: tensorOf(graph, tensor).dtype, write });
    const k = s.mode === '1x1' ? 1 : 3;
    const macs = s.ho * s.wo * s.cout * k * k * (s.mode === '3x3dw' ? 1 : s.cin);
    return {
      args: [
        arg('x', x), arg('w', w),
        ...(scale ? [arg('scale', scale)] : []), ...(bias ? [arg('bias', bias)] : []),
        arg('y', y, true),
      ],
      params: {},
      macs,
    };
  },
  hal: {
    c: '#include "firmgen_neureka.h"',
    as: "import { neureka_acquire, neureka_set, neureka_trigger, neureka_wait } from './hal/neureka';",
  },
  tileCycles: (tile, platform) => NPU_ISSUE + platform.costs.NPU_JOB + platform.costs.NPU_TILE + npuJobCycles(npuShapeOf(tile.node, tile.graph)),
  renderLayer: (l) => renderNpuLayer(l.id, l.fn, l.tiles, l.graph, l.plan, l.platform, l.tableName, l.elsewhere),
};
