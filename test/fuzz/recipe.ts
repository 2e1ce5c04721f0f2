import type { IntType } from '../../generator/ir/dtype.js';
import type { Rng } from '../helpers/random.js';

/*
 * A random graph is kept as a recipe, not as a graph: the graph inputs' shapes and types plus a list of steps, each
 * an op kind and the random draws its builder consumed. Building a recipe always yields a valid graph, because each
 * step derives its attributes from the draws *and the shapes it meets*; so the shrinker can drop steps or shrink
 * the input shapes freely and rebuild, and every rebuilt case is still a valid model.
 */

export interface InputSpec {
  dtype: IntType;
  shape: number[];
}

export interface Step {
  op: string;
  /** Draws in [0, 1), consumed in order by the step's builder; a missing draw reads as 0 (the simplest choice). */
  draws: number[];
}

export interface Recipe {
  inputs: InputSpec[];
  steps: Step[];
}

/**
 * The source of a step's choices: while generating, fresh numbers from the seeded generator, recorded; while
 * rebuilding, the recorded ones in order.
 */
export class Draws {
  private i = 0;
  readonly used: number[] = [];

  constructor(private readonly recorded: number[] | undefined, private readonly rng?: Rng) {}

  next(): number {
    const v = this.recorded ? (this.recorded[this.i] ?? 0) : this.rng!.next();
    this.i++;
    this.used.push(v);
    return v;
  }

  /** Uniform integer in [lo, hi] (lo when hi < lo). */
  int(lo: number, hi: number): number {
    if (hi <= lo) {
      this.next();
      return lo;
    }
    return lo + Math.min(hi - lo, Math.floor(this.next() * (hi - lo + 1)));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)];
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  ints(n: number, lo: number, hi: number): number[] {
    return Array.from({ length: n }, () => this.int(lo, hi));
  }
}

export function cloneRecipe(r: Recipe): Recipe {
  return { inputs: r.inputs.map((i) => ({ dtype: i.dtype, shape: [...i.shape] })), steps: r.steps.map((s) => ({ op: s.op, draws: [...s.draws] })) };
}
