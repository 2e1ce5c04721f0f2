import type { IntType } from '../../generator/ir/dtype.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import type { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';
import { randomValues } from '../helpers/typed-values.js';
import { GraphState } from './graph-state.js';
import * as C from './ops-compute.js';
import * as P from './ops-position.js';
import * as S from './ops-shape.js';
import { Draws, type InputSpec, type Recipe, type Step } from './recipe.js';

/** Every step kind with its weight in a random recipe. */
const BUILDERS: Record<string, { build: C.StepBuilder; weight: number }> = {
  conv: { build: C.conv, weight: 6 },
  gemm: { build: C.gemm, weight: 3 },
  matmul: { build: C.matmul, weight: 3 },
  binary: { build: C.binary, weight: 3 },
  requantAdd: { build: C.requantAdd, weight: 2 },
  activation: { build: C.activation, weight: 1 },
  maxPool: { build: C.maxPool, weight: 3 },
  intActivation: { build: C.intActivation, weight: 1 },
  integerDiv: { build: C.integerDiv, weight: 1 },
  pad: { build: S.pad, weight: 2 },
  concat: { build: S.concat, weight: 2 },
  slice: { build: S.slice, weight: 2 },
  gather: { build: S.gather, weight: 1 },
  lookup: { build: S.lookup, weight: 1 },
  argmax: { build: S.argmax, weight: 1 },
  transpose: { build: S.transpose, weight: 2 },
  reshape: { build: S.reshape, weight: 2 },
  view: { build: S.view, weight: 1 },
  reduce: { build: S.reduce, weight: 2 },
  softmax: { build: S.softmax, weight: 2 },
  norm: { build: S.norm, weight: 2 },
  requant: { build: S.requantStep, weight: 1 },
  fork: { build: C.fork, weight: 2 },
  cacheWrite: { build: P.cacheWrite, weight: 1 },
  attention: { build: P.attention, weight: 2 },
};

export const STEP_KINDS = Object.keys(BUILDERS);

/** Graph input shapes of four families (image, sequence, matrix, tokens); `scale` stretches the sizes. */
function randomInput(rng: Rng, scale: number): InputSpec {
  const dtype = rng.pick<IntType>(['int8', 'int8', 'int8', 'uint8', 'uint8', 'int16']);
  const n = (k: number): number => rng.int(1, Math.round(k * scale));
  const family = rng.int(0, 3);
  if (family === 0) return { dtype, shape: [1, n(8), n(12), n(12)] };
  if (family === 1) return { dtype, shape: [1, n(8), n(24)] };
  if (family === 2) return { dtype, shape: [n(8), n(32)] };
  return { dtype, shape: [rng.int(1, 2), n(8), n(32)] };
}

function pickKind(rng: Rng, kinds: readonly string[]): string {
  const total = kinds.reduce((s, k) => s + BUILDERS[k].weight, 0);
  let x = rng.next() * total;
  for (const k of kinds) {
    x -= BUILDERS[k].weight;
    if (x < 0) return k;
  }
  return kinds[0];
}

export interface BuiltCase {
  builder: OnnxBuilder;
  inputs: NDArray[];
  /** The steps that applied (a replayed step may not fit the shapes it meets and is then left out). */
  applied: number;
}

function start(recipe: Recipe, seed: number): GraphState {
  const st = new GraphState(seed, recipe.inputs.length);
  recipe.inputs.forEach((inp, i) => {
    const name = `in${i}`;
    st.b.input(name, inp.dtype, inp.shape);
    // int16 inputs are wide: only steps that take any integers, or a requantization, read them directly.
    const kind = inp.dtype === 'uint8' ? 'uint8' : inp.dtype === 'int16' ? 'wide' : 'int8';
    st.vals.push({ name, shape: [...inp.shape], kind, spread: kind === 'wide' ? 20000 : 64 });
  });
  return st;
}

function finish(st: GraphState, recipe: Recipe, seed: number, applied: number): BuiltCase {
  const names = new Set([...recipe.inputs.map((_, i) => `in${i}`), ...st.extraInputs.map((x) => x.name)]);
  const outs = st.vals.filter((v) => !names.has(v.name) && !st.consumed.has(v.name));
  for (const v of outs) st.b.output(v.name, 'float32');
  checkShapes(st);
  const rng = new Rng(seed);
  const inputs = recipe.inputs.map((inp) => randomValues(rng, inp.dtype, inp.shape));
  // Inputs steps added come from their own generator, so the recipe's inputs stay what they were before.
  const extra = new Rng(seed ^ 0x2c1b3c6d);
  for (const x of st.extraInputs) {
    if (x.name === st.pos) inputs.push(ndarray('int32', [1], [extra.int(0, Math.min(st.posLimit, 64) - 1)]));
    else inputs.push(randomValues(extra, x.dtype as IntType, x.shape));
  }
  return { builder: st.b, inputs, applied };
}

/**
 * The generator's own shape bookkeeping must agree with shape inference, or later steps would draw attributes for
 * shapes that are not there: a generator bug, reported as such rather than as a finding.
 */
function checkShapes(st: GraphState): void {
  const g = inferGraph(st.b.graph());
  for (const v of st.vals) {
    const t = g.tensors.get(v.name);
    if (t && t.shape.join() !== v.shape.join()) {
      const n = g.nodes.find((x) => x.outputs.includes(v.name));
      throw new Error(`fuzz generator: ${n?.op} ${v.name} tracked as [${v.shape}] but is [${t.shape}]`);
    }
  }
}

/**
 * A random recipe of 1..maxSteps steps on one or two graph inputs (sizes stretched by `scale`), its steps drawn
 * from `kinds` (every kind by default).
 */
export function randomRecipe(seed: number, maxSteps = 6, scale = 1, kinds: readonly string[] = STEP_KINDS): Recipe & { seed: number } {
  const rng = new Rng(seed);
  const first = randomInput(rng, scale);
  const inputs = [first];
  if (rng.next() < 0.2) inputs.push({ dtype: rng.pick<IntType>(['int8', 'uint8']), shape: [...first.shape] });
  const recipe: Recipe & { seed: number } = { seed, inputs, steps: [] };
  const st = start(recipe, seed);
  const want = rng.int(1, maxSteps);
  for (let tries = 0; recipe.steps.length < want && tries < 50; tries++) {
    const op = pickKind(rng, kinds);
    const d = new Draws(undefined, rng);
    if (BUILDERS[op].build(st, d)) recipe.steps.push({ op, draws: d.used });
  }
  return recipe;
}

/** The graph and its inputs for a recipe (a generated one, or one a shrinker edited). */
export function buildRecipe(recipe: Recipe & { seed: number }): BuiltCase {
  const st = start(recipe, recipe.seed);
  let applied = 0;
  for (const step of recipe.steps as Step[]) {
    if (BUILDERS[step.op]?.build(st, new Draws(step.draws))) applied++;
  }
  if (applied === 0) S.requantStep(st, new Draws([]));
  return finish(st, recipe, recipe.seed, applied);
}
