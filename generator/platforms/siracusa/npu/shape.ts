import { GenError } from '../../../errors.js';
import { attrInts } from '../../../ir/attrs.js';
import type { Graph, Node, NpuJob } from '../../../ir/graph.js';
import { tensorOf } from '../../../ir/graph.js';
import { bytesOf } from '../../../ir/dtype.js';
import type { NpuJobShape } from './registers.js';

/** A NeurekaConv node's job on tensors of the given shapes (a tile or the whole layer): the register values. */
export function npuShapeOf(node: Node, g: Graph): NpuJobShape {
  const job: NpuJob | undefined = node.npu;
  if (!job) throw new GenError('internal', 'NeurekaConv without its job', { node: node.name, op: node.op });
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  const p = attrInts(node, 'pads', [job.pads.top, job.pads.left, job.pads.bottom, job.pads.right]);
  const [, , W, C] = x.shape;
  const [, HO, WO, CO] = y.shape;
  return {
    mode: job.mode, bits: job.bits, signedInput: job.signedInput, wmem: job.wmem,
    ho: HO, wo: WO, cin: job.mode === '3x3dw' ? CO : C, cout: CO,
    pads: { top: p[0], left: p[1], bottom: p[2], right: p[3] },
    inPixel: C * bytesOf(x.dtype), inRow: W * C * bytesOf(x.dtype),
    outPixel: CO * bytesOf(y.dtype), outRow: WO * CO * bytesOf(y.dtype),
    stage: job.stage,
  };
}
