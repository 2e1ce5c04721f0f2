import { ALIAS_OPS } from '../../midend/lifetimes.js';
import { canAlias } from '../../frontend/select.js';
import { attrInt } from '../../ir/attrs.js';
import { producerOf, tensorOf, type Graph, type Node } from '../../ir/graph.js';
import type { TangramHardware } from './hardware.js';
import { layersOfGraph } from './from-graph.js';
import type { LayerShape } from './layers.js';
import { type NetworkPlan, searchDataflow } from './search.js';
import { segmentFunctionOf } from './segment-functions.js';
import { PROGRAM_BUDGET_BYTES } from './engine-kernel.js';
import { segmentProgram, type SegmentLayerFunction } from './segment-programs.js';
import type { Strategy } from './segment.js';

/**
 * The searched dataflow of a lowered graph and the pipelined segments the firmware runs as one engine program each
 * (docs/tangram.md "Pipelined segments in the firmware"). The search is the one firmware.json reports (the same
 * layers: the graph's nodes less the aliases, which run no code); a segment of more than one layer runs as one
 * program at its first layer, its other layers' engine code does nothing, and the memory plan keeps every tensor of
 * the segment live over all of its layers (Platform.layerGroups). A segment that cannot run so runs layer by layer,
 * with the reason.
 */
export interface FirmwareSegment {
  nodes: Node[];
  /** The segment's program with its layers' arithmetic, or why it runs layer by layer. */
  program: Int32Array | string;
  fns: SegmentLayerFunction[];
}

export interface GraphDataflow {
  shapes: LayerShape[];
  /** Node index of each shape. */
  ids: number[];
  plan: NetworkPlan;
  /** Per segment of the plan, the firmware's (undefined: one layer). */
  segments: Array<FirmwareSegment | undefined>;
  /** By node name: its segment and its place in it (segments of more than one layer only). */
  of: Map<string, { segment: FirmwareSegment; at: number }>;
  /** Node index ranges run as one program. */
  groups: Array<[number, number]>;
}

export function graphDataflow(g: Graph, hw: TangramHardware, strategy: Strategy, batch: number): GraphDataflow {
  const layers = g.nodes.map((node, id) => ({ id, node, kernel: ALIAS_OPS.has(node.op) && canAlias(g, node) ? 'alias' : 'code' }));
  const { shapes, ids } = layersOfGraph(g, layers, true);
  const plan = searchDataflow(shapes, hw, { batch, strategy });
  const of = new Map<string, { segment: FirmwareSegment; at: number }>();
  const groups: Array<[number, number]> = [];
  const segments = plan.segments.map((seg): FirmwareSegment | undefined => {
    if (seg.layers.length < 2) return undefined;
    const nodes = seg.layers.map((pl) => g.nodes[ids[pl.index]]);
    const fns = nodes.map((n) => segmentFunctionOf(n, g)).filter((f): f is SegmentLayerFunction => typeof f !== 'string');
    let program: Int32Array | string;
    if (batch !== 1) program = `the dataflow is searched for a batch of ${batch}; the firmware runs the model's own`;
    else if (fns.length !== nodes.length) program = 'a layer the engines cannot compute inside a segment';
    else if (misreadInside(g, nodes)) program = misreadInside(g, nodes)!;
    else {
      try {
        program = segmentProgram(seg, shapes, batch, hw, strategy.sharing, fns);
        if (program.byteLength > PROGRAM_BUDGET_BYTES) program = `its program (${Math.ceil(program.byteLength / 1024)} KiB) is larger than the firmware's ${PROGRAM_BUDGET_BYTES / 1024} KiB for programs`;
      } catch (e) {
        program = (e as Error).message;
      }
    }
    const segment = { nodes, program, fns };
    if (typeof program !== 'string') {
      nodes.forEach((n, at) => of.set(n.name, { segment, at }));
      groups.push([ids[seg.first], ids[seg.last]]);
    }
    return segment;
  });
  return { shapes, ids, plan, segments, of, groups };
}

/**
 * Why a segment's layers cannot forward their maps as the programs assume, or undefined. The forwarding sends a
 * producer's map row by row, and a consumer reads it as it is (a convolution, pooling or element-wise consumer) or
 * as whole flattened samples (a product's A operand). Anything else leaves the segment to run layer by layer (fuzz
 * findings: a 1x2 pooled map read as 2x1 through a Reshape, seed 4405; a Gemm reading its producer transposed,
 * seed 4407; in both the consumer's engines read values not yet forwarded). A consumer kind added to the segments
 * must state its reading here.
 */
function misreadInside(g: Graph, nodes: Node[]): string | undefined {
  const inSegment = new Set(nodes);
  const producers = producerOf(g);
  for (const c of nodes) {
    for (const [j, name] of c.inputs.entries()) {
      let t = name;
      let p = producers.get(t);
      while (p && ALIAS_OPS.has(p.op) && canAlias(g, p)) {
        t = p.inputs[0];
        p = producers.get(t);
      }
      if (!p || !inSegment.has(p)) continue;
      // A product reads the forwarded map as its A operand, row by row: not as its B, nor transposed (a fuzz finding,
      // seed 4407: a Gemm with transA = 1 after an element-wise layer read columns its producer had not yet sent).
      const product = c.op === 'Gemm' || c.op === 'MatMul';
      if (product && (j !== 0 || (c.op === 'Gemm' && attrInt(c, 'transA', 0) !== 0))) {
        return `a product reads a map of the segment ${j !== 0 ? 'as another operand than A' : 'transposed (transA)'}`;
      }
      if (t === name) continue;
      const made = tensorOf(g, t).shape;
      const read = tensorOf(g, name).shape;
      const flattened = product && read.length === 2 && read[0] === made[0];
      if (!flattened && read.join() !== made.join()) {
        return `a reshape between two of its layers (${made.join('x')} read as ${read.join('x')}) regroups the forwarded map`;
      }
    }
  }
  return undefined;
}
