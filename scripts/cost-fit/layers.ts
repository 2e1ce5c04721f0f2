/**
 * The calibration layers of the cost fit (scripts/fit-costs.ts): one kernel per model, requantized to int8 where the
 * integer models requantize, at several sizes so each cost class varies independently of the others (MACs per
 * output, outputs per call, bytes gathered per MAC). Seeded data: the same models on every run.
 */
import { lowerQuantized } from '../../generator/frontend/passes/lower-quantized.js';
import { isIntType } from '../../generator/ir/dtype.js';
import type { Graph, Tensor } from '../../generator/ir/graph.js';
import { inferGraph } from '../../generator/ir/infer.js';
import { ndarray, sizeOf, type NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxBytes } from '../../generator/onnx/load.js';
import { encodeModel } from '../../generator/onnx/save.js';
import { typeRange } from '../../generator/frontend/passes/quantized/emit.js';
import { float, OnnxBuilder } from '../../test/helpers/onnx-builder.js';
import { rowModel, type RowForm } from '../../test/helpers/qdq-rows.js';
import { Rng } from '../../test/helpers/random.js';
import { AFTER_ANOTHER, IN_A_NETWORK, ZERO_INPUTS } from './fit.js';
import { MANY_TRANSFERS } from './team.js';
import type { FitTarget } from './targets.js';
import type { CoreCosts } from '../../generator/platforms/types.js';

export interface CalibrationLayer {
  name: string;
  /** The model's bytes (an OnnxBuilder, or an integer graph encoded by generator/onnx/save.ts). */
  builder: { bytes(): Uint8Array };
  inputs: NDArray[];
  /**
   * The inputs the runs take when they are not `inputs`: the firmware is generated from `inputs` (their value ranges
   * set the input types, backend/expr.ts its clamps), so a run on other data measures the same code.
   */
  runWith?: NDArray[];
  /** Measured only on the platforms whose cores have the cost it is for (absent: all). */
  onlyWhere?: (t: FitTarget) => boolean;
  /** A layer of a few outputs: its cycles are mostly a call's own, which these layers measure apart (fit.ts). */
  fewOutputs?: true;
  /** Generation options of its runs beside the target's (an untiled layer, a small L1 for several tiles). */
  options?: Record<string, unknown>;
  /**
   * Fixed costs over the calibration's plan table (measure.ts planCostsOf) for this layer's plan: another plan of the
   * same layer (transferPair).
   */
  plannedWith?: Partial<CoreCosts>;
  /**
   * One of a pair of the same layer planned into tiles of few and of many transfers, measured on the team only: the
   * driving core's programming of a transfer (TRANSFER) by difference (team.ts transferByDifference).
   */
  transfers?: 'few' | 'many';
  /**
   * Measured for its code only (measure.ts measureCode): the bytes gcc makes of the C of its layers of this code key
   * (fit.ts codeRatiosOf; its other layers, a requantization on the cores, are the timed rows' kind), no cycles. For a
   * kernel whose cycles the classes do not model (an NPU's driver: the engine's own model times the job), whose code
   * the cores still fetch cold.
   */
  codeOnly?: string;
  /**
   * An N-EUREKA layer of several tiles, timed on the whole team only, for core 0's work in its tile loop (NPU_JOB and
   * NPU_TILE, npu-job.ts): not among the one-core rows, the few-output rows nor the skew's.
   */
  npuJob?: true;
  /** A run of several calibration layers (inNetwork): their names, in the order of the run's layers. */
  image?: string[];
}

/** The layers whose cycles the fit measures (not a code-only one: layers.ts codeOnly). */
export const timed = (l: CalibrationLayer): boolean => l.codeOnly === undefined && l.npuJob === undefined;

/** The layers whose runs on the whole team the fixed costs are measured on (fit.ts fitCosts). */
export const forFixedCosts = (l: CalibrationLayer): boolean => l.fewOutputs === true || l.transfers !== undefined;

const prod = (s: number[]): number => s.reduce((a, b) => a * b, 1);

/**
 * `wide`: a multiplier whose product with the accumulator needs 64 bits (REQUANT_WIDE), as BN-folded layers have;
 * 'split': one below 2^15 at a shift of 24, where the product passes int32 but its halves split at bit 16 do not
 * (REQUANT_SPLIT: MobileNet-class per-channel scales at a shift of 22).
 */
type Wide = boolean | 'split';

function requant(b: OnnxBuilder, x: string, y: string, wide: Wide = false, mul = 37): void {
  // 60000 x a 3x3 depthwise accumulator (up to 9 x 2^14) passes 2^31 too.
  const [m, add, div] = wide === 'split' ? [20000, 0, 2 ** 24] : wide ? [60000, 1 << 27, 2 ** 28] : [mul, 1 << 13, 2 ** 14];
  b.initializer(`${y}_mul`, 'int32', [1], [m]);
  b.initializer(`${y}_add`, 'int32', [1], [add]);
  b.node('RequantShift', [x, `${y}_mul`, `${y}_add`], [y], { div: float(div), n_levels: float(256), signed: float(1) });
}

/**
 * A layer's pair for TRANSFER (team.ts transferByDifference): planned as the calibration plans it, which moves two
 * transfers a tile, and with each transfer a gain to the planner (TRANSFER -30, planner's table only), which then cuts
 * as many tiles along the axes whose runs are short: each tile moves many short runs.
 */
function transferPair(l: CalibrationLayer): CalibrationLayer[] {
  return [{ ...l, transfers: 'few' }, { ...l, name: `${l.name}${MANY_TRANSFERS}`, transfers: 'many', plannedWith: { TRANSFER: -30 } }];
}

/** The layer's firmware run on inputs of zeros: what its costs that follow the data (CLIP_TAKEN) leave. */
function zeroInputs(l: CalibrationLayer): CalibrationLayer {
  return { ...l, name: `${l.name}${ZERO_INPUTS}`, runWith: l.inputs.map((a) => ndarray(a.dtype, a.shape, new Array(sizeOf(a.shape)).fill(0))) };
}

const wideName = (wide: Wide): string => (wide === 'split' ? ' split' : wide ? ' wide' : '');

/** An input: int8 values, uint8 with `unsigned`, or int16 values within +-`int16` (a decoder's attention scores). */
function layer(name: string, inputs: { name: string; shape: number[]; unsigned?: boolean; int16?: number }[], body: (b: OnnxBuilder, rng: Rng) => string): CalibrationLayer {
  const rng = new Rng(name.length * 7919 + name.charCodeAt(0));
  const b = new OnnxBuilder('calibration');
  for (const i of inputs) b.input(i.name, i.int16 ? 'int16' : i.unsigned ? 'uint8' : 'int8', i.shape);
  const y = body(b, rng);
  b.output(y, 'float32');
  return {
    name, builder: b,
    inputs: inputs.map((i) => i.int16 ? ndarray('int16', i.shape, rng.ints(prod(i.shape), -i.int16, i.int16))
      : i.unsigned ? ndarray('uint8', i.shape, rng.ints(prod(i.shape), 0, 255)) : ndarray('int8', i.shape, rng.ints(prod(i.shape), -128, 127))),
  };
}

function conv(c: number, co: number, hw: number, k: number, stride = 1, dw = false, wide: Wide = false, unsigned = false): CalibrationLayer {
  const g = dw ? c : 1;
  return layer(`${dw ? 'dw' : 'conv'}${k}x${k}/${stride} ${c}->${co} ${hw}x${hw}${wideName(wide)}${unsigned ? ' uint8' : ''}`, [{ name: 'x', shape: [1, c, hw, hw], unsigned }], (b, rng) => {
    const w = [co, c / g, k, k];
    b.initializer('w', 'int8', w, rng.ints(prod(w), -128, 127));
    const p = (k - 1) >> 1;
    b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [k, k], pads: [p, p, p, p], strides: [stride, stride], group: g });
    requant(b, 'p', 'y', wide);
    return 'y';
  });
}

/**
 * A depthwise 3x3 layer as BN-folded MobileNets have it: uint8 input (after a ReLU), a bias, per-channel multipliers
 * split at bit 16 (REQUANT_SPLIT) and a uint8 output; the row path's output stage in the form models run it.
 */
function dwFolded(c: number, hw: number, stride: number): CalibrationLayer {
  return layer(`dw3x3/${stride} ${c}->${c} ${hw}x${hw} folded`, [{ name: 'x', shape: [1, c, hw, hw], unsigned: true }], (b, rng) => {
    b.initializer('w', 'int8', [c, 1, 3, 3], rng.ints(c * 9, -128, 127));
    b.initializer('bias', 'int32', [c], rng.ints(c, -4000, 4000));
    b.node('Conv', ['x', 'w', 'bias'], ['p'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [stride, stride], group: c });
    b.initializer('y_mul', 'int32', [1, c, 1, 1], rng.ints(c, 8000, 20000));
    b.initializer('y_add', 'int32', [1], [1 << 21]);
    b.node('RequantShift', ['p', 'y_mul', 'y_add'], ['y'], { div: float(2 ** 22), n_levels: float(256), signed: float(0) });
    return 'y';
  });
}

/**
 * A depthwise 3x3 layer on rows too wide for the plane path's buffer (kernels/dw-plane.ts PLANE_BYTES): the row path
 * with its edge pairs (ROW_EDGE, ROW_EDGE_STRIDED) and its loop over the pairs inside the row (ROW_LOOP).
 */
function dwWide(c: number, h: number, w: number, stride: number): CalibrationLayer {
  return layer(`dw3x3/${stride} ${c}->${c} ${h}x${w} wide rows`, [{ name: 'x', shape: [1, c, h, w] }], (b, rng) => {
    b.initializer('w', 'int8', [c, 1, 3, 3], rng.ints(c * 9, -128, 127));
    b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [3, 3], pads: [1, 1, 1, 1], strides: [stride, stride], group: c });
    requant(b, 'p', 'y');
    return 'y';
  });
}

/** A depthwise 1x3 window (one window row per output row): the row path's MACs apart from its pixel pairs. */
function dwRow(c: number, hw: number): CalibrationLayer {
  return layer(`dw1x3/1 ${c}->${c} ${hw}x${hw}`, [{ name: 'x', shape: [1, c, hw, hw] }], (b, rng) => {
    b.initializer('w', 'int8', [c, 1, 1, 3], rng.ints(c * 3, -128, 127));
    b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [1, 3], pads: [0, 1, 0, 1], strides: [1, 1], group: c });
    requant(b, 'p', 'y');
    return 'y';
  });
}

/**
 * A GEMM on the chip's NPU (`--engines npu`), its requantization there too or, `split`, on the cores (int32 out of the
 * engine: a decoder's projections): the driver's code (key `neureka`), measured for its code only. Without it the key
 * took the median ratio: 517 bytes charged where gcc made 612 (a decoder step's projections on N-EUREKA).
 */
function npuGemm(k: number, n: number, wide: Wide = false): CalibrationLayer {
  return { ...gemm(1, k, n, wide), name: `gemm 1x${k}x${n}${wideName(wide)} on the NPU`, options: { engines: 'npu' }, codeOnly: 'neureka' };
}

/**
 * A pointwise conv on N-EUREKA (`--engines cluster+npu`) in several tiles, for NPU_JOB and NPU_TILE (npu-job.ts): with a bias and
 * per-channel multipliers to uint8 (a BN-folded MobileNet's), the engine writes int32 accumulators that the cores
 * requantize, and the write-backs (four bytes an output) outlast the jobs: the layer runs at the pace of core 0's work
 * between two write-backs; `fused`, one multiplier, the engine requantizes and writes int8.
 */
function npuConv(c: number, co: number, hw: number, fused: boolean): CalibrationLayer {
  const name = `conv1x1 ${c}->${co} ${hw}x${hw} on the NPU${fused ? ' int8 out' : ' int32 out'}`;
  const l = layer(name, [{ name: 'x', shape: [1, c, hw, hw], unsigned: true }], (b, rng) => {
    b.initializer('w', 'int8', [co, c, 1, 1], rng.ints(co * c, -128, 127));
    if (fused) {
      b.node('Conv', ['x', 'w'], ['p'], { kernel_shape: [1, 1], pads: [0, 0, 0, 0], strides: [1, 1], group: 1 });
      requant(b, 'p', 'y');
      return 'y';
    }
    b.initializer('bias', 'int32', [co], rng.ints(co, -4000, 4000));
    b.node('Conv', ['x', 'w', 'bias'], ['p'], { kernel_shape: [1, 1], pads: [0, 0, 0, 0], strides: [1, 1], group: 1 });
    b.initializer('y_mul', 'int32', [1, co, 1, 1], rng.ints(co, 8000, 20000));
    b.initializer('y_add', 'int32', [1], [1 << 21]);
    b.node('RequantShift', ['p', 'y_mul', 'y_add'], ['y'], { div: float(2 ** 22), n_levels: float(256), signed: float(0) });
    return 'y';
  });
  return { ...l, options: { engines: 'cluster+npu' }, npuJob: true, onlyWhere: (t) => t.npu === true };
}

/** `bias`: a C term (Gemm's third input), the output stage's load and add (ELEM_OP, kernels/gemm.ts gemmOutputOps). */
function gemm(m: number, k: number, n: number, wide: Wide = false, bias = false): CalibrationLayer {
  return layer(`gemm ${m}x${k}x${n}${wideName(wide)}${bias ? ' bias' : ''}`, [{ name: 'x', shape: [m, k] }], (b, rng) => {
    b.initializer('w', 'int8', [n, k], rng.ints(n * k, -128, 127));
    if (bias) b.initializer('c', 'int32', [n], rng.ints(n, -4000, 4000));
    b.node('Gemm', bias ? ['x', 'w', 'c'] : ['x', 'w'], ['p'], { transB: 1 });
    requant(b, 'p', 'y', wide);
    return 'y';
  });
}

/** Attention-style MatMul of two activations, B made n-major by its Transpose (frontend/passes/n-major-weights.ts). */
function matmulQK(h: number, s: number, d: number): CalibrationLayer {
  return layer(`matmul q.kT ${h}x${s}x${d}`, [{ name: 'q', shape: [1, h, s, d] }, { name: 'k', shape: [1, h, s, d] }], (b) => {
    b.node('Transpose', ['k'], ['kt'], { perm: [0, 1, 3, 2] });
    b.node('MatMul', ['q', 'kt'], ['p']);
    requant(b, 'p', 'y');
    return 'y';
  });
}

/**
 * A MatMul of two activations with B n-major (its Transpose), M x K times K x N per head: with K not a multiple of 4
 * every other row (K even) or three rows of four (K odd) start off a word (MISALIGNED), and each dot product ends in
 * the C's scalar k tail (MAC_GEMM_TAIL).
 */
function matmulNT(h: number, m: number, k: number, n: number): CalibrationLayer {
  return layer(`matmul a.bT ${h}x${m}x${k}x${n}`, [{ name: 'a', shape: [1, h, m, k] }, { name: 'b', shape: [1, h, n, k] }], (b) => {
    b.node('Transpose', ['b'], ['bt'], { perm: [0, 1, 3, 2] });
    b.node('MatMul', ['a', 'bt'], ['p']);
    requant(b, 'p', 'y');
    return 'y';
  });
}

/**
 * Attention's value product: probabilities [h, s, s] times V [h, s, d] as it comes (B contiguous in n: the C's
 * transposed-B path; a core's whole rows of a head take V's column pairs from copies made once for them (GEMM_BT_QUAD)
 * through the 1x2 loop, a row alone its columns four at a time transposed in registers (MAC_GEMM_KDOT)).
 */
function matmulPV(h: number, s: number, d: number): CalibrationLayer {
  return layer(`matmul p.v ${h}x${s}x${d}`, [{ name: 'p', shape: [1, h, s, s] }, { name: 'v', shape: [1, h, s, d] }], (b) => {
    b.node('MatMul', ['p', 'v'], ['o']);
    requant(b, 'o', 'y');
    return 'y';
  });
}

/** `mul`: the requantization's multiplier (of 2^14): at 32768 about half the sums of two int8 clip (CLIP_TAKEN). */
function add(shape: number[], mul = 37): CalibrationLayer {
  return layer(`add ${shape.join('x')}${mul !== 37 ? ` clipping` : ''}`, [{ name: 'a', shape }, { name: 'b', shape }], (b) => {
    b.node('Add', ['a', 'b'], ['p']);
    requant(b, 'p', 'y', false, mul);
    return 'y';
  });
}

/**
 * A requantization alone, per channel, onto uint8 (a global average pool's after its sum, a standalone RequantShift):
 * an int16 input, an expression of few operations (ELEMENT apart from ELEM_OP and ELEM_LOAD) and one clamp.
 */
function requantAlone(c: number, hw: number): CalibrationLayer {
  const name = `requant ${c} ${hw}x${hw} to uint8`;
  const rng = new Rng(name.length * 7919 + name.charCodeAt(0));
  const b = new OnnxBuilder('calibration');
  const shape = [1, c, hw, hw];
  b.input('x', 'int16', shape);
  b.initializer('y_mul', 'int32', [1, c, 1, 1], rng.ints(c, 1000, 3000));
  b.initializer('y_add', 'int32', [1], [1 << 18]);
  b.node('RequantShift', ['x', 'y_mul', 'y_add'], ['y'], { div: float(2 ** 19), n_levels: float(256), signed: float(0) });
  b.output('y', 'float32');
  return { name, builder: b, inputs: [ndarray('int16', shape, rng.ints(prod(shape), -4000, 4000))] };
}

/**
 * A residual join as MobileNetV2-class networks write it: each branch requantized, added, the sum requantized; one
 * fused expression of three requantizations (ELEM_OP: its operations apart from the element's store and loop).
 */
function residualAdd(shape: number[]): CalibrationLayer {
  return layer(`residual add ${shape.join('x')}`, [{ name: 'a', shape }, { name: 'b', shape }], (b) => {
    requant(b, 'a', 'ra');
    requant(b, 'b', 'rb');
    b.node('Add', ['ra', 'rb'], ['p']);
    requant(b, 'p', 'y');
    return 'y';
  });
}

/**
 * A join of four requantized operands (a decoder's rotary join has four streamed operands and eight per-tensor ones):
 * ELEM_LOAD per streamed operand apart from ELEM_OP, which the joins of two leave traded against ELEMENT.
 */
function join4(shape: number[]): CalibrationLayer {
  return layer(`join of four ${shape.join('x')}`, ['a', 'b', 'c', 'd'].map((name) => ({ name, shape })), (b) => {
    for (const x of ['a', 'b', 'c', 'd']) requant(b, x, `r${x}`);
    b.node('Add', ['ra', 'rb'], ['p1']);
    b.node('Add', ['rc', 'rd'], ['p2']);
    b.node('Add', ['p1', 'p2'], ['p']);
    requant(b, 'p', 'y');
    return 'y';
  });
}

/** The mean (or with `sum` the sum) over each channel's plane (a global average pool): REDUCE_ELEM per value. */
function reduceSum(c: number, hw: number, sum = false): CalibrationLayer {
  return layer(`reduce${sum ? 'sum' : 'mean'} ${c} ${hw}x${hw}`, [{ name: 'x', shape: [1, c, hw, hw] }], (b) => {
    b.node(sum ? 'ReduceSum' : 'ReduceMean', ['x'], ['y'], { axes: [2, 3], keepdims: 1 });
    return 'y';
  });
}

function maxpool(c: number, hw: number, unsigned = false): CalibrationLayer {
  return layer(`maxpool2x2 ${c} ${hw}x${hw}${unsigned ? ' uint8' : ''}`, [{ name: 'x', shape: [1, c, hw, hw], unsigned }], (b) => {
    b.node('MaxPool', ['x'], ['y'], { kernel_shape: [2, 2], strides: [2, 2] });
    return 'y';
  });
}

/** A 3x3 max pool at stride 2, padded by 1 (a ResNet stem's): the C's tap loop with its bound tests (POOL_TAP). */
function maxpool3x3(c: number, hw: number): CalibrationLayer {
  return layer(`maxpool3x3/2 pad 1 ${c} ${hw}x${hw}`, [{ name: 'x', shape: [1, c, hw, hw] }], (b) => {
    b.node('MaxPool', ['x'], ['y'], { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] });
    return 'y';
  });
}

function transpose(shape: number[], perm: number[]): CalibrationLayer {
  return layer(`transpose ${shape.join('x')} [${perm.join(',')}]`, [{ name: 'x', shape }], (b) => {
    b.node('Transpose', ['x'], ['y'], { perm });
    return 'y';
  });
}

/**
 * iSoftmax over rows of `len` (the integer dialect's, coefficients of the test vectors' Softmax folder): the AS charges
 * SOFTMAX_ELEM per entry and DIV twice per entry; the fit holds DIV at its hand count (targets.ts: the two scale
 * together), so SOFTMAX_ELEM takes the whole per-entry cost of the C's three passes.
 */
/**
 * An iSoftmax of 16-bit scores (a decoder's attention) with the coefficients of one of the tiny-llama example's layers,
 * scores within +-`amp`: the range decides the words (kernels/softmax.ts iSoftmaxWords). Each takes z by a multiply
 * by the reciprocal (SOFTMAX_RECIP); +-3000 keeps the words 32-bit, +-32000 takes the exponent chain to 64 bits
 * (SOFTMAX_WIDE: the square of a clipped entry's |xt + 31 log2 + B| passes 2^31; its e, shifted by 31, leaves the row
 * sum in 32 bits). `fine`: the coefficients of scores on a 4x finer scale (log2, B x 4, C x 16): e reaches 2.6e7, so
 * e * 255 and the row sum need 64 bits (SOFTMAX_SUM_WIDE) while the chain stays 32-bit at +-12000.
 */
function softmax16(rows: number, len: number, amp: number, fine = false): CalibrationLayer {
  const what = fine ? ' wide sum' : amp > 20000 ? ' wide chain' : '';
  const k = fine ? 4 : 1;
  return layer(`softmax int16 ${rows}x${len}${what}`, [{ name: 'x', shape: [1, rows, len], int16: amp }], (b) => {
    b.node('iSoftmax', ['x'], ['y'], { coeffA: float(1), coeffB: float(1024 * k), coeffC: float(549684 * k * k), log2: float(525 * k), n_levels: float(256) });
    return 'y';
  });
}

/**
 * An iSoftmax of 16-bit scores within +-`amp` with the coefficients of the tiny-llama example's first two layers
 * (log2 = 1024): a power of two, so z is `-xt / 1024` in the C, gcc's shifts and sign fix (SOFTMAX_ZDIV), no
 * reciprocal; at +-3000 every word is 32-bit.
 */
function softmaxShifts(rows: number, len: number, amp: number): CalibrationLayer {
  return layer(`softmax int16 ${rows}x${len} z by shifts`, [{ name: 'x', shape: [1, rows, len], int16: amp }], (b) => {
    b.node('iSoftmax', ['x'], ['y'], { coeffA: float(1), coeffB: float(1999), coeffC: float(2094201), log2: float(1024), n_levels: float(256) });
    return 'y';
  });
}

/**
 * An iRMSNorm of a decoder's form (int16 entries within +-amp, int16 gains, D = 512): NORM_ROW per row (the division
 * by N, the square root, the reciprocal of std) and NORM_ELEM per entry, the divisions by std multiplies (rmsnorm.c).
 */
function rmsNorm(rows: number, len: number, amp: number): CalibrationLayer {
  return layer(`rmsnorm int16 ${rows}x${len} +-${amp}`, [{ name: 'x', shape: [1, rows, len], int16: amp }], (b, rng) => {
    b.initializer('w', 'int16', [len], rng.ints(len, 8000, 20000));
    b.node('iRMSNorm', ['x', 'w'], ['y'], { D: float(512), n_levels: float(256) });
    return 'y';
  });
}

function softmax(rows: number, len: number): CalibrationLayer {
  return layer(`softmax ${rows}x${len}`, [{ name: 'x', shape: [1, rows, len] }], (b) => {
    b.node('iSoftmax', ['x'], ['y'], { coeffA: float(1), coeffB: float(345), coeffC: float(62395), log2: float(255), n_levels: float(256) });
    return 'y';
  });
}

/**
 * A 256-entry table read by int8 codes (the quantizer's Sigmoid/GELU tables, the QDQ lowering's float chains): the
 * Gather's `lookup` path, LOOKUP per entry. No other class is charged per entry, so the fit sets LOOKUP from this layer
 * alone and leaves the others as they were.
 */
function lookup(shape: number[]): CalibrationLayer {
  return layer(`lookup ${shape.join('x')}`, [{ name: 'x', shape }], (b, rng) => {
    b.initializer('table', 'int8', [256], rng.ints(256, -128, 127));
    b.node('Gather', ['table', 'x'], ['y'], { axis: 0 });
    return 'y';
  });
}

/**
 * A QDQ row op as onnxruntime's format writes it (test/helpers/qdq-rows.ts), lowered by the frontend to its integer
 * op (TableSoftmax, QLayerNorm) with the constants a user's model gets; its inputs random codes of the lowered input's
 * type. Each class of these ops is measured on layers no other class is charged on, so adding them moves no other.
 */
function qdqRow(name: string, form: RowForm): CalibrationLayer {
  const rng = new Rng(name.length * 7919 + name.charCodeAt(0));
  const m = rowModel(rng, form, { act: 'int8', zeroPoints: true, perChannel: false }, 0);
  const g = lowerQuantized(inferGraph(loadOnnxBytes(m.builder.bytes(), `${name}.onnx`))).graph;
  const bytes = encodeModel(g);
  const inputs = g.inputs.map((i) => {
    const t = g.tensors.get(i)!;
    if (!isIntType(t.dtype)) throw new Error(`calibration layer ${name}: input '${i}' is ${t.dtype}, not codes`);
    const [lo, hi] = typeRange(t.dtype);
    return ndarray(t.dtype, t.shape, rng.ints(sizeOf(t.shape), lo, hi));
  });
  return { name, builder: { bytes: () => bytes }, inputs };
}

/**
 * `l` after another layer (a requantized Add of 32 values): the ISS's cycles between the two layers' marks are the
 * skeleton's (SKELETON). Not for the least squares: the second layer finds some of the HAL's code in the instruction
 * cache, which a network's layer after a larger one does not (fitted as a first-layer saving of 200 cycles a core and
 * 220 for a tile loop's HAL, it priced the models' layers 430 cycles low: Siracusa 91 -> 67 of 102 layers within 10 %).
 */
function afterAnother(l: CalibrationLayer): CalibrationLayer {
  return { ...afterLayers([add([1, 8, 2, 2])], l, (_, n) => `first_${n}`), name: `${l.name}${AFTER_ANOTHER}` };
}

/**
 * `l` run after the layers `before`, in that order, each on inputs of its own (their tensors renamed by `prefix`, the
 * layer's index and the name): one run whose last layer is `l`, its name and options kept.
 */
export function afterLayers(before: CalibrationLayer[], l: CalibrationLayer, prefix = (i: number, n: string) => `l${i}_${n}`): CalibrationLayer {
  const graphs = before.map((f) => loadOnnxBytes(f.builder.bytes(), 'first.onnx'));
  const b = loadOnnxBytes(l.builder.bytes(), 'layer.onnx');
  const renamed = graphs.map((a, i) => {
    const own = (n: string): string => (n === '' ? n : prefix(i, n));
    return {
      tensors: [...a.tensors.values()].map((t): [string, Tensor] => [own(t.name), { ...t, name: own(t.name) }]),
      nodes: a.nodes.map((n) => ({ ...n, name: own(n.name), inputs: n.inputs.map(own), outputs: n.outputs.map(own) })),
      inputs: a.inputs.map(own),
      outputs: a.outputs.map(own),
    };
  });
  const g: Graph = {
    name: 'calibration', source: 'calibration.onnx',
    tensors: new Map([...renamed.flatMap((r) => r.tensors), ...b.tensors]),
    nodes: [...renamed.flatMap((r) => r.nodes), ...b.nodes],
    inputs: [...renamed.flatMap((r) => r.inputs), ...b.inputs],
    outputs: [...renamed.flatMap((r) => r.outputs), ...b.outputs],
  };
  const bytes = encodeModel(g);
  // Inputs other than a layer's own (runWith: the zero-input rows) run for it in the composed run too.
  const all = [...before, l];
  const runWith = all.some((x) => x.runWith) ? { runWith: all.flatMap((x) => x.runWith ?? x.inputs) } : {};
  return { ...l, builder: { bytes: () => bytes }, inputs: all.flatMap((x) => x.inputs), ...runWith };
}

/**
 * The layers a network's state is made of (inNetwork): six calibration layers of six kernels (a conv, a pool, a
 * softmax, a norm, a depthwise conv, a transpose), whose code far exceeds the instruction cache's 4 KiB shared level,
 * so that the runtime's and the tile loop's shared code go partly cold between their uses, as in a long network: a
 * head transpose's first piece after them is the decoder step's (1,084 ISS cycles against 1,034-1,124; alone 1,758,
 * after a small Add 908). After six small layers of the same kernels the later layers ran ~260 cycles faster than
 * the step's, and a table fitted there priced the step's layers under the ISS (docs/timing-journal.md "A network's
 * state for the fixed costs").
 */
export const NETWORK_STATE = (): CalibrationLayer[] => [conv(16, 32, 16, 3), maxpool(32, 16), softmax(16, 64), rmsNorm(16, 64, 4000), conv(32, 32, 16, 3, 1, true), transpose([4, 64, 32], [0, 2, 1])];

/**
 * `l` as a network's later layer: after NETWORK_STATE's layers. The team's fixed costs are fitted on these runs' last
 * layer and on the one-layer runs, a run's first layer, which also pays CODE_RUN (runtime/as/cost.ts); the code
 * ratios are scaled by what these runs' layers compile to in a network's image (fit.ts codeImageFactor).
 */
export function inNetwork(l: CalibrationLayer): CalibrationLayer {
  return { ...afterLayers(NETWORK_STATE(), l), name: `${l.name}${IN_A_NETWORK}`, image: [...NETWORK_STATE(), l].map((x) => x.name) };
}

/** The few-output layers that also run in a network's state (inNetwork): those planned as the generator plans. */
export const networkTwins = (layers: CalibrationLayer[]): CalibrationLayer[] =>
  layers.filter((l) => l.fewOutputs === true && l.options === undefined && !l.name.endsWith(AFTER_ANOTHER)).map(inNetwork);

export const CALIBRATION: CalibrationLayer[] = [
  conv(16, 32, 16, 3),
  conv(32, 64, 16, 3),
  conv(64, 32, 8, 3),
  conv(3, 16, 32, 3),
  conv(8, 16, 16, 3, 2),
  // Few and many output channels: the gather's bytes per MAC (1 / output channels) apart from the MACs.
  conv(32, 8, 16, 3),
  conv(16, 128, 8, 3),
  conv(32, 32, 16, 1),
  conv(64, 128, 8, 1),
  // Requantization in 64 bits (REQUANT_WIDE), on a conv and a GEMM.
  conv(16, 32, 16, 3, 1, false, true),
  gemm(16, 64, 64, true),
  // ... and on the row path (BN-folded depthwise layers: MobileNet's): with the two above alone, the plain build's
  // fit traded REQUANT_WIDE against GEMM_BLOCK (0 or 63 cycles an output, depthwise layers 0.6-1.2 off).
  conv(32, 32, 16, 3, 1, true, true),
  // The product split at bit 16 (REQUANT_SPLIT) on the SIMD path, a 1x1 conv, a GEMM and the row path.
  conv(16, 32, 16, 3, 1, false, 'split'),
  conv(64, 64, 8, 1, 1, false, 'split'),
  gemm(16, 64, 64, 'split'),
  conv(32, 32, 16, 3, 1, true, 'split'),
  // Short filters (CONV_UNIT: the SIMD loop's units apart from their MACs and outputs): 3 channels at stride 2.
  conv(3, 16, 16, 3, 2),
  // The row path (CONV_ROW per output row, ROW_WORD per word of an input row read, ROW_EDGE per pixel pair in the
  // padding's columns): depthwise at several widths (2 to 16 pairs a row, of them 1 or 2 at the edges; at stride 2 a
  // word per pixel, at stride 1 one for both; at 4x4 a third of the window rows fall in the padding, read with a zero
  // filter word), and a single input channel.
  conv(32, 32, 16, 3, 1, true),
  conv(64, 64, 4, 3, 1, true),
  dwRow(32, 16),
  conv(64, 64, 8, 3, 1, true),
  conv(16, 16, 32, 3, 2, true),
  conv(32, 32, 8, 3, 2, true),
  // Stride 2 onto an odd width (3x3 out of 6x6): two of its pairs in the padding's columns, one a lone pixel.
  conv(64, 64, 6, 3, 2, true),
  // Rows of one pair, in the padding's columns (2x2 out of 4x4: a row's own cost apart from its edges, which every
  // other layer has two of); rows of three pairs, the last whole (6 wide) and not (7 wide: the lone pixel's dot
  // products dropped); BN-folded layers (bias, per-channel split multipliers, uint8 in and out) at both strides and a
  // few widths. (Measured on the scalar core only until the edge pairs became statements of their own and the row
  // path's classes split by stride and loop, 2026-12-01: before, on Siracusa, they moved its table to 91 of 102.)
  conv(32, 32, 4, 3, 2, true), conv(64, 64, 6, 3, 1, true), conv(32, 32, 7, 3, 1, true),
  dwFolded(64, 5, 1), dwFolded(32, 10, 1), dwFolded(32, 14, 2), dwFolded(16, 24, 1),
  // The row path where rows are too wide for the plane path's buffer (edges at both strides, the loop inside).
  dwWide(4, 4, 256, 1), dwWide(4, 6, 256, 2), dwWide(8, 3, 200, 1),
  conv(1, 16, 32, 3),
  // The scalar loop (MAC_SCALAR): a filter shorter than a word, a depthwise window past a row of 4.
  conv(2, 16, 16, 1),
  conv(64, 64, 3, 3, 1, true),
  // Odd widths: a row's last pixel pair holds one pixel (the SIMD path computes it twice, gathers it unpaired).
  conv(16, 32, 5, 3),
  conv(64, 64, 5, 3, 1, true),
  // and a 1x1 conv's (its paired units gather four channels at a time, its lone ones byte by byte).
  conv(64, 64, 5, 1),
  gemm(64, 256, 128),
  gemm(16, 64, 64),
  // A row taken alone (MAC_GEMM_LONE): a classifier's single row.
  gemm(1, 1024, 64),
  gemm(128, 16, 16),
  // Columns past the four-column groups (the 1x2 loop: MAC_GEMM_COL, GEMM_COL): paired rows, a row alone, a k that
  // is not a multiple of 4 (its tail in C, every other row misaligned), and attention scores over 18 positions.
  gemm(16, 64, 6),
  gemm(1, 256, 10),
  gemm(16, 50, 6),
  matmulQK(4, 18, 16),
  gemm(64, 32, 32, false, true),
  matmulQK(4, 32, 16),
  // k = 2 (attention with a head dimension of 2): the scalar GEMM loop (MAC_GEMM_SCALAR).
  matmulQK(4, 32, 2),
  // k = 4, 16 heads of 16 positions: a small decoder's scores (examples/tiny-llama), one word a dot product.
  matmulQK(16, 16, 4),
  // ... and a decoder step's: one query row per head against 128 cached keys, each row alone (gemmRowPairs). On
  // Siracusa only: on generic's core the fit traded it against the prompt's scores (16x16x4 to 0.87; left).
  { ...matmulNT(16, 1, 4, 128), onlyWhere: (t) => t.clipBranches !== true },
  matmulPV(4, 32, 16),
  matmulPV(8, 32, 2),
  // Whole rows of a batch on a core (the transposed-B path's runs: B's column pairs copied once, GEMM_BT_QUAD): an
  // even head dimension, and an odd one over a k that is not a multiple of 4 (the copy's byte loop, rows off a word).
  matmulPV(2, 40, 10),
  matmulPV(4, 18, 7),
  // B n-major at a k that is not a multiple of 4 (rows off a word, the k tail): two columns per row (the 1x2 loop
  // only), and the 4-column block with an odd k.
  matmulNT(4, 24, 42, 2),
  matmulNT(2, 16, 37, 8),
  add([1, 32, 16, 16]),
  add([1, 8, 8, 8]),
  // Clipping: a cost of cores without p.clip only (on Siracusa it would measure nothing new, and move the others).
  { ...add([1, 16, 16, 16], 32768), onlyWhere: (t) => t.clipBranches === true },
  // The same clamps on zero inputs: every one compares, none branches (CLIP_TEST apart from CLIP_TAKEN).
  { ...zeroInputs(add([1, 16, 16, 16], 32768)), onlyWhere: (t) => t.clipBranches === true },
  residualAdd([1, 32, 16, 16]),
  join4([1, 16, 16, 16]), join4([1, 8, 8, 4]),
  // A requantization alone and on zeros (ELEM_LOAD apart from ELEM_OP; CLIP_TAKEN at a uint8 clamp): measured where
  // the clamp branches; on Siracusa they would move the fitted classes without a class of their own (left).
  { ...requantAlone(64, 8), onlyWhere: (t) => t.clipBranches === true },
  { ...zeroInputs(requantAlone(64, 8)), onlyWhere: (t) => t.clipBranches === true },
  residualAdd([1, 16, 4, 4]),
  maxpool(32, 16),
  maxpool(8, 32),
  // Rows of two outputs (a CNN's last pool): POOL_ROW apart from POOL_TAP.
  maxpool(128, 4),
  // An odd width: each row's last output outside the paired steps (POOL_TAP), and a pool the pairs never take.
  maxpool(16, 15),
  maxpool3x3(16, 16),
  reduceSum(64, 8),
  reduceSum(256, 3),
  transpose([1, 32, 16, 16], [0, 2, 3, 1]),
  transpose([4, 64, 32], [0, 2, 1]),
  // A decoder's head transpose: runs of 4 bytes, moved in words (kernels/copy-words.ts); and runs of 8 and 5 elements
  // (ELEM_RUN apart from MOVE_ELEM: the other transposes run 16 to 64 elements a run).
  transpose([1, 16, 16, 4], [0, 2, 1, 3]), transpose([1, 8, 8, 8], [0, 3, 1, 2]), transpose([6, 5, 24], [2, 0, 1]),
  // A decoder's RMSNorm at three row lengths (NORM_ROW apart from NORM_ELEM).
  rmsNorm(16, 64, 4000), rmsNorm(8, 256, 4000), rmsNorm(32, 16, 30000),
  softmax(16, 64),
  softmax(8, 256),
  // Decoder-like rows of 16-bit scores: 32-bit words, a 64-bit row sum, a 64-bit chain.
  ...[3000, 32000].flatMap((amp) => [softmax16(16, 16, amp), softmax16(8, 64, amp)]),
  softmax16(16, 16, 12000, true), softmax16(8, 64, 12000, true),
  // Their z by gcc's division by a constant (SOFTMAX_ZDIV): log2 a power of two, no reciprocal.
  softmaxShifts(16, 16, 3000), softmaxShifts(8, 64, 3000),
  lookup([1, 64, 64]),
  // The QDQ row ops: a TableSoftmax (rows of 24), and a QLayerNorm at two row lengths (24, 384) for its row and entry.
  qdqRow('tablesoftmax 16x24', 'QDQ Softmax'),
  qdqRow('qlayernorm 16x24', 'QDQ LayerNormalization'),
  qdqRow('qlayernorm 8x384', 'QDQ LayerNormalization (float gain and bias, wide rows)'),
  // The SIMD conv's classes apart: units of one 4x2 block (4 channels) and of eight (32), short and long filters of a
  // 1x1 window (its gather by four channels per unit, GATHER_QUAD), a 3x3 filter of 18 taps (its last word half
  // zeros), MobileNet-class pointwise layers of 8 and 16 channels, an unsigned input.
  conv(8, 4, 16, 1), conv(64, 4, 16, 1), conv(8, 32, 16, 1), conv(2, 4, 16, 3), conv(16, 4, 16, 3), conv(2, 32, 16, 3),
  conv(8, 16, 48, 1, 1, false, 'split'), conv(16, 16, 24, 1), conv(8, 16, 24, 1, 1, false, false, true),
  // Pointwise layers of more input channels than one chunk gathers (144 taps: the late layers of a MobileNet), whose
  // blocks accumulate over two chunks, at an even and an odd width (a row's lone last pixel gathers its byte twice).
  conv(192, 32, 6, 1, 1, false, false, true), conv(256, 64, 3, 1, 1, false, false, true),
  // Layers of a few outputs each, so that a call's own cost (CALL) is set by data and not traded against the
  // per-element classes of large layers (a global average pool's requantization of 64 values cost 0.77 of its charge).
  ...[requantAlone(64, 1), requantAlone(8, 1), add([1, 4, 1, 1]), conv(4, 4, 4, 3), conv(2, 2, 2, 3), conv(4, 4, 2, 1),
    conv(8, 8, 4, 3, 1, true), gemm(1, 16, 4), gemm(2, 8, 4), maxpool(4, 4), reduceSum(4, 2),
    // A decoder step's layers (one token): its projections, a row of 64 and of 256 inputs against weights moved in
    // tiles, and a head transpose of 64 values; larger code than the layers above, so that the cold code's fixed
    // part and its part per byte (CODE_LAYER, CODE_BYTE) are told apart.
    gemm(1, 64, 64), gemm(1, 256, 64), transpose([1, 1, 4, 16], [0, 2, 1, 3]),
    // A residual join of four values: eight operands, nine transfers a tile (the others move two to five), so the
    // driving core's per-transfer programming (TRANSFER) is not traded against a tile's own (TILE).
    residualAdd([1, 4, 1, 1]),
    // ... untiled (a layer's own work and a call's, no tile's), and in several tiles (a tile's and a call's).
    // (Not a requantization of 64 untiled: its L2 accesses' stalls, which the AS charges apart, are most of its cycles.)
    ...[add([1, 4, 1, 1]), gemm(2, 8, 4)].map((l) => ({ ...l, name: `${l.name} untiled`, options: { untiled: true } })),
    ...[requantAlone(64, 1), add([1, 16, 1, 1])].map((l) => ({ ...l, name: `${l.name} small L1`, options: { l1: 48 } })),
    // ... and in tiles of several shapes, each shape a kernel function of its own that every core fetches cold
    // (CODE_SHAPE; the layers above have one shape): three shapes in four tiles, and two in three, at both paths of
    // the SIMD conv and the depthwise one.
    ...([[conv(4, 4, 8, 3), 600], [conv(8, 8, 8, 3, 1, true), 900], [conv(4, 8, 6, 3), 600]] as const).map(([l, l1]) => ({ ...l, name: `${l.name} L1 ${l1}`, options: { l1 } }))]
    .map((l): CalibrationLayer => ({ ...l, fewOutputs: true })),
  // Transposes the planner can cut into the same tiles by rows (two transfers a tile) or by columns (25 and 49 a tile
  // of runs of 2 and 3 bytes): the driving core's programming of a transfer (TRANSFER) by the difference, on the team
  // only. Among the few-output layers it traded against CALL, which the layers of nine transfers a tile and less could
  // not tell it from: a refit put it at 0, and the planner cut a Transpose of 2x24x40 at 1,200 bytes of L1 by columns
  // again (ISS 17,652 cycles against 9,415 by rows, 11,395 on L2).
  ...([[transpose([4, 16, 24], [2, 0, 1]), 900], [transpose([2, 20, 48], [2, 0, 1]), 1200]] as const)
    .flatMap(([l, l1]) => transferPair({ ...l, name: `${l.name} L1 ${l1}`, options: { l1 } })),
  // Four of them after another layer, tiled and untiled (afterAnother): the skeleton's cycles between two layers
  // (SKELETON, fit.ts measuredBetweenLayers). Not among the few-output rows nor the least squares (fit.ts).
  ...[gemm(1, 64, 64), transpose([1, 1, 4, 16], [0, 2, 1, 3]), requantAlone(64, 1)].map(afterAnother),
  ...[add([1, 4, 1, 1])].map((l) => ({ ...afterAnother(l), name: `${l.name} untiled${AFTER_ANOTHER}`, options: { untiled: true } })),
  // The NPU's driver, for its code only (npuGemm): a projection of a decoder step and a wider one of more tiles.
  ...[npuGemm(64, 64), npuGemm(256, 128), npuGemm(64, 64, 'split')].map((l) => ({ ...l, onlyWhere: (t: FitTarget) => t.npu === true })),
  // Core 0's work in an N-EUREKA tile loop (NPU_JOB, NPU_TILE), on the whole team only: int32 write-backs, whose
  // pace NPU_JOB sets, in two sizes, and int8 ones, whose pace the whole loop sets.
  npuConv(32, 32, 24, false), npuConv(64, 64, 16, false), npuConv(32, 32, 24, true),
  // Measured on the scalar core only (on Siracusa they would move its fitted table, whose refit is left):
  ...[
    // uint8 activations (after a ReLU), whose portable lane maximum needs no sign flips (LANE_SIGN): a 2x2 pool; and
    // attention's head transpose (runs of a few elements).
    maxpool(16, 32, true),
    // Rows of two and three paired steps (the others have one, four or eight, so a row's own cost and a pair's traded
    // against each other: a 64-plane 8x8 pool's rows cost 25 cycles where the fit said 10), the second with a height
    // that is not a power of two (the units' odometer, maxpool.c). On Siracusa they put its small layers past 10 %
    // (the calibration tiles them in two, the models' pools run in one: CALL takes both; left).
    maxpool(32, 8), maxpool(24, 12, true),
    // ... and the depthwise row path's (ROW_SIGN: the portable dot product's sign extension of int8 words), at both
    // strides.
    conv(32, 32, 16, 3, 1, true, false, true),
    conv(16, 16, 32, 3, 2, true, false, true),
    conv(32, 32, 10, 3, 2, true, false, true),
    transpose([1, 32, 8, 4], [0, 2, 1, 3]),
    // Sums without a division (an integer global average pool's, its requantization apart): REDUCE_OUT apart from DIV.
    reduceSum(256, 3, true), reduceSum(64, 8, true)]
    .map((l) => ({ ...l, onlyWhere: (t: FitTarget) => t.clipBranches === true })),
];

/** The inputs a calibration layer's runs take (its own unless it names others: runWith). */
export const runInputs = (l: CalibrationLayer): NDArray[] => l.runWith ?? l.inputs;

/** The calibration layers a target measures (a layer may be for some cores only: `onlyWhere`). */
export function calibrationFor(t: FitTarget): CalibrationLayer[] {
  return CALIBRATION.filter((l) => !l.onlyWhere || l.onlyWhere(t));
}
