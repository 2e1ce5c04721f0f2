import type { Node } from '../ir/graph.js';
import type { Calibrate } from './clipping.js';

/*
 * The float model seen as units of quantization: each unit is one or a few float nodes that become one integer
 * computation with one requantized output (or, for data movement, none). analyze.ts builds them.
 */

export type Scheme = 'per-tensor' | 'per-channel' | 'pow2';

export interface QuantizeOptions {
  scheme: Scheme;
  calibrate: Calibrate;
  /**
   * Cross-layer equalisation of consecutive linear layers. 'auto' quantizes with and without and keeps the higher
   * output SQNR (the default for per-tensor and pow2 weights; per-channel scales leave it little to fix: off).
   */
  equalize?: boolean | 'auto';
  /** Empirical bias correction, kept only when it raises the output SQNR on the calibration data (default on). */
  biasCorrection?: boolean;
  /** Tokens a step graph's caches hold (stateful.ts); 0: none given. */
  context?: number;
  /**
   * Bits of the requantization multipliers that scale accumulators (quantize/lower.ts): 15 (default) keeps their
   * product with a conv's accumulator in int32 steps on the board; 24 is onnxruntime's float32 precision, with which
   * the QDQ model's lowering equals the integer model exactly.
   */
  multiplierBits?: 15 | 24;
}

/** An activation fused before requantization: it becomes the clip of the requantization. */
export type Activation = { kind: 'none' } | { kind: 'relu' } | { kind: 'clip'; lo: number; hi: number };

interface UnitBase {
  /** Name of the unit's main float node (reports and int node names). */
  name: string;
  /** Every float node the unit stands for. */
  nodes: string[];
  /** The float tensor the unit produces (after its fused activation). */
  out: string;
}

/** Conv, Gemm or MatMul with constant weights, an optional bias (Gemm C, Conv B or a following Add) and activation. */
export interface LinearUnit extends UnitBase {
  kind: 'linear';
  node: Node;
  op: 'Conv' | 'Gemm' | 'MatMul';
  x: string;
  /** Effective float weights (Gemm alpha folded in) in the node's own layout. */
  w: Float64Array;
  wShape: number[];
  /** Axis of wShape that indexes output channels, and the one that indexes input channels (-1: grouped conv). */
  outAxis: number;
  inAxis: number;
  /** Effective float bias per output channel (zeros when the node has none). */
  bias: Float64Array;
  /** The float tensor holding the pre-activation result (bias included): bias correction compares against it. */
  pre: string;
  act: Activation;
  /** Names of the float tensors to overwrite when equalisation rescales the weights and bias. */
  wTensor: string;
  biasTensor?: string;
}

/** MatMul of two activations (attention-style): a scalar requantization. */
export interface MatMulUnit extends UnitBase { kind: 'matmul'; node: Node; a: string; b: string; act: Activation }
/** Add of two activations: each rescaled to the output scale, summed, requantized. */
export interface AddUnit extends UnitBase { kind: 'add'; node: Node; a: string; b: string; act: Activation }
/** GlobalAveragePool (an integer sum and a requantization) or AveragePool (a depthwise conv of ones). */
export interface PoolUnit extends UnitBase { kind: 'gap' | 'avgpool'; node: Node; x: string; act: Activation }
export interface ConcatUnit extends UnitBase { kind: 'concat'; node: Node; inputs: string[] }
export interface SoftmaxUnit extends UnitBase { kind: 'softmax'; node: Node; x: string }
/** Ops whose output keeps the input's scale: MaxPool and data movement. */
export interface PassUnit extends UnitBase { kind: 'pass'; node: Node; x: string }
/** A Relu or Clip that follows no requantizing unit: an integer clip at the input's scale. */
export interface ActUnit extends UnitBase { kind: 'act'; node: Node; x: string; act: Activation }

/*
 * Transformer units (transformer.ts finds them):
 */
/** x / sqrt(mean(x^2) + eps) [* gain] over the last axis -> iRMSNorm with int32 weights gain * D / s_y. */
export interface RmsNormUnit extends UnitBase { kind: 'rmsnorm'; node: Node; x: string; gain: Float64Array }
/**
 * A function of one 8-bit activation (Sigmoid, Tanh, SiLU as x * Sigmoid(x)): a 256-entry table of the outputs,
 * read by Gather with the input codes as indices (negative codes index from the end, as ONNX Gather does).
 */
export interface LutUnit extends UnitBase { kind: 'lut'; node: Node; x: string; fn: (v: number) => number; what: string }
/** x - mean(x) over the last axis (LayerNorm's centring; an RMSNorm unit then normalises it). */
export interface CenterUnit extends UnitBase { kind: 'center'; node: Node; x: string }
/** Mul of two activations: the integer product requantized. */
export interface MulUnit extends UnitBase { kind: 'mul'; node: Node; a: string; b: string }
/** Mul of an activation by a constant tensor (rotary tables) or a negative scalar (Neg): int8 constant, requantized. */
export interface MulConstUnit extends UnitBase {
  kind: 'mulconst';
  node: Node;
  x: string;
  c: Float64Array;
  cShape: number[];
  /** The constant's int8 scale when it is given (rows of a table quantized as a whole: prompt-pass.ts); else its own. */
  cScale?: number;
}
/**
 * Add of a constant. A mask (only 0 and values at or below MASK_BELOW, -inf included) keeps the input's grid and
 * pushes masked entries to the bottom of the range; any other constant is added in the output's grid.
 */
export interface AddConstUnit extends UnitBase { kind: 'addconst'; node: Node; x: string; c: Float64Array; cShape: number[]; mask: boolean }
/** Mul or Div by a positive scalar constant: the integers stay, only the scale changes (attention's 1/sqrt(d)). */
export interface ScaleUnit extends UnitBase { kind: 'scale'; node: Node; x: string; factor: number }
/** Gather of a constant table's rows by runtime indices (an embedding, a rotary table by position): an int8 table. */
export interface EmbedUnit extends UnitBase { kind: 'embed'; node: Node; table: Float64Array; tableShape: number[]; indices: string }

/** CacheWrite(cache, x, pos) of a stateful graph (stateful.ts): the cache takes x's grid, so a row is stored as is. */
export interface CacheUnit extends UnitBase {
  kind: 'cache';
  node: Node;
  x: string;
  cache: string;
  /** A constant first row (the prompt pass writes rows 0..P-1, prompt-pass.ts); else the position input. */
  row?: number;
}
/** PositionMask(x, pos): x's grid, the hidden entries at the bottom of its range. */
export interface PosMaskUnit extends UnitBase { kind: 'posmask'; node: Node; x: string }

/** An additive constant at or below this is a mask entry (exporters use -inf, the dtype's lowest, or -1e4..-1e9). */
export const MASK_BELOW = -1e4;

export type Unit =
  | LinearUnit | MatMulUnit | AddUnit | PoolUnit | ConcatUnit | SoftmaxUnit | PassUnit | ActUnit
  | RmsNormUnit | CenterUnit | LutUnit | MulUnit | MulConstUnit | AddConstUnit | ScaleUnit | EmbedUnit | CacheUnit | PosMaskUnit;

/** Units whose output gets its own scale from calibration (the others inherit or fix theirs). */
export function isQuantPoint(u: Unit): boolean {
  return u.kind !== 'pass' && u.kind !== 'act' && u.kind !== 'scale' && !(u.kind === 'addconst' && u.mask) && u.kind !== 'embed' && u.kind !== 'cache'
    && u.kind !== 'posmask';
}
