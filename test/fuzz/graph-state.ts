import type { DType } from '../../generator/ir/dtype.js';
import type { AttrInput } from '../helpers/onnx-builder.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import type { Draws } from './recipe.js';

/**
 * The graph under construction while a recipe is built: the builder, and every value a later step may read with
 * its shape and what kind of integers it holds. `narrow` values (8 bits) are what every kernel takes; `wide` ones
 * (int32 accumulators) are brought back to 8 bits by a RequantShift, as the integer dialect does.
 */
export type Kind = 'int8' | 'uint8' | 'wide';

export interface Val {
  name: string;
  shape: number[];
  kind: Kind;
  /** Rough magnitude of a wide value (for choosing a requantization shift that keeps outputs varied). */
  spread: number;
}

export class GraphState {
  readonly b = new OnnxBuilder('fuzz');
  readonly vals: Val[] = [];
  private count = 0;
  /** Names of values some node reads (the rest become graph outputs). */
  readonly consumed = new Set<string>();
  /** Graph inputs steps added (caches, the position), after the recipe's and named like them: in<k>. */
  readonly extraInputs: { name: string; dtype: DType; shape: number[] }[] = [];
  /** The run-time position input (a decoder step's), made by the first step that reads it. */
  pos?: string;
  /** Every reader's bound on the position: it is drawn in [0, posLimit) so that every reader accepts it. */
  posLimit = Infinity;
  /** Values a CacheWrite produced (an attention step may read its keys from one). */
  readonly cacheOutputs = new Set<string>();

  constructor(private readonly dataSeed: number, private readonly firstInputs = 0) {}

  fresh(prefix = 't'): string {
    return `${prefix}${this.count++}`;
  }

  /** Constant data from a generator seeded by one draw: weights cost one draw, not one per value. */
  constInts(d: Draws, dtype: DType, shape: number[], lo: number, hi: number): string {
    const rng = new Rng(Math.floor(d.next() * 2 ** 31) ^ this.dataSeed);
    const n = shape.reduce((a, x) => a * x, 1);
    const name = this.fresh('c');
    this.b.initializer(name, dtype, shape, rng.ints(n, lo, hi));
    return name;
  }

  /** A new graph input of random values (a cache a CacheWrite updates, as a decoder step's graph has). */
  graphInput(dtype: DType, shape: number[]): string {
    const name = `in${this.firstInputs + this.extraInputs.length}`;
    this.b.input(name, dtype, shape);
    this.extraInputs.push({ name, dtype, shape: [...shape] });
    return name;
  }

  /** The int32 position input, shared by every reader; `limit` is this reader's bound (pos < limit). */
  position(limit: number): string {
    this.pos ??= this.graphInput('int32', [1]);
    this.posLimit = Math.min(this.posLimit, limit);
    return this.pos;
  }

  constOf(dtype: DType, shape: number[], values: number[]): string {
    const name = this.fresh('c');
    this.b.initializer(name, dtype, shape, values);
    return name;
  }

  node(op: string, inputs: string[], attrs: Record<string, AttrInput>, out: Omit<Val, 'name'>): Val {
    const name = this.fresh();
    for (const i of inputs) if (i) this.consumed.add(i);
    this.b.node(op, inputs, [name], attrs);
    const v = { ...out, name };
    this.vals.push(v);
    return v;
  }

  /** The latest value, or one drawn among the earlier ones (branches and joins). */
  current(): Val {
    return this.vals[this.vals.length - 1];
  }

  other(d: Draws, pred: (v: Val) => boolean = () => true): Val | undefined {
    const cands = this.vals.filter(pred);
    return cands.length > 0 ? d.pick(cands) : undefined;
  }
}

/**
 * RequantShift to 8 bits: per-tensor or per-channel mul/add, a shift that maps the value's spread onto the output
 * range (with jitter, so some outputs saturate and some use few levels), signed or not.
 */
export function requant(st: GraphState, d: Draws, x: Val, channelAxis?: number, forceSigned?: boolean): Val {
  const perChannel = channelAxis !== undefined && d.chance(0.4);
  const C = channelAxis !== undefined ? x.shape[channelAxis] : 1;
  const pshape = perChannel ? x.shape.map((s, i) => (i === channelAxis ? s : 1)) : x.shape.length === 0 ? [] : [1];
  const n = perChannel ? C : 1;
  const mulMax = d.pick([1, 7, 127, 255, 4096]);
  const mul = st.constInts(d, 'int32', pshape, d.chance(0.1) ? -mulMax : 1, mulMax);
  const add = st.constInts(d, 'int32', pshape, -1000 * n, 1000 * n);
  const drawn = d.chance(0.6); // taken even when forced, so the later draws stay where they were
  const signed = forceSigned ?? drawn;
  const nLevels = d.pick([256, 256, 256, 128, 16, 2]);
  const shift = Math.max(0, Math.min(30, Math.round(Math.log2(Math.max(1, x.spread * mulMax / 48))) + d.int(-2, 2)));
  return st.node('RequantShift', [x.name, mul, add], { div: 2 ** shift, n_levels: nLevels, signed: signed ? 1 : 0 }, {
    shape: [...x.shape], kind: signed ? 'int8' : 'uint8', spread: 64,
  });
}

export function isNarrow(v: Val): boolean {
  return v.kind !== 'wide';
}

export function dtypeOf(k: Kind): 'int8' | 'uint8' | 'int32' {
  return k === 'wide' ? 'int32' : k;
}

export function divisors(n: number): number[] {
  const out: number[] = [];
  for (let i = 1; i <= n; i++) if (n % i === 0) out.push(i);
  return out;
}
