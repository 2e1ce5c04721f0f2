import type { Graph } from '../ir/graph.js';
import type { NDArray } from '../ir/ndarray.js';
import { evaluateNodes, setConstants } from '../reference/interpreter.js';
import { floatTensors } from '../reference/value-kind.js';
import { batchedGraph, CHUNK, concat } from './batch.js';

/*
 * The integer model's runs on a set of samples, continued node by node while its constants change: bias correction
 * (bias-correction.ts) changes one layer's bias at a time and reads the next layer's accumulators, and only the nodes
 * from the first one that reads a changed constant need evaluating again. Running the model up to each layer from
 * its inputs, once per layer, was quadratic in the layers (the tiny-llama's 57 linear layers: 150 of the 280 s its
 * quantization took). Same values as whole runs: the interpreter computes each node from its operands alone.
 */
export class IncrementalRuns {
  private readonly chunks: { values: Map<string, NDArray>; count: number }[] = [];
  private graph: Graph | undefined;
  /** Nodes [0, done) are evaluated on the current constants. */
  private done = 0;
  /** Tensors no node from here on reads were dropped: a change before it means a run from the inputs. */
  private floor = 0;

  /** `read`: the tensors callers read, which must carry the batch on axis 0 for the samples to run batched. */
  constructor(g: Graph, samples: NDArray[][], read: string[]) {
    for (let s = 0; s < samples.length; s += CHUNK) {
      const part = samples.slice(s, s + CHUNK);
      const batched = part.length > 1 && batchedGraph(g, part.length, read) !== undefined;
      const runs = batched ? [part] : part.map((p) => [p]);
      for (const r of runs) {
        const values = new Map<string, NDArray>();
        g.inputs.forEach((name, i) => values.set(name, r.length === 1 ? r[0][i] : concat(r.map((p) => p[i]))));
        this.chunks.push({ values, count: r.length });
      }
    }
  }

  /**
   * Every chunk's values with g.nodes[0 .. last] evaluated on g's constants. `g` may differ from the graph given before
   * in constants and in nodes (a bias that was zero gets its Add once corrected): what follows the first difference
   * is evaluated again.
   */
  evaluateTo(g: Graph, last: number): { values: Map<string, NDArray>; count: number }[] {
    const change = this.changedFrom(g);
    let from = change.from;
    if (from < this.floor) {
      from = 0;
      this.floor = 0;
    }
    const floats = floatTensors(g);
    for (const c of this.chunks) {
      setConstants(g, c.values, floats, change.constants);
      evaluateNodes(g, c.values, from, last + 1);
    }
    this.graph = g;
    this.done = Math.max(from, last + 1);
    this.drop(g, Math.min(from, this.done));
    return this.chunks;
  }

  /**
   * The first node to evaluate again: the first that differs from the graph before (its op, name or tensors), or
   * reads a constant whose values changed; else `done`. With the constants that changed (all of them at first).
   */
  private changedFrom(g: Graph): { from: number; constants?: Set<string> } {
    const before = this.graph;
    if (!before) return { from: 0 };
    const key = (n: Graph['nodes'][number]): string => JSON.stringify([n.op, n.name, n.inputs, n.outputs]);
    let same = 0;
    while (same < Math.min(before.nodes.length, g.nodes.length) && key(before.nodes[same]) === key(g.nodes[same])) same++;
    const changed = new Set<string>();
    for (const t of g.tensors.values()) {
      const old = before.tensors.get(t.name)?.data?.data;
      const now = t.data?.data;
      if (!now || old === now) continue;
      if (!old || old.length !== now.length || now.some((v, i) => v !== old[i])) changed.add(t.name);
    }
    const first = g.nodes.findIndex((n) => n.inputs.some((i) => changed.has(i)));
    return { from: Math.min(first < 0 ? this.done : first, same, this.done), constants: changed };
  }

  /** Drops the outputs of nodes before `keepFrom` that no node from `keepFrom` on reads (memory: 64 samples a chunk). */
  private drop(g: Graph, keepFrom: number): void {
    const needed = new Set(g.nodes.slice(keepFrom).flatMap((n) => n.inputs));
    for (const n of g.nodes.slice(0, keepFrom)) {
      for (const o of n.outputs) if (o && !needed.has(o)) for (const c of this.chunks) c.values.delete(o);
    }
    this.floor = Math.max(this.floor, keepFrom);
  }
}
