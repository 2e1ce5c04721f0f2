import { tensorOf } from '../../ir/graph.js';
import type { BufferArg, KernelDef } from '../../kernels/types.js';
import { programView, type SegmentOf } from './engine-kernel.js';

/**
 * The integer dialect's element-wise layers the engines compute (a requantization, ReLU or Clip of one map, the
 * requantized Add of two: segment-functions.ts) inside a pipelined segment of the searched dataflow (graph-segments.ts): the engines compute
 * them in the segment's program. The AS of the segment's first layer hands the program to the engines, the AS of its
 * other layers does nothing; the C computes the layer on the control core (as it does every engine layer). Outside a
 * segment the shared element-wise kernel runs them on the control core.
 */
export function tangramElementwiseKernel(segmentOf: SegmentOf, programBytes?: Map<string, number>): KernelDef {
  return {
    name: 'tangram-elementwise',
    template: 'tangram-elementwise',
    engine: 'accelerator',
    accepts(node, g) {
      if (node.op !== 'Elementwise') return 'not an element-wise layer';
      return segmentOf(g, node) ? null : 'not inside a pipelined segment';
    },
    view({ node, graph }) {
      const inSegment = segmentOf(graph, node)!;
      const f = inSegment.segment.fns[inSegment.at];
      const fn = f.fn;
      const rq = fn.requant;
      const l = f.leaves!;
      const two = f.kind === 4;
      const args: BufferArg[] = [
        { field: 'x', tensor: node.inputs[l.x], dtype: fn.xType, write: false },
        ...(two ? [
          { field: 'sx', tensor: node.inputs[l.sx!], dtype: fn.wType, write: false },
          { field: 'x2', tensor: node.inputs[l.x2!], dtype: f.x2Type!, write: false },
          { field: 'sx2', tensor: node.inputs[l.sx2!], dtype: fn.biasType, write: false },
        ] : []),
        ...(rq ? [
          { field: 'mul', tensor: node.inputs[l.mul!], dtype: rq.mulType, write: false },
          { field: 'add', tensor: node.inputs[l.add!], dtype: rq.addType, write: false },
        ] : []),
        { field: 'y', tensor: node.outputs[0], dtype: fn.yType, write: true },
      ];
      const program = inSegment.at === 0 ? (inSegment.segment.program as Int32Array) : new Int32Array(0);
      programBytes?.set(node.name, program.byteLength);
      const pv = programView(program, inSegment, graph, args);
      const out = tensorOf(graph, node.outputs[0]);
      return {
        args: pv.args,
        params: {
          ...pv.params,
          // The C: y[i] = clip(requant(x[i])), channel i / (rows x columns) of a map, i mod K of a matrix.
          total: out.shape.reduce((a, d) => a * d, 1),
          two,
          chDiv: fn.xStrides[1] === 1 ? 1 : fn.ho * fn.wo,
          chMod: fn.k,
          rq: rq ? { shift: rq.shift, round: rq.shift > 0 ? `${2 ** (rq.shift - 1)}LL` : '0LL', mulIdx: rq.mulPerChannel ? 'ch' : '0', addIdx: rq.addPerChannel ? 'ch' : '0' } : false,
          lo: rq ? rq.min : f.clip!.min,
          hi: rq ? rq.max : f.clip!.max,
        },
        macs: 0,
      };
    },
    hal: { c: '#include "firmgen_hal.h"\n#include "tangram/firmgen_tangram.h"', as: "import { tangram_run } from './hal/tangram';" },
  };
}
