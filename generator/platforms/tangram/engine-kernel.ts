import { attrInt, attrInts } from '../../ir/attrs.js';
import { type Graph, type Node, tensorOf } from '../../ir/graph.js';
import { valueRange } from '../../kernels/common.js';
import { maxPoolWindow } from '../../kernels/pool.js';
import { requantParamShape, varyingAxes } from '../../ir/broadcast.js';
import type { BufferArg, KernelDef } from '../../kernels/types.js';
import type { FirmwareSegment } from './graph-segments.js';
import { ARGS_PER_LAYER, type SegmentLayerFunction } from './segment-programs.js';
import type { LayerContext } from './cost.js';
import type { TangramHardware } from './hardware.js';
import type { LayerShape } from './layers.js';
import { bestPartition, type Objective } from './partition.js';
import { type ElementKind, type Functional, programImage, programsOf } from './programs.js';
import { regionsOf } from './regions.js';

/**
 * Conv, Gemm/MatMul and MaxPool on the engines (engine programs, programs.ts; the emulator's engine model runs them):
 * 8-bit (int8 or uint8) products summed in int32, the bias (an integer constant, one per output channel) added once,
 * a fused RequantShift (scalar or per output channel) applied to the whole sums; max pooling of 8-bit maps. ReLU,
 * Adds and unfused requantizations stay element-wise layers of the control core. One product is cast as a
 * convolution with 1x1 windows (rows as the map's height). The layer runs alone on the grid with its best
 * partitioning under buffer sharing (the search's single-layer segment); a layer of a pipelined segment of the
 * searched dataflow runs inside the segment's one program, which its first layer hands to the engines (graph-segments.ts).
 */
export interface EngineOp {
  /** 1: products (a convolution), 2: max pooling (programs.ts programImage `kind`). */
  kind: 1 | 2;
  shape: LayerShape;
  batch: number;
  fn: Functional;
  x: string;
  /** The filters (absent for pooling). */
  w?: string;
  bias?: string;
  y: string;
}

/** Sums of int8 products that cannot leave int32 (the engines accumulate in 32 bits, as the reference does not wrap). */
function fitsInt32(g: Graph, x: string, w: string, terms: number, bias?: string): boolean {
  const xr = valueRange(tensorOf(g, x));
  const wr = valueRange(tensorOf(g, w));
  let bound = terms * Math.max(Math.abs(xr.min), Math.abs(xr.max)) * Math.max(Math.abs(wr.min), Math.abs(wr.max));
  if (bias) {
    const br = valueRange(tensorOf(g, bias));
    bound += Math.max(Math.abs(br.min), Math.abs(br.max));
  }
  return bound <= 2 ** 31 - 1;
}

const OPERAND_TYPES: ReadonlySet<string> = new Set(['int8', 'uint8']);
const BIAS_TYPES: ReadonlySet<string> = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32']);
/** Results: int32 sums, or a narrower type the generator gave them from their value range (exact modulo its width). */
const RESULT_TYPES: ReadonlySet<string> = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32']);

function biasOk(g: Graph, name: string | undefined, channels: number): boolean {
  if (!name) return true;
  const b = tensorOf(g, name);
  return BIAS_TYPES.has(b.dtype) && b.data !== undefined && b.shape.reduce((a, c) => a * c, 1) === channels && b.shape.filter((d) => d !== 1).length <= 1;
}

/** Most outputs a requantized layer may have: the emulator's accumulators (engines.ts MAX_ACCUMULATORS). */
const MAX_REQUANT_OUTPUTS = 65536;
const PARAM_TYPES: ReadonlySet<string> = new Set(['int8', 'uint8', 'int16', 'uint16', 'int32']);

/**
 * A fused requantization the engines apply (scalar or per output channel: `axis` of the result), or why not, or
 * undefined when the node has none.
 */
function requantFor(node: Node, g: Graph, axis: number): Functional['requant'] | string | undefined {
  const q = node.requant;
  if (!q) return undefined;
  const y = tensorOf(g, node.outputs[0]);
  const xShape = y.shape;
  if (y.shape.reduce((a, d) => a * d, 1) > MAX_REQUANT_OUTPUTS) return `a requantized result of more than ${MAX_REQUANT_OUTPUTS} elements (the engine model's accumulators)`;
  const per: boolean[] = [];
  const types: ElementKind[] = [];
  for (const name of [q.mul, q.add]) {
    const t = tensorOf(g, name);
    if (t.data === undefined || !PARAM_TYPES.has(t.dtype)) return 'requantization parameters that are not integer constants';
    const axes = varyingAxes(requantParamShape(t.shape, xShape), xShape);
    if (axes.length > 1 || (axes.length === 1 && axes[0] !== axis)) return 'requantization parameters neither scalar nor per output channel';
    per.push(axes.length === 1);
    types.push(t.dtype as ElementKind);
  }
  return { shift: q.shift, min: q.min, max: q.max, mulPerChannel: per[0], addPerChannel: per[1], mulType: types[0], addType: types[1] };
}

/** The operand and bias element kinds (int8 when absent: the header's default). */
function kinds(g: Graph, x: string, w: string, y: string, bias?: string): { xType: ElementKind; wType: ElementKind; biasType: ElementKind; yType: ElementKind } {
  return {
    yType: tensorOf(g, y).dtype as ElementKind,
    xType: tensorOf(g, x).dtype as ElementKind,
    wType: tensorOf(g, w).dtype as ElementKind,
    biasType: bias ? (tensorOf(g, bias).dtype as ElementKind) : 'int32',
  };
}

function convOp(node: Node, g: Graph): EngineOp | string {
  const x = tensorOf(g, node.inputs[0]);
  const w = tensorOf(g, node.inputs[1]);
  const y = tensorOf(g, node.outputs[0]);
  if (x.shape.length !== 4) return 'the engines take 2-D convolutions';
  if (!OPERAND_TYPES.has(x.dtype) || !OPERAND_TYPES.has(w.dtype)) return 'operands are not 8-bit integers';
  if (!RESULT_TYPES.has(y.dtype)) return 'the result is not an integer type the engines write';
  const requant = requantFor(node, g, 1);
  if (typeof requant === 'string') return requant;
  if (attrInt(node, 'group', 1) !== 1) return 'grouped convolution';
  if (attrInts(node, 'dilations', [1, 1]).some((d) => d !== 1)) return 'dilated convolution';
  const autoPad = node.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value}`;
  const [N, C, H, W] = x.shape;
  const [K, , R, S] = w.shape;
  const [, , HO, WO] = y.shape;
  const bias = node.inputs[2] || undefined;
  if (!biasOk(g, bias, K)) return 'the bias is not one int32 constant per output channel';
  if (!fitsInt32(g, x.name, w.name, C * R * S, bias)) return 'the accumulator could leave int32';
  const [sh, sw] = attrInts(node, 'strides', [1, 1]);
  const [pt, pl] = attrInts(node, 'pads', [0, 0, 0, 0]);
  return {
    kind: 1,
    shape: { name: node.name, kind: 'conv', c: C, k: K, h: HO, w: WO, r: R, s: S, stride: Math.max(sh, sw), inputs: [] },
    batch: N,
    fn: {
      n: N, k: K, c: C, ho: HO, wo: WO, r: R, s: S, strideH: sh, strideW: sw, padT: pt, padL: pl, h: H, w: W,
      xStrides: [C * H * W, H * W, W, 1], wStrides: [C * R * S, R * S, S, 1], yStrides: [K * HO * WO, HO * WO, WO, 1],
      bias: bias !== undefined, ...kinds(g, x.name, w.name, y.name, bias), requant,
    },
    x: x.name, w: w.name, bias, y: y.name,
  };
}

function productOp(node: Node, g: Graph): EngineOp | string {
  const a = tensorOf(g, node.inputs[0]);
  const b = tensorOf(g, node.inputs[1]);
  const y = tensorOf(g, node.outputs[0]);
  if (a.shape.length !== 2 || b.shape.length !== 2) return 'the engines take 2-D products';
  if (!OPERAND_TYPES.has(a.dtype) || !OPERAND_TYPES.has(b.dtype)) return 'operands are not 8-bit integers';
  if (!RESULT_TYPES.has(y.dtype)) return 'the result is not an integer type the engines write';
  const requant = requantFor(node, g, 1);
  if (typeof requant === 'string') return requant;
  const gemm = node.op === 'Gemm';
  if (gemm && (attrInt(node, 'alpha', 1) !== 1 || attrInt(node, 'beta', 1) !== 1)) return 'alpha or beta is not 1';
  const transA = gemm && attrInt(node, 'transA', 0) !== 0;
  const transB = gemm && attrInt(node, 'transB', 0) !== 0;
  const M = transA ? a.shape[1] : a.shape[0];
  const K = transA ? a.shape[0] : a.shape[1];
  const N = transB ? b.shape[0] : b.shape[1];
  const bias = node.inputs[2] || undefined;
  if (!biasOk(g, bias, N)) return 'the bias is not one int32 constant per output column';
  if (!fitsInt32(g, a.name, b.name, K, bias)) return 'the accumulator could leave int32';
  // y[m, n] = sum_k A[m, k] B[k, n]: a convolution of one image, M rows x 1 column, K input and N output channels.
  return {
    kind: 1,
    shape: { name: node.name, kind: 'fc', c: K, k: N, h: M, w: 1, r: 1, s: 1, stride: 1, inputs: [] },
    batch: 1,
    fn: {
      n: 1, k: N, c: K, ho: M, wo: 1, r: 1, s: 1, strideH: 1, strideW: 1, padT: 0, padL: 0, h: M, w: 1,
      xStrides: [0, transA ? M : 1, transA ? 1 : K, 0], wStrides: [transB ? K : 1, transB ? 1 : N, 0, 0], yStrides: [0, 1, N, 0],
      bias: bias !== undefined, ...kinds(g, a.name, b.name, y.name, bias), requant,
    },
    x: a.name, w: b.name, bias, y: y.name,
  };
}

/** 2-D max pooling of 8-bit maps: undilated, windows of the input (ceil_mode 0), the result of the input's type. */
function poolOp(node: Node, g: Graph): EngineOp | string {
  const x = tensorOf(g, node.inputs[0]);
  const y = tensorOf(g, node.outputs[0]);
  if (x.shape.length !== 4) return 'the engines take 2-D pooling';
  if (!OPERAND_TYPES.has(x.dtype) || y.dtype !== x.dtype) return 'the engines pool 8-bit maps into their own type';
  if (node.outputs.length > 1 && node.outputs[1]) return 'the Indices output';
  if (attrInt(node, 'ceil_mode', 0) !== 0) return 'ceil_mode';
  const autoPad = node.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return `auto_pad ${autoPad.value}`;
  const [N, C, H, W] = x.shape;
  const [, , HO, WO] = y.shape;
  let win;
  try {
    win = maxPoolWindow(node, 2, H, W, HO, WO);
  } catch (e) {
    return (e as Error).message;
  }
  if (win.DY !== 1 || win.DX !== 1) return 'dilated pooling';
  return {
    kind: 2,
    shape: { name: node.name, kind: 'pool', c: C, k: C, h: HO, w: WO, r: win.KH, s: win.KW, stride: Math.max(win.SY, win.SX), inputs: [] },
    batch: N,
    fn: {
      n: N, k: C, c: C, ho: HO, wo: WO, r: win.KH, s: win.KW, strideH: win.SY, strideW: win.SX, padT: win.PT, padL: win.PL, h: H, w: W,
      xStrides: [C * H * W, H * W, W, 1], wStrides: [0, 0, 0, 0], yStrides: [C * HO * WO, HO * WO, WO, 1],
      bias: false, xType: x.dtype as ElementKind, wType: 'int8', biasType: 'int32', yType: y.dtype as ElementKind,
    },
    x: x.name, y: y.name,
  };
}

export function engineOp(node: Node, g: Graph): EngineOp | string {
  if (node.op === 'Conv') return convOp(node, g);
  if (node.op === 'Gemm' || node.op === 'MatMul') return productOp(node, g);
  if (node.op === 'MaxPool') return poolOp(node, g);
  return 'not a Conv, Gemm, MatMul or MaxPool';
}

/** The engine operation of a node the kernel accepts (an error for one it does not). */
export function engineOpOf(node: Node, g: Graph): EngineOp {
  const op = engineOp(node, g);
  if (typeof op === 'string') throw new Error(`tangram-engines: ${node.name}: ${op}`);
  return op;
}

/** The layer's engine program: its best partitioning alone on the grid, with buffer sharing. */
export function engineProgramOf(op: EngineOp, hw: TangramHardware, objective: Objective): Int32Array {
  const all = hw.grid.rows * hw.grid.cols;
  const [region] = regionsOf(hw, [all]);
  const ctx: LayerContext = { hw, batch: op.batch, dramHopSum: region.dramHopSum, sharing: true, sources: [{ from: 'dram' }], ofmOnChip: false, reservedWords: 0 };
  const best = bestPartition(op.shape, all, ctx, objective);
  if (!best) throw new Error(`tangram: no partitioning of ${op.shape.name}`);
  const { engines, messages } = programsOf(op.shape, op.batch, hw, best.partition, true);
  return programImage(hw, engines, messages, op.fn, op.kind);
}

/**
 * Bytes of engine programs the firmware may embed. The programs are static data of the AS firmware, whose window is
 * 4 MiB (docs/firmware-abi.md: [4 MiB, 8 MiB), then the chip's regions); ASSUMPTION: 3 MiB leaves the rest for the
 * firmware's own data and stub heap. Above it generation fails with a clear error (programs.ts sizes: engines x
 * chunks x messages).
 */
export const PROGRAM_BUDGET_BYTES = 3 * 1024 * 1024;

/**
 * The engine kernels (products; max pooling), and the program bytes of the layers they have rendered (by node), for
 * the budget check.
 */
export function tangramEngineKernels(hw: TangramHardware, objective: Objective, programBytes?: Map<string, number>, segmentOf?: SegmentOf): KernelDef[] {
  return [engineKernel('tangram-engines', 1, hw, objective, programBytes, segmentOf), engineKernel('tangram-pool', 2, hw, objective, programBytes, segmentOf)];
}

/** The pipelined segment a node runs in and its place there (graph-segments.ts), or undefined: the node alone. */
export type SegmentOf = (g: Graph, node: Node) => { segment: FirmwareSegment; at: number } | undefined;

/**
 * The AS side of a segment's first layer: the segment's seven addresses per layer (x, w, bias, y, mul, add, x2; 0 when
 * absent) as argument fields (the layer's own fields, then one `s<i>` per further tensor) and the table the template
 * fills from them for tangram_run.
 */
/**
 * The view's part for the program a layer's AS hands to the engines (its own, its segment's at the segment's first
 * layer, or none inside a segment): the program's words, the segment's table of addresses and its extra fields.
 */
export function programView(program: Int32Array, inSegment: ReturnType<SegmentOf>, graph: Graph, args: BufferArg[]): { args: BufferArg[]; params: Record<string, unknown> } {
  const seg = inSegment?.at === 0 ? segmentArgs(inSegment.segment, graph, args) : undefined;
  return {
    args: [...args, ...(seg?.extra ?? [])],
    params: {
      program: Array.from(program).join(', '),
      words: program.length,
      engines: program.length > 0 ? program[1] : 0,
      segment: seg ? { layers: inSegment!.segment.nodes.length, entries: seg.entries, tableBytes: seg.tableBytes } : false,
      member: inSegment !== undefined && inSegment.at > 0,
    },
  };
}

/** A segment layer's operands (segment-programs.ts ARGS_PER_LAYER: x, w, bias, y, mul, add, x2), undefined where none. */
export function operandNames(n: Node, g: Graph, f: SegmentLayerFunction): Array<string | undefined> {
  const at = (i: number | undefined): string | undefined => (i === undefined ? undefined : n.inputs[i]);
  if (f.leaves) {
    const l = f.leaves;
    return [at(l.x), at(l.sx), at(l.sx2), n.outputs[0], at(l.mul), at(l.add), at(l.x2)];
  }
  const op = engineOpOf(n, g);
  return [op.x, op.w, op.bias, op.y, n.requant?.mul, n.requant?.add, undefined];
}

function segmentArgs(segment: FirmwareSegment, g: Graph, own: BufferArg[]): { extra: BufferArg[]; entries: Array<{ offset: number; value: string; c: string }>; tableBytes: number } {
  const field = new Map(own.map((a) => [a.tensor, a.field]));
  const extra: BufferArg[] = [];
  // `value` the AS address, `c` the C firmware's pointer (firmgen_tangram.h's table of the segment's operands)
  const entries: Array<{ offset: number; value: string; c: string }> = [];
  const written = new Set(segment.nodes.map((n) => n.outputs[0]));
  segment.nodes.forEach((n, i) => {
    const names = operandNames(n, g, segment.fns[i]);
    names.forEach((t, j) => {
      let value = '0';
      let c = '0';
      if (t) {
        let f = field.get(t);
        if (f === undefined) {
          f = `s${extra.length}`;
          field.set(t, f);
          extra.push({ field: f, tensor: t, dtype: tensorOf(g, t).dtype, write: written.has(t) });
        }
        value = `a.${f}`;
        c = `(void *)a->${f}`;
      }
      entries.push({ offset: (i * ARGS_PER_LAYER + j) * 4, value, c });
    });
  });
  return { extra, entries, tableBytes: segment.nodes.length * ARGS_PER_LAYER * 4 };
}

function engineKernel(name: string, kind: 1 | 2, hw: TangramHardware, objective: Objective, programBytes?: Map<string, number>, segmentOf?: SegmentOf): KernelDef {
  return {
    name,
    template: name,
    engine: 'accelerator',
    accepts(node, g) {
      const op = engineOp(node, g);
      if (typeof op === 'string') return op;
      return op.kind === kind ? null : kind === 1 ? 'not a product' : 'not a pooling';
    },
    view({ node, graph }) {
      const op = engineOpOf(node, graph);
      const inSegment = segmentOf?.(graph, node);
      // A segment's first layer runs the segment's program; its other layers' AS runs nothing (their C computes
      // each layer on the control core, as every engine layer's C does).
      const program = inSegment ? (inSegment.at === 0 ? inSegment.segment.program as Int32Array : new Int32Array(0)) : engineProgramOf(op, hw, objective);
      programBytes?.set(node.name, program.byteLength);
      const f = op.fn;
      const args: BufferArg[] = [
          { field: 'x', tensor: op.x, dtype: f.xType, write: false },
          ...(op.w ? [{ field: 'w', tensor: op.w, dtype: f.wType, write: false }] : []),
          ...(op.bias ? [{ field: 'b', tensor: op.bias, dtype: f.biasType, write: false }] : []),
          ...(f.requant && node.requant ? [
            { field: 'mul', tensor: node.requant.mul, dtype: f.requant.mulType, write: false },
            { field: 'add', tensor: node.requant.add, dtype: f.requant.addType, write: false },
          ] : []),
          { field: 'y', tensor: op.y, dtype: f.yType, write: true },
      ];
      const pv = programView(program, inSegment, graph, args);
      return {
        args: pv.args,
        params: {
          ...pv.params,
          bias: op.bias !== undefined,
          N: f.n, K: f.k, C: f.c, HO: f.ho, WO: f.wo, R: f.r, S: f.s, SH: f.strideH, SW: f.strideW, PT: f.padT, PL: f.padL, H: f.h, W: f.w,
          xn: f.xStrides[0], xc: f.xStrides[1], xh: f.xStrides[2], xw: f.xStrides[3],
          wk: f.wStrides[0], wc: f.wStrides[1], wr: f.wStrides[2], ws: f.wStrides[3],
          yn: f.yStrides[0], yk: f.yStrides[1], yh: f.yStrides[2], yw: f.yStrides[3],
          rq: f.requant ? {
            shift: f.requant.shift, round: f.requant.shift > 0 ? `${2 ** (f.requant.shift - 1)}LL` : '0LL', min: f.requant.min, max: f.requant.max,
            mulIdx: f.requant.mulPerChannel ? 'k' : '0', addIdx: f.requant.addPerChannel ? 'k' : '0',
          } : false,
          // pooling's running maximum starts at the input type's least value (every window holds an input element)
          lowest: f.xType === 'uint8' ? 0 : -128,
        },
        macs: kind === 1 ? f.n * f.k * f.c * f.ho * f.wo * f.r * f.s : 0,
      };
    },
    hal: {
      c: '#include "firmgen_hal.h"\n#include "tangram/firmgen_tangram.h"',
      as: "import { tangram_run } from './hal/tangram';",
    },
  };
}
