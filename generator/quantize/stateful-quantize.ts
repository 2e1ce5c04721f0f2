import { GenError } from '../errors.js';
import { inferGraph } from '../ir/infer.js';
import type { Graph } from '../ir/graph.js';
import { isIntType } from '../ir/dtype.js';
import type { NDArray } from '../ir/ndarray.js';
import { analyzeGraph, checkOps } from './analyze.js';
import { Observer } from './calibrate.js';
import { fixedActivation } from './clipping.js';
import { foldConstants } from './fold.js';
import type { Quantized } from './index.js';
import { lowerToInteger } from './lower.js';
import { assignActivations, quantizeLinear, type LinearQuant, type Plan } from './params.js';
import { buildReport, reportedTensors, SqnrMeter } from './report.js';
import { appendPromptNext, joinPromptPass, tableScales, promptPoints, runPrompts, shareConstants, shareObservations } from './prompt-pass.js';
import { makeStateful, runSequences } from './stateful.js';
import { stepRoles } from '../ir/state.js';
import { isQuantPoint, type QuantizeOptions } from './types.js';

/*
 * Quantization of a decoder step graph with caches (stateful.ts): calibration runs it token by token over windows of
 * token ids (the .npz holds [N, L] ids), the caches fed back, so every position 0..L-1 and every cache content the
 * model produces itself is observed; the SQNR report runs the integer graph the same way over the first windows, its
 * own caches fed back (what the firmware does). Equalisation and bias correction are not applied here (their sample passes assume
 * independent samples).
 */

/** Windows the SQNR report runs (a token-by-token pass costs a reference run per token; 8 windows give steady figures). */
const SQNR_WINDOWS = 8;

function firstWindows(w: NDArray, n: number): NDArray {
  const [count, length] = w.shape;
  return count <= n ? w : { dtype: w.dtype, shape: [n, length], data: w.data.subarray(0, n * length) };
}

/** The next token chosen on chip: ArgMax of the logits' last axis, one more output (shaped like the token input). */
function appendNextToken(g: Graph): string {
  const roles = stepRoles(g);
  if (!roles) throw new GenError('internal', 'the quantized step graph lost its caches');
  let name = 'next_token';
  for (let k = 1; g.tensors.has(name); k++) name = `next_token_${k}`;
  const shape = g.tensors.get(roles.logits)!.shape.slice(0, -1);
  g.tensors.set(name, { name, dtype: 'int32', shape });
  g.nodes.push({ name: `${name}_argmax`, op: 'ArgMax', domain: '', inputs: [roles.logits], outputs: [name], attrs: { axis: { kind: 'int', value: -1 }, keepdims: { kind: 'int', value: 0 } } });
  g.outputs.push(name);
  return name;
}

/**
 * The generation loop's control block (ir/state.ts): [steps, prompt length, tokens 0..context]. An input the firmware
 * also returns: a board program (or `gen run`) writes the prompt into it, the firmware's loop appends the tokens.
 */
function appendControl(g: Graph, context: number): string {
  let name = 'generation';
  for (let k = 1; g.tensors.has(name); k++) name = `generation_${k}`;
  g.tensors.set(name, { name, dtype: 'int32', shape: [context + 3] });
  g.inputs.push(name);
  g.outputs.push(name);
  return name;
}

export function quantizeStateful(model: Graph, calibration: NDArray[], source: string, opts: Required<QuantizeOptions>, promptModel?: Graph): Quantized {
  if (!opts.context) {
    throw new GenError('input', 'the model keeps key/value caches (past inputs concatenated into present outputs): give the context in tokens with --context', { file: model.source });
  }
  const windows = calibration[0];
  if (!windows || !isIntType(windows.dtype) || windows.shape.length !== 2) {
    throw new GenError('input', 'a step graph with caches calibrates on windows of token ids: one integer array [N, L]', { file: source });
  }
  const stateful = makeStateful(model, opts.context);
  const pass = promptModel ? joinPromptPass({ ...stateful, graph: foldConstants(stateful.graph) }, foldConstants(promptModel)) : undefined;
  const float = pass ? pass.graph : foldConstants(stateful.graph);
  checkOps(float);
  const inferred = inferGraph(float);
  const units = analyzeGraph(inferred);
  if (pass) tableScales(units, pass.tables, inferred, opts.scheme === 'pow2');
  const points = [...float.inputs, ...units.filter(isQuantPoint).map((u) => u.out)];
  const inPass = pass ? promptPoints(inferred, pass.ids, points) : new Set<string>();
  const observer = new Observer(points.filter((p) => !inPass.has(p)));
  runSequences(inferred, windows, (values) => observer.add(values));
  const observed = observer.observed();
  if (pass) {
    const passObserver = new Observer([...inPass]);
    runPrompts(inferred, windows, (values) => passObserver.add(values));
    for (const [t, o] of passObserver.observed()) observed.set(t, o);
    shareObservations(observed, pass.shared);
  }
  const cal = { observed, means: new Map<string, Float64Array>(), meanSamples: 0, samples: windows.data.length };
  const act = assignActivations(float, units, observed, opts);
  const linear = new Map<string, LinearQuant>();
  for (const u of units) if (u.kind === 'linear') linear.set(u.name, quantizeLinear(u, act.get(u.x)!, opts));
  const plan: Plan = { units, act, linear, options: opts };
  const lowered = lowerToInteger(inferred, plan);
  // The token is an index: scale 1, like the token input.
  plan.act.set(appendNextToken(lowered.graph), fixedActivation(1, true, 32));
  if (pass) {
    plan.act.set(appendPromptNext(lowered.graph, pass.logits), fixedActivation(1, true, 32));
    shareConstants(lowered.graph);
  }
  plan.act.set(appendControl(lowered.graph, opts.context), fixedActivation(1, true, 32));
  const tensors = reportedTensors(float, plan);
  const meter = new SqnrMeter(plan, cal, tensors);
  const intInferred = inferGraph(lowered.graph);
  runSequences(intInferred, firstWindows(windows, SQNR_WINDOWS), (values) => meter.add(values));
  if (pass) runPrompts(intInferred, firstWindows(windows, SQNR_WINDOWS), (values) => meter.add(values));
  return {
    intGraph: lowered.graph,
    plan,
    layers: buildReport(float, plan, lowered.requant, cal, meter.db()),
    equalized: [],
    samples: windows.data.length,
  };
}
