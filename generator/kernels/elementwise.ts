import { emitExpr, splitParts } from '../backend/expr.js';
import { broadcastStrides } from '../ir/broadcast.js';
import { isIntType, type DType, type IntRange } from '../ir/dtype.js';
import { tensorOf, type Expr } from '../ir/graph.js';
import { stridesOf } from '../ir/ndarray.js';
import { clampTestUnits, valueRange } from './common.js';
import { hoistInvariant } from './hoist.js';
import { partNest, renderPart } from './parts.js';
import type { KernelDef } from './types.js';

/**
 * One element of a fused expression where the operands' ranges are not known (the planner before it has a tile's
 * graph), without the clamp's tests (a core with p.clip): its operations (a clip, a shift, ...; every clamp counted,
 * elementCharges leaves out the ones the ranges elide) in ELEM_OP units and its operands that vary over the loop in
 * ELEM_LOAD units (a load and its address each; one that is the same for every element is loaded once a run). The
 * operands were ELEM_OPs until 2026-12-01: a load costs its address too (two instructions on an RV32 core without
 * post-increment), which the tiny-llama's rotary join of four streamed operands, at 1.25x its charge, showed.
 */
export function elementOps(e: Expr, leafStrides: readonly number[][]): { ops: number; clampTests: number; loads: number } {
  return { ops: exprOps(e), clampTests: 0, loads: streamedLeaves(leafStrides) };
}

const streamedLeaves = (leafStrides: readonly number[][]): number => leafStrides.filter((s) => s.some((v) => v !== 0)).length;

/**
 * A product split at bit 16 as the C computes it, fg_mulsplit (firmgen_simd.h): 6 instructions with XpulpV2's
 * p.extractu and p.mac, where the split's tree has 9 operations (and its operand twice). Only Siracusa's NPU lowering
 * puts one in an elementwise expression (platforms/siracusa/passes/lower-npu.ts); portable C takes 8.
 */
const MULSPLIT_OPS = 6;

function exprOps(e: Expr): number {
  const ops = (x: Expr): number => {
    if (x.k === 'add' && x.split) {
      const p = splitParts(x);
      if (p) return MULSPLIT_OPS + ops(p.v) + ops(p.m) + ops(p.c);
    }
    switch (x.k) {
      case 'in': case 'const': return 0;
      case 'shr': return x.s === 0 ? ops(x.a) : 1 + ops(x.a);
      case 'clip': case 'abs': case 'sign': case 'signp': case 'wrap8': return 1 + ops(x.a);
      default: return 1 + ops(x.a) + ops(x.b);
    }
  };
  return ops(e);
}

/**
 * What one element of a fused expression costs in the instructions its C runs: its ALU operations (ELEM_OP units),
 * its operands loaded per element (ELEM_LOAD), and on a core whose clamp branches (no p.clip) the clamps' tests in
 * instructions (CLIP_TEST units, kernels/common.ts clampTestUnits), its 32-bit clamps then not among the ALU
 * operations. A clamp the operands' ranges leave out is no instruction on either core (backend/expr.ts emits none).
 * On a core with p.clip an emitted clamp is one ELEM_OP. Until 2026-12-04 the elided clamps counted as ELEM_OPs on
 * that core: the fit then priced an ALU operation at 0.61 cycles (the calibration's requantized joins elide some of
 * theirs), and ResNet-8's scaled residual Adds, whose seven operations are seven instructions, ran at 1.11 x their
 * charge on every tile after the first (rv32 ELF's disassembly: 3 mul, 2 add, sra, p.clipu an element).
 */
export function elementCharges(e: Expr, leafRanges: readonly IntRange[], leafStrides: readonly number[][], clampBranches: boolean, out: DType): { ops: number; clampTests: number; loads: number } {
  const emitted = emitExpr(e, leafRanges.map((range, k) => ({ name: `v${k}`, range })));
  return {
    ops: exprOps(e) - emitted.clampsElided - (clampBranches ? emitted.clampsEmitted : 0),
    clampTests: clampBranches ? clampTestUnits(emitted, out) : 0,
    loads: streamedLeaves(leafStrides),
  };
}

/** Any fused elementwise expression over broadcast operands (frontend/passes/fuse-elementwise.ts). */
export const elementwiseKernel: KernelDef = {
  name: 'elementwise',
  template: 'elementwise',
  liveCode: true,
  engine: 'cores',
  accepts(node, g) {
    if (node.op !== 'Elementwise' || !node.expr) return 'not an elementwise expression';
    const all = [...node.inputs, ...node.outputs].map((n) => tensorOf(g, n));
    const bad = all.find((t) => !isIntType(t.dtype));
    return bad ? `tensor '${bad.name}' is ${bad.dtype}, not an integer type` : null;
  },
  view({ node, graph, platform }) {
    const out = tensorOf(graph, node.outputs[0]);
    const leaves = node.inputs.map((n) => tensorOf(graph, n));
    const fields = leaves.map((_, k) => `in${k}`);
    const spec = {
      dims: out.shape,
      leaves: leaves.map((t, k) => ({ field: fields[k], dtype: t.dtype, strides: broadcastStrides(t.shape, out.shape), offset: 0, range: valueRange(t) })),
      out: { field: 'y', dtype: out.dtype, strides: stridesOf(out.shape), offset: 0 },
      expr: node.expr!,
    };
    const site = { node: node.name, op: node.op };
    // A leaf loads per element only where the inner loop moves along it: the C loads the others once per run, and
    // computes once per run what depends on those alone (kernels/hoist.ts).
    // Without XpulpV2's p.clip the C's clamp is a compare-and-branch pair (CLIP_TEST) that branches when it clips:
    // the AS counts those values (CLIP_TAKEN).
    const branchy = !platform.image?.xpulp;
    const inner = partNest(spec, site).strides.slice(0, leaves.length).map((s) => s[3]);
    const { expr, hoisted, ranges } = hoistInvariant(node.expr!, (k) => inner[k] === 0, spec.leaves.map((l, k) => ({ name: `v${k}`, range: l.range })));
    const { ops, clampTests, loads } = elementCharges(expr, [...spec.leaves.map((l) => l.range), ...ranges], [...inner, ...hoisted.map(() => 0)].map((s) => [s]), branchy, out.dtype);
    const period = Math.ceil(platform.costs.ELEMENT + ops * platform.costs.ELEM_OP + clampTests * platform.costs.CLIP_TEST + loads * platform.costs.ELEM_LOAD);
    const part = renderPart({ ...spec, expr, hoisted }, site, { period, countClips: branchy });
    return {
      args: [
        ...leaves.map((t, k) => ({ field: fields[k], tensor: t.name, dtype: t.dtype, write: false })),
        { field: 'y', tensor: out.name, dtype: out.dtype, write: true },
      ],
      params: { parts: [part], cost: 'ELEMENT', ops, clampTests, loads },
      macs: 0,
    };
  },
};
