import { fastestRequantExpr } from '../../../backend/expr.js';
import { valueRange } from '../../../kernels/common.js';
import { rangeOf, rangeOfValues, type IntRange, type IntType } from '../../../ir/dtype.js';
import type { Expr, Graph, Node, NpuJob, Tensor } from '../../../ir/graph.js';
import { producerOf, tensorOf } from '../../../ir/graph.js';
import { ndarray, sizeOf } from '../../../ir/ndarray.js';
import { npuEligible, isSignedActivation, type NpuCandidate } from '../npu/eligible.js';
import { npuJobCycles } from '../npu/cost.js';
import { accRanges, mapOutputStage } from '../npu/output-stage.js';
import { encodeWeights } from '../npu/weights.js';
import type { CoreCosts } from '../../types.js';
import { fusedNames } from '../../../frontend/edit.js';

/*
 * Engine selection for Siracusa's N-EUREKA (docs/neureka.md): each Conv or GEMM the engine can run becomes a
 * 'NeurekaConv' node on NHWC tensors with its weights encoded offline, when the policy asks for it ('npu': every
 * node the engine can run; 'cluster+npu': where the estimated cycles, layout changes included, beat the cores).
 * Convolutions get Transposes to and from NHWC (sink-transposes.ts removes the pairs between NPU layers); GEMM rows
 * already are NHWC pixels and only get free Reshapes. Every decision is written on the node (engineNote).
 */
export interface NpuPolicy {
  engines: 'npu' | 'cluster+npu';
  weightsIn: 'nms' | 'l2';
  cores: number;
  costs: CoreCosts;
  /** A previous attempt's outcome (pipeline.ts): nodes to keep on the cluster, and the nodes this one lowers. */
  fallback?: NpuFallback;
}

/**
 * What lets the pipeline keep a layer on the cluster when its N-EUREKA version fails further down (its tiles do
 * not fit the L1 given, a kernel refuses a layout change): the engine option must never reject a model the
 * cluster runs. `keep`: node name -> why; `lowered`: filled by the pass with the names of the nodes it rewrote.
 */
export interface NpuFallback {
  keep: Map<string, string>;
  lowered: Set<string>;
}

/**
 * The node the NPU lowering rewrote into `name` (a node of the lowered graph), if any: the rewrite names its
 * nodes after the original, `<original>__...`; the longest original that prefixes it wins.
 */
export function npuOriginOf(fallback: NpuFallback, name: string): string | undefined {
  let best: string | undefined;
  for (const o of fallback.lowered) if (name.startsWith(`${o}__`) && (!best || o.length > best.length)) best = o;
  return best;
}

const NCHW_TO_NHWC = [0, 2, 3, 1];
const NHWC_TO_NCHW = [0, 3, 1, 2];

export function lowerNpuPass(policy: NpuPolicy): (g: Graph) => Graph {
  return (g) => lowerNpu(g, policy);
}

function lowerNpu(g: Graph, policy: NpuPolicy): Graph {
  const tensors = new Map(g.tensors);
  const nodes: Node[] = [];
  const onNpu = new Set<string>();
  const producers = producerOf(g);
  const fresh = uniqueNames(tensors);
  for (const n of g.nodes) {
    const el = npuEligible(n, g);
    if (!el.ok) {
      nodes.push(n.op === 'Conv' || n.op === 'Gemm' || n.op === 'MatMul' ? { ...n, engineNote: `cluster: ${el.why}` } : n);
      continue;
    }
    const kept = policy.fallback?.keep.get(n.name);
    if (kept) {
      nodes.push({ ...n, engineNote: `cluster: ${kept}` });
      continue;
    }
    const plan = planNode(g, n, el.c, policy);
    if (typeof plan === 'string') {
      nodes.push({ ...n, engineNote: `cluster: ${plan}` });
      continue;
    }
    const inputOnNpu = onNpu.has(producers.get(n.inputs[0])?.name ?? '');
    const est = estimate(el.c, plan, policy, inputOnNpu, tensorOf(g, n.outputs[0]).dtype);
    if (policy.engines === 'cluster+npu' && est.npu >= est.cluster) {
      nodes.push({ ...n, engineNote: `cluster: ~${est.cluster} cycles on ${policy.cores} core(s) vs ~${est.npu} on the NPU` });
      continue;
    }
    const note = `npu: ${el.c.mode} ${el.c.cin}->${el.c.cout} channels, ${el.c.bits}-bit weights` +
      `${plan.fallback ? ` (${plan.fallback}; requantized on the cores)` : ''}; ~${est.npu} cycles vs ~${est.cluster} on ${policy.cores} core(s)`;
    nodes.push(...rewrite(g, n, el.c, plan, policy, tensors, fresh, note));
    onNpu.add(n.name);
    policy.fallback?.lowered.add(n.name);
  }
  return { ...g, nodes, tensors };
}

interface NodePlan {
  job: NpuJob;
  scale: number[];
  bias: number[];
  /** Set when the engine writes int32 and the cores requantize: why. */
  fallback?: string;
  /** Bounds of the raw accumulators over every output channel (what the engine writes without its output stage). */
  accRange: IntRange;
}

function paramVector(g: Graph, name: string, channels: number, channelAxisSize: (t: Tensor) => boolean): number[] | string {
  const t = tensorOf(g, name);
  const d = t.data!.data;
  if (d.length === 1) return [d[0]];
  if (d.length === channels && channelAxisSize(t)) return Array.from(d);
  return 'requantization parameters that do not follow the output channel';
}

function planNode(g: Graph, n: Node, c: NpuCandidate, policy: NpuPolicy): NodePlan | string {
  const x = tensorOf(g, n.inputs[0]);
  const xr: IntRange = x.range ?? rangeOf(x.dtype as IntType);
  const acc = accRanges(c.channelWeights, c.cout, xr);
  let requant: Parameters<typeof mapOutputStage>[0]['requant'];
  if (n.requant) {
    const follows = (t: Tensor): boolean => c.kind === 'gemm'
      ? t.shape.length > 0 && t.shape[t.shape.length - 1] === c.cout
      : t.shape.filter((d) => d > 1).length === 1;
    const mul = paramVector(g, n.requant.mul, c.cout, follows);
    const add = paramVector(g, n.requant.add, c.cout, follows);
    if (typeof mul === 'string') return mul;
    if (typeof add === 'string') return add;
    requant = { mul, add, shift: n.requant.shift, min: n.requant.min, max: n.requant.max };
  }
  const stage = mapOutputStage({ requant, bias: c.bias, acc });
  const job = (s: NpuJob['stage']): NpuJob => ({
    mode: c.mode, bits: c.bits, signedInput: isSignedActivation(g, n.inputs[0]), wmem: policy.weightsIn === 'nms',
    pads: c.pads, stage: s, cin: c.cin, cout: c.cout,
  });
  const accRange = { min: Math.min(...acc.map((r) => r.min)), max: Math.max(...acc.map((r) => r.max)) };
  if (stage.kind === 'npu' && !stage.stage.normQuant) {
    // Without its output stage the engine writes the int32 accumulators; the layout change after it narrows them
    // to the node's output type, exact only when every accumulator fits that type.
    const y = tensorOf(g, n.outputs[0]);
    const yr = rangeOf(y.dtype as IntType);
    if (accRange.min < yr.min || accRange.max > yr.max) {
      return `the int32 accumulators [${accRange.min}, ${accRange.max}] do not fit the output type ${y.dtype} (no requantization)`;
    }
  }
  if (stage.kind === 'npu') return { job: job(stage.stage), scale: stage.scale, bias: stage.bias, accRange };
  if (!requant) return stage.why;
  return { job: job({ normQuant: false, scale32: false, bias: false, relu: false, shift: 0 }), scale: [], bias: [], fallback: stage.why, accRange };
}

/** Cycles on the cores (the emulator's cost classes) and on the NPU with the layout changes it needs. */
function estimate(c: NpuCandidate, p: NodePlan, policy: NpuPolicy, inputOnNpu: boolean, outType: string): { npu: number; cluster: number } {
  const k = policy.costs;
  const perMac = c.kind === 'gemm' ? k.MAC_GEMM : c.mode === '3x3dw' ? k.MAC_DW : k.MAC_CONV;
  const outElems = c.ho * c.wo * c.cout;
  // A layer on the cores: one tile's fixed work (a kernel call on every core and its driving by core 0, CALL and
  // TILE: measured on the C, docs/timing.md), its work split over them, the fork and join. Each side pays one; a
  // layout change on the cores (a Transpose or a narrowing copy) is a layer of its own, an element move per element.
  const onCores = (work: number): number => Math.round(k.LAYER + k.CALL + k.TILE + work / policy.cores + k.fork + k.join);
  const layout = (elems: number): number => onCores(elems * k.MOVE_ELEM);
  const cluster = onCores(c.macs * perMac + outElems * k.REQUANT);
  const shape = {
    ...p.job, ho: c.ho, wo: c.wo, inPixel: c.cin, inRow: c.cin * c.wo,
    outPixel: c.cout, outRow: c.cout * c.wo,
  };
  let npu = npuJobCycles(shape);
  if (c.kind === 'conv') {
    const halo = c.mode === '1x1' ? 0 : 2;
    const inElems = (c.ho + halo - c.pads.top - c.pads.bottom) * (c.wo + halo - c.pads.left - c.pads.right) * c.cin;
    npu += (inputOnNpu ? 0 : layout(inElems)) + layout(outElems);
  }
  if (p.fallback) npu += onCores(outElems * k.REQUANT);
  // A GEMM's Reshape back is free only when the engine writes the output's own type; int32 accumulators narrowed
  // to an int16 (or int8) output are copied by the cores.
  else if (c.kind === 'gemm' && !p.job.stage.normQuant && outType !== 'int32') npu += layout(outElems);
  return { npu, cluster };
}

function uniqueNames(tensors: Map<string, Tensor>): (base: string) => string {
  return (base) => {
    let name = base;
    for (let i = 1; tensors.has(name); i++) name = `${base}_${i}`;
    return name;
  };
}

/**
 * A weight another layer already encoded the same way (a prompt pass and its step read one weight tensor): that
 * layer's encoded tensor, so the neural memory holds it once (npu/nms.ts places each weight tensor once).
 */
function encodedOnce(tensors: Map<string, Tensor>, base: string, enc: ArrayLike<number>): string | undefined {
  for (const t of tensors.values()) {
    const d = t.data?.data;
    if (!d || !t.name.startsWith(base) || t.dtype !== 'uint8' || d.length !== enc.length) continue;
    let same = true;
    for (let i = 0; i < d.length && same; i++) same = d[i] === enc[i];
    if (same) return t.name;
  }
  return undefined;
}

function rewrite(
  g: Graph, n: Node, c: NpuCandidate, p: NodePlan, policy: NpuPolicy, tensors: Map<string, Tensor>,
  fresh: (base: string) => string, note: string,
): Node[] {
  const out: Node[] = [];
  const x = tensorOf(g, n.inputs[0]);
  const y = tensorOf(g, n.outputs[0]);
  const add = (t: Tensor): string => {
    tensors.set(t.name, t);
    return t.name;
  };
  const constant = (base: string, dtype: Tensor['dtype'], shape: number[], values: ArrayLike<number>): string => {
    const data = ndarray(dtype, shape, values);
    return add({ name: fresh(base), dtype, shape, data, range: rangeOfValues(data.data) });
  };
  const from = fusedNames(n);
  const movement = (op: string, input: string, output: string, shape: number[] | undefined, perm?: number[]): Node => {
    const inputs = [input];
    if (shape) inputs.push(constant(`${output}__shape`, 'int64', [shape.length], shape));
    return {
      name: fresh(`${n.name}__${op.toLowerCase()}_${output}`), op, domain: '', inputs, outputs: [output],
      attrs: perm ? { perm: { kind: 'ints', value: perm } } : {}, fusedFrom: from,
    };
  };
  // Input in NHWC.
  const nhwcIn = c.kind === 'conv' ? [1, x.shape[2], x.shape[3], x.shape[1]] : [1, c.ho, c.wo, c.cin];
  const xIn = add({ ...x, name: fresh(`${x.name}__nhwc`), shape: nhwcIn, data: undefined });
  if (c.kind === 'conv') out.push(movement('Transpose', x.name, xIn, undefined, NCHW_TO_NHWC));
  else out.push(movement('Reshape', x.name, xIn, nhwcIn));
  // Weights, scale and bias in the engine's formats.
  const enc = encodeWeights({ mode: c.mode, bits: c.bits, cout: c.cout, cin: c.cin, weight: c.weight });
  const rows = c.mode === '3x3dw' ? Math.ceil(c.cout / 28) : c.cout;
  const wName = encodedOnce(tensors, `${n.inputs[1]}__neureka`, enc) ?? constant(`${n.inputs[1]}__neureka`, 'uint8', [rows, enc.length / rows], enc);
  const stage = p.job.stage;
  const scale = stage.normQuant ? constant(`${n.name}__scale`, stage.scale32 ? 'uint32' : 'uint8', [c.cout], p.scale) : '';
  const bias = stage.normQuant ? constant(`${n.name}__bias`, 'int32', [c.cout], p.bias) : '';
  const nhwcOut = [1, c.ho, c.wo, c.cout];
  const accType: IntType = stage.normQuant ? (y.dtype as IntType) : 'int32';
  // The raw accumulators carry their bound: the layout change that narrows them to an int16 (or int8) output, or
  // the cores' requantization, then knows the values fit.
  const yRange = stage.normQuant ? y.range : p.accRange;
  const yNpu = add({ name: fresh(`${y.name}__npu`), dtype: accType, shape: nhwcOut, ...(yRange ? { range: yRange } : {}) });
  out.push({
    name: `${n.name}__neureka`, op: 'NeurekaConv', domain: 'firmgen', inputs: [xIn, wName, scale, bias], outputs: [yNpu],
    attrs: {}, npu: p.job, engineNote: note, fusedFrom: from,
  });
  let yNhwc = yNpu;
  if (p.fallback && n.requant) {
    // The cores requantize the int32 accumulators (bias included) in NHWC, channels last.
    const rq = n.requant;
    const vec = (name: string): string => {
      const t = tensorOf(g, name);
      const d = t.data!.data;
      return constant(`${name}__nhwc`, t.dtype, d.length === 1 ? [1] : [c.cout], d);
    };
    const leaves = [yNpu, vec(rq.mul), vec(rq.add)];
    let accExpr: Expr = { k: 'in', i: 0 };
    if (c.bias) {
      leaves.push(constant(`${n.name}__bias_nhwc`, 'int32', [c.cout], c.bias));
      accExpr = { k: 'add', a: accExpr, b: { k: 'in', i: 3 } };
    }
    yNhwc = add({ ...y, name: fresh(`${y.name}__nhwc`), shape: nhwcOut, data: undefined });
    // Split at bit 16 where the whole product needs 64 bits and its halves do not, as a conv's output stage on the
    // cores (kernels/epilogue.ts): MobileNet-class per-channel scales at a shift of 22, a 64-bit multiply-add an
    // element otherwise (mulh's 5 cycles and the carry's adds: MobileNetV1's Conv_12 requantization 61,323 cycles).
    const ranges = leaves.map((name) => ({ name, range: valueRange(tensors.get(name) ?? tensorOf(g, name)) }));
    const { expr } = fastestRequantExpr(accExpr, { k: 'in', i: 1 }, { k: 'in', i: 2 }, rq.shift, rq.min, rq.max, ranges);
    out.push({
      name: `${n.name}__requant`, op: 'Elementwise', domain: 'firmgen', inputs: leaves, outputs: [yNhwc], attrs: {},
      expr, fusedFrom: from,
      engineNote: 'cluster: requantization the NPU output stage cannot do exactly',
    });
  }
  if (c.kind === 'conv') out.push(movement('Transpose', yNhwc, y.name, undefined, NHWC_TO_NCHW));
  else out.push(movement('Reshape', yNhwc, y.name, y.shape));
  if (sizeOf(y.shape) !== sizeOf(nhwcOut)) throw new Error(`lower-npu: ${n.name}: output ${y.shape} vs ${nhwcOut}`);
  return out;
}
