/**
 * L3 as a home memory (Siracusa: off-chip HyperRAM behind a blocking DMA, HARDWARE.md "L3"). The cluster DMA and the
 * cores reach only L2, so a tensor at home in L3 is staged through L2 around the layers that touch it: a copy node
 * (op L3Load) brings it into an L2 buffer that lives only for its consumer, and a producer writes an L2 buffer that
 * a copy node (L3Store) moves to L3. Tensors go to L3 only when L2 cannot hold the plan otherwise, chosen so that
 * what stays in L2 is what the layers are using: at the step where L2's live set peaks, among the buffers live there
 * but not used by that step's layer, the one whose move leaves the least excess over the budget (summed over all
 * steps) moves out, until the live set fits.
 *
 * A decoder's cache (ir/state.ts: a graph input that CacheWrites update in place, read whole by the attention) may
 * move too, as one group with its in-place results and aliases: it then lives in L3 for the whole generation at one
 * address, a CacheWrite sends only its new rows there (an L3 DMA per row run from the L2 value, no copy of the cache),
 * and each layer that reads the cache reads an L2 copy that an L3Load makes just before it.
 */
import { GenError } from '../errors.js';
import type { Graph, Node, Tensor } from '../ir/graph.js';
import { tensorOf } from '../ir/graph.js';
import { attrInt } from '../ir/attrs.js';
import { bytesOf } from '../ir/dtype.js';
import { sizeOf } from '../ir/ndarray.js';
import { POSITION_BOUND_INPUT, positionBoundOf } from '../frontend/passes/bound-by-position.js';
import { ALIAS_OPS, alignUp, bufferUses, type BufferUse } from './lifetimes.js';

export const L3_LOAD = 'L3Load';
export const L3_STORE = 'L3Store';
export const L3_OPS = new Set([L3_LOAD, L3_STORE]);
/** The attribute that marks a CacheWrite whose cache is at home in L3 (kernels/l3copy.ts writes its rows there). */
export const L3_CACHE_ATTR = 'l3';

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
  const caches = cacheGroups(g, uses, s.isAliased);
  const eligible = (u: BufferUse): boolean =>
    ((u.kind === 'const' || u.kind === 'activation') && u.members.length === 1 || caches.has(u.root)) &&
    !viaRequant.has(u.root) && u.bytes >= MIN_SPILL_BYTES;
  // The steps at which a moved buffer is in L2: its staged copies' (a cache's only where a layer reads it whole).
  const l2Steps = (u: BufferUse): Set<number> => caches.get(u.root) ?? u.steps;
  const spilled = new Set<string>();
  const steps = g.nodes.length + 2;
  const target = s.budget - s.fixedBytes - (s.slack ?? 0);
  for (;;) {
    const live = new Array<number>(steps).fill(0);
    for (const u of uses) {
      const bytes = alignUp(u.bytes, s.align);
      for (let t = 0; t < steps; t++) {
        const inL2 = spilled.has(u.root) ? l2Steps(u).has(t) : u.first <= t && t <= u.last;
        if (inL2) live[t] += bytes;
      }
    }
    const peak = Math.max(...live);
    if (peak <= target) return spilled;
    const at = live.indexOf(peak);
    const candidates = uses.filter((u) => eligible(u) && !spilled.has(u.root) && u.first <= at && at <= u.last && !l2Steps(u).has(at));
    if (candidates.length === 0) {
      const node = at >= 1 && at <= g.nodes.length ? g.nodes[at - 1] : undefined;
      const here = uses.filter((u) => (spilled.has(u.root) ? l2Steps(u).has(at) : u.first <= at && at <= u.last));
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
        const idle = u.first <= t && t <= u.last && !l2Steps(u).has(t);
        excess += Math.max(0, live[t] - (idle ? bytes : 0) - target);
      }
      return excess;
    };
    const scored = candidates.map((u) => ({ u, excess: excessAfter(u) }));
    scored.sort((a, b) => a.excess - b.excess || b.u.bytes - a.u.bytes || (a.u.kind === 'const' ? -1 : 1));
    spilled.add(scored[0].u.root);
  }
}

/**
 * The caches that may live in L3, by alias root, with the steps at which a layer reads them whole (where a staged
 * copy is in L2): graph inputs whose buffer every writer updates in place by a CacheWrite of the same element type
 * (rows DMA'd to L3 as they are) or renames (an alias), read by at least one other layer.
 */
function cacheGroups(g: Graph, uses: BufferUse[], isAliased: (i: number) => boolean): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const u of uses) {
    if (u.kind !== 'input') continue;
    const member = new Set(u.members);
    let writes = 0;
    let fits = true;
    const reads = new Set<number>();
    g.nodes.forEach((n, i) => {
      const alias = ALIAS_OPS.has(n.op) && isAliased(i);
      if (n.outputs.some((t) => member.has(t))) {
        const inPlace = n.op === 'CacheWrite' && isAliased(i) && member.has(n.inputs[0]) &&
          tensorOf(g, n.inputs[1]).dtype === tensorOf(g, n.inputs[0]).dtype;
        if (inPlace) writes++;
        else if (!alias) fits = false;
      }
      if (alias) return;
      const read = n.inputs.some((t, k) => member.has(t) && !(n.op === 'CacheWrite' && k === 0));
      if (read) reads.add(i + 1);
    });
    if (fits && writes > 0 && reads.size > 0) out.set(u.root, reads);
  }
  return out;
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
export function stageThroughL2(g: Graph, spilled: Set<string>, opts: StageOptions = {}): Graph {
  if (spilled.size === 0) return g;
  const isAliased = opts.isAliased ?? (() => false);
  // A moved buffer's tensors: its root, or a cache's whole group (its in-place results and aliases).
  const rootOf = new Map<string, string>();
  for (const u of bufferUses(g, isAliased).values()) if (spilled.has(u.root)) for (const m of u.members) rootOf.set(m, u.root);
  const far = (t: string): boolean => rootOf.has(t);
  const rowsRead = rowsReadByPosition(g, far, opts.copyCycles);
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
  for (const [i, n] of g.nodes.entries()) {
    if (ALIAS_OPS.has(n.op) && isAliased(i) && far(n.inputs[0])) {
      nodes.push(n); // a renamed cache: both names are the one L3 buffer
      continue;
    }
    const cacheWrite = n.op === 'CacheWrite' && far(n.inputs[0]);
    const inputs = [...n.inputs];
    for (const t of new Set(n.inputs.filter((x, k) => far(x) && !(cacheWrite && k === 0)))) {
      const copy = fresh(`${t}.l2.${n.name}`);
      stagedTensor(tensorOf(g, t), copy);
      const load = copyNode(fresh(`${n.name}.load`), L3_LOAD, t, copy);
      const rows = rowsRead(n, t);
      nodes.push(rows ? { ...load, inputs: [t, rows.position], attrs: { axis: { kind: 'int', value: rows.axis } } } : load);
      inputs.forEach((x, k) => { if (x === t && !(cacheWrite && k === 0)) inputs[k] = copy; });
    }
    if (cacheWrite) {
      // Its result is the cache itself (in place): the rows go straight to L3.
      nodes.push({ ...n, inputs, attrs: { ...n.attrs, [L3_CACHE_ATTR]: { kind: 'int', value: 1 } } });
      continue;
    }
    const stores: Node[] = [];
    const outputs = n.outputs.map((t) => {
      if (!far(t)) return t;
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

export interface StageOptions {
  /** Layer i's output shares its input 0's buffer (an alias or an in-place kernel): a cache's group. */
  isAliased?: (nodeIndex: number) => boolean;
  /** Cycles of one far-memory copy of so many bytes: with it, a cache whose reader stops at the position loads only
   *  the rows written so far when that is cheaper on average over the context (one copy per outer index). */
  copyCycles?: (bytes: number) => number;
}

/**
 * For a layer reading a cache in L3: the axis and position when the layer reads only entries 0..pos along the
 * cache's row axis (a MatMul bounded by the position along B's axis that the CacheWrites append to, frontend/passes/
 * bound-by-position.ts) and loading those rows alone (L3Load with the position as its second input: one copy per
 * outer index of min(pos + 1, rows) rows) costs less than the whole cache at the middle of the context.
 */
function rowsReadByPosition(g: Graph, far: (t: string) => boolean, copyCycles?: (bytes: number) => number) {
  const axisOf = new Map<string, number>();
  for (const n of g.nodes) {
    if (n.op !== 'CacheWrite' || !far(n.inputs[0])) continue;
    const rank = tensorOf(g, n.inputs[0]).shape.length;
    const a = attrInt(n, 'axis');
    for (const t of [n.inputs[0], n.outputs[0]]) axisOf.set(t, a < 0 ? a + rank : a);
  }
  return (reader: Node, cache: string): { axis: number; position: string } | undefined => {
    const axis = axisOf.get(cache);
    const bound = positionBoundOf(reader);
    if (!copyCycles || axis === undefined || reader.op !== 'MatMul' || bound === '' || reader.inputs[0] === cache || reader.inputs[1] !== cache) return undefined;
    const c = tensorOf(g, cache);
    const rank = c.shape.length;
    // B is [k, n], or [n, k] with transB: the bounded axis of B.
    const transB = attrInt(reader, 'transB', 0) === 1;
    const bAxis = (bound === 'k') !== transB ? rank - 2 : rank - 1;
    if (bAxis !== axis) return undefined;
    const outer = sizeOf(c.shape.slice(0, axis));
    const row = sizeOf(c.shape.slice(axis + 1)) * bytesOf(c.dtype);
    const half = Math.ceil(c.shape[axis] / 2);
    if (outer * copyCycles(half * row) >= copyCycles(sizeOf(c.shape) * bytesOf(c.dtype))) return undefined;
    return { axis, position: reader.inputs[POSITION_BOUND_INPUT] };
  };
}

function copyNode(name: string, op: string, from: string, to: string): Node {
  return { name, op, domain: 'firmgen', inputs: [from], outputs: [to], attrs: {} };
}
