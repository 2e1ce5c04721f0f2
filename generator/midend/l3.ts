/**
 * L3 as a home memory (Siracusa: off-chip HyperRAM behind a blocking DMA, HARDWARE.md "L3"). The cluster DMA and the
 * cores reach only L2, so a tensor at home in L3 is staged through L2 around the layers that touch it: a copy node
 * (op L3Load) brings it into an L2 buffer that lives only for its consumer, and a producer writes an L2 buffer that
 * a copy node (L3Store) moves to L3. Tensors go to L3 only when L2 cannot hold the plan otherwise, chosen so that
 * what stays in L2 is what the layers are using: at the step where L2's live set peaks, among the buffers live there
 * but not used by that step's layer, the one whose move leaves the least excess over the budget (summed over all
 * steps) moves out, until the live set fits.
 */
import { GenError } from '../errors.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { alignUp, bufferUses, type BufferUse } from './lifetimes.js';

export const L3_LOAD = 'L3Load';
export const L3_STORE = 'L3Store';
export const L3_OPS = new Set([L3_LOAD, L3_STORE]);

/** Buffers smaller than this stay in L2: a copy's setup and latency (~80 cycles) buys almost nothing. */
const MIN_SPILL_BYTES = 256;

export interface SpillInput {
  graph: Graph;
  isAliased: (nodeIndex: number) => boolean;
  /** Bytes of L2 the tensors may use, and what is placed there besides them (tile tables). */
  budget: number;
  fixedBytes: number;
  /** Tensors with no place in L2 or L3 (N-EUREKA weights in the neural memory). */
  elsewhere: Set<string>;
  align: number;
  /** Bytes the last plan missed the budget by beyond its live set (fragmentation): aim that much lower. */
  slack?: number;
}

/**
 * The tensors (alias roots) to keep in L3 so that L2's live set, the staged copies included, fits the budget.
 * A layer whose own operands do not fit L2 is an error naming it: staging cannot split a tensor.
 */
export function chooseSpills(s: SpillInput): Set<string> {
  const g = s.graph;
  const uses = [...bufferUses(g, s.isAliased).values()].filter((u) => !s.elsewhere.has(u.root));
  const viaRequant = requantTensors(g);
  const eligible = (u: BufferUse): boolean =>
    (u.kind === 'const' || u.kind === 'activation') && u.members.length === 1 && !viaRequant.has(u.root) && u.bytes >= MIN_SPILL_BYTES;
  const spilled = new Set<string>();
  const steps = g.nodes.length + 2;
  const target = s.budget - s.fixedBytes - (s.slack ?? 0);
  for (;;) {
    const live = new Array<number>(steps).fill(0);
    for (const u of uses) {
      const bytes = alignUp(u.bytes, s.align);
      for (let t = 0; t < steps; t++) {
        const inL2 = spilled.has(u.root) ? u.steps.has(t) : u.first <= t && t <= u.last;
        if (inL2) live[t] += bytes;
      }
    }
    const peak = Math.max(...live);
    if (peak <= target) return spilled;
    const at = live.indexOf(peak);
    const candidates = uses.filter((u) => eligible(u) && !spilled.has(u.root) && u.first <= at && at <= u.last && !u.steps.has(at));
    if (candidates.length === 0) {
      const node = at >= 1 && at <= g.nodes.length ? g.nodes[at - 1] : undefined;
      const here = uses.filter((u) => (spilled.has(u.root) ? u.steps.has(at) : u.first <= at && at <= u.last));
      const biggest = here.sort((a, b) => b.bytes - a.bytes)[0];
      throw new GenError(
        'capacity',
        `${node ? 'this layer' : 'the graph inputs and outputs'} needs ${peak + s.fixedBytes} bytes of L2 at once ` +
        `(its operands and results, the graph's inputs, tensors too small to move${s.fixedBytes ? `, tile tables ${s.fixedBytes}` : ''}; ` +
        `largest tensor '${biggest.root}' ${biggest.bytes} bytes), ${s.budget} bytes are available; L3 cannot help: ` +
        'a layer reads and writes whole tensors in L2',
        node ? { node: node.name, op: node.op, file: g.source } : { file: g.source },
      );
    }
    // The move that leaves the least excess over the target, summed over all steps (a tensor used at one of the
    // peaks cannot lower that one); between equals the larger, then a constant, which needs no copy back.
    const excessAfter = (u: BufferUse): number => {
      const bytes = alignUp(u.bytes, s.align);
      let excess = 0;
      for (let t = 0; t < steps; t++) {
        const idle = u.first <= t && t <= u.last && !u.steps.has(t);
        excess += Math.max(0, live[t] - (idle ? bytes : 0) - target);
      }
      return excess;
    };
    const scored = candidates.map((u) => ({ u, excess: excessAfter(u) }));
    scored.sort((a, b) => a.excess - b.excess || b.u.bytes - a.u.bytes || (a.u.kind === 'const' ? -1 : 1));
    spilled.add(scored[0].u.root);
  }
}

/** Tensors named by a fused requantization rather than as inputs: the kernels read them in place. */
function requantTensors(g: Graph): Set<string> {
  const out = new Set<string>();
  for (const n of g.nodes) {
    if (n.requant) {
      out.add(n.requant.mul);
      out.add(n.requant.add);
    }
  }
  return out;
}

/**
 * The graph with every tensor of `spilled` at home in L3: each layer that reads one reads an L2 copy made by an
 * L3Load just before it; a layer that writes one writes an L2 buffer that an L3Store copies out right after.
 */
export function stageThroughL2(g: Graph, spilled: Set<string>): Graph {
  if (spilled.size === 0) return g;
  const tensors = new Map(g.tensors);
  const nodes: Node[] = [];
  const used = new Set([...g.tensors.keys(), ...g.nodes.map((n) => n.name)]);
  const fresh = (base: string): string => {
    let name = base;
    for (let k = 1; used.has(name); k++) name = `${base}_${k}`;
    used.add(name);
    return name;
  };
  const stagedTensor = (of: Tensor, name: string): void => {
    tensors.set(name, { name, shape: [...of.shape], dtype: of.dtype, range: of.range });
  };
  for (const n of g.nodes) {
    const inputs = [...n.inputs];
    for (const t of new Set(n.inputs.filter((x) => spilled.has(x)))) {
      const copy = fresh(`${t}.l2.${n.name}`);
      stagedTensor(tensorOf(g, t), copy);
      nodes.push(copyNode(fresh(`${n.name}.load`), L3_LOAD, t, copy));
      inputs.forEach((x, i) => { if (x === t) inputs[i] = copy; });
    }
    const stores: Node[] = [];
    const outputs = n.outputs.map((t) => {
      if (!spilled.has(t)) return t;
      const copy = fresh(`${t}.l2`);
      stagedTensor(tensorOf(g, t), copy);
      stores.push(copyNode(fresh(`${n.name}.store`), L3_STORE, copy, t));
      return copy;
    });
    nodes.push({ ...n, inputs, outputs });
    nodes.push(...stores);
  }
  return { ...g, nodes, tensors };
}

function copyNode(name: string, op: string, from: string, to: string): Node {
  return { name, op, domain: 'firmgen', inputs: [from], outputs: [to], attrs: {} };
}
