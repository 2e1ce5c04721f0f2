/**
 * A layer as the Tangram cost model sees it (nn_dataflow's ConvLayer / FCLayer / LocalRegionLayer / eltwise, in its
 * own words here): output channels `k` of an `h` x `w` map from `c` input channels through `r` x `s` windows at
 * `stride`. A fully connected layer is a conv with h = w = r = s = 1; pooling and element-wise layers are per channel
 * (c = k, no filters). `inputs` are the indices of earlier layers it reads (none: the network's input, in DRAM).
 */
export type LayerKind = 'conv' | 'fc' | 'pool' | 'eltwise';

export interface LayerShape {
  name: string;
  kind: LayerKind;
  c: number;
  k: number;
  h: number;
  w: number;
  r: number;
  s: number;
  stride: number;
  inputs: number[];
  /**
   * Why the layer cannot be pipelined with others (the engines cannot compute it inside a segment program:
   * segment-functions.ts); absent: it can. Such a layer is a segment of its own.
   */
  alone?: string;
  /**
   * The int32 accumulators the layer holds inside a segment program (a product with a fused requantization: its
   * outputs); a segment's layers share the engine model's MAX_SEGMENT_ACCUMULATORS (segment.ts).
   */
  accumulators?: number;
}

/** Operands of an element-wise layer (an Add of two maps reads two); every other layer reads one map. */
export function operandsOf(l: LayerShape): number {
  return l.kind === 'eltwise' ? Math.max(1, l.inputs.length) : 1;
}

/** Filters exist only for conv and fc: the others are per channel, c follows k. */
export function hasFilters(l: LayerShape): boolean {
  return l.kind === 'conv' || l.kind === 'fc';
}

/**
 * Arithmetic operations of the layer over a batch: MACs for conv/fc; one operation per window tap (pool) or per
 * operand (element-wise) for the others (ASSUMPTION: each priced as one MAC, nn_dataflow's --op-cost covers every
 * arithmetic operation).
 */
export function opsOf(l: LayerShape, batch: number): number {
  const outputs = batch * l.k * l.h * l.w;
  if (hasFilters(l)) return outputs * l.c * l.r * l.s;
  if (l.kind === 'pool') return outputs * l.r * l.s;
  return outputs * operandsOf(l);
}

/** Words of the layer's output over the batch (what a consumer reads). */
export function ofmWords(l: LayerShape, batch: number): number {
  return batch * l.k * l.h * l.w;
}

/** Shorthands for building layer lists (the bench networks, the tests). */
export function conv(name: string, c: number, k: number, hw: number, rs: number, stride: number, inputs: number[]): LayerShape {
  return { name, kind: 'conv', c, k, h: hw, w: hw, r: rs, s: rs, stride, inputs };
}

export function fc(name: string, c: number, k: number, inputs: number[]): LayerShape {
  return { name, kind: 'fc', c, k, h: 1, w: 1, r: 1, s: 1, stride: 1, inputs };
}

export function pool(name: string, k: number, hw: number, rs: number, stride: number, inputs: number[]): LayerShape {
  return { name, kind: 'pool', c: k, k, h: hw, w: hw, r: rs, s: rs, stride, inputs };
}

export function eltwise(name: string, k: number, hw: number, inputs: number[]): LayerShape {
  return { name, kind: 'eltwise', c: k, k, h: hw, w: hw, r: 1, s: 1, stride: 1, inputs };
}
