import { GenError, quoted } from '../errors.js';
import { isIntType } from '../ir/dtype.js';
import type { Graph, Node } from '../ir/graph.js';
import { loopPromptPass } from '../ir/state.js';
import { tensorOf } from '../ir/graph.js';
import type { KernelDef } from '../kernels/types.js';
import { ALIAS_OPS } from '../midend/lifetimes.js';
import type { Platform } from '../platforms/types.js';
import { QUANTIZE_FIRST } from '../validate/float-model.js';

export interface Layer {
  id: number;
  node: Node;
  /** 'alias': the node only renames its input's bytes and runs no code. */
  kernel: KernelDef | 'alias';
}

/** Each node gets the first kernel of the platform that accepts it; no kernel is a clear error listing why. */
export function selectKernels(g: Graph, platform: Platform): Layer[] {
  return g.nodes.map((node, id) => {
    if (ALIAS_OPS.has(node.op) && canAlias(g, node)) return { id, node, kernel: 'alias' as const };
    const reasons: string[] = [];
    for (const k of platform.kernels) {
      const why = k.accepts(node, g);
      if (why === null) return { id, node, kernel: k };
      reasons.push(`${k.name}: ${why}`);
    }
    const float = [...node.inputs, ...node.outputs].find((t) => t !== '' && !isIntType(tensorOf(g, t).dtype) && tensorOf(g, t).dtype !== 'bool');
    if (float !== undefined) {
      throw new GenError(
        'unsupported',
        `computes in floating point (tensor ${quoted(float)} is ${tensorOf(g, float).dtype}); ${QUANTIZE_FIRST}`,
        { node: node.name, op: node.op },
      );
    }
    const relevant = reasons.filter((r) => !/: not an? /.test(r));
    throw new GenError(
      'unsupported',
      `no kernel of platform '${platform.name}' runs this op${relevant.length ? ` (${relevant.join('; ')})` : ''}`,
      { node: node.name, op: node.op },
    );
  });
}

/**
 * Whether layer i's output shares its input 0's buffer: an alias, or an in-place kernel whose input nothing else reads
 * (and which is no constant, nor a graph output read before the write).
 */
export function sharesInput(g: Graph, layers: readonly Layer[], i: number): boolean {
  const l = layers[i];
  if (l.kernel === 'alias') return true;
  if (!l.kernel.inPlace) return false;
  const x = l.node.inputs[0];
  if (tensorOf(g, x).data || g.outputs.includes(x)) return false;
  // In place only where the bytes mean the same thing on both sides (a CacheWrite whose result is wider than its cache).
  if (tensorOf(g, x).dtype !== tensorOf(g, l.node.outputs[0]).dtype) return false;
  // A cache of a step with a prompt pass (ir/state.ts PromptRoles) has two writers, the pass's rows 0..P-1 and the
  // step's row: both write in place, as the generation loop needs, and neither reads the other's result (the loop
  // runs the pass before the steps, backend/phases.ts). Only there: elsewhere two writes of one cache in one run read
  // the first's result in the second (the reference's order).
  const readers = g.nodes.filter((n, k) => k !== i && n.inputs.includes(x));
  const otherWriter = (n: Node): boolean => l.node.op === 'CacheWrite' && n.op === 'CacheWrite' && n.inputs.lastIndexOf(x) === 0;
  if (readers.length === 0) return true;
  return readers.length === 1 && otherWriter(readers[0]) && loopPromptPass(g)?.state.some((p) => p.input === x) === true;
}

/** A reshape-like node shares its input's buffer when the bytes mean the same thing on both sides. */
export function canAlias(g: Graph, n: Node): boolean {
  const x = tensorOf(g, n.inputs[0]);
  const y = tensorOf(g, n.outputs[0]);
  // A graph output that would rename a constant's bytes is copied instead: outputs live in the arena, constants in
  // the constant image, and nothing else would write the output.
  if (x.data && g.outputs.includes(n.outputs[0])) return false;
  return x.dtype === y.dtype && !g.inputs.includes(n.outputs[0]);
}
