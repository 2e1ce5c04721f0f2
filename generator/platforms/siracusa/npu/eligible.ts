// Which nodes N-EUREKA can run (HARDWARE.md "N-EUREKA NPU": 1x1, 3x3 and 3x3 depthwise convolutions, stride 1,
// padding 0..2 per side, int8/uint8 activations, 2..8-bit weights), and the node's convolution in NHWC terms.

import { attrInt, attrInts, attrNumber } from '../../../ir/attrs.js';
import { isSigned, isIntType, type IntType } from '../../../ir/dtype.js';
import type { Graph, Node } from '../../../ir/graph.js';
import { tensorOf } from '../../../ir/graph.js';
import { sizeOf } from '../../../ir/ndarray.js';
import { weightBits, type NpuMode } from './weights.js';

/** A convolution the engine can run, before layout changes: weights as w(co, ci, tap). */
export interface NpuCandidate {
  kind: 'conv' | 'gemm';
  mode: NpuMode;
  bits: number;
  cin: number;
  cout: number;
  /** Output pixels: rows and columns (GEMM rows are folded into a rows x cols grid). */
  ho: number;
  wo: number;
  pads: { top: number; left: number; bottom: number; right: number };
  weight: (co: number, ci: number, tap: number) => number;
  /** Weights of one output channel, for the accumulator bound. */
  channelWeights: (co: number) => number[];
  bias?: number[];
  macs: number;
}

export type Eligibility = { ok: true; c: NpuCandidate } | { ok: false; why: string };

const no = (why: string): Eligibility => ({ ok: false, why });

function activationOk(g: Graph, name: string): string | null {
  const t = tensorOf(g, name);
  if (t.data) return 'the activation input is a constant';
  if (t.dtype !== 'int8' && t.dtype !== 'uint8') return `activations are ${t.dtype} (the NPU reads int8/uint8)`;
  return null;
}

function constData(g: Graph, name: string | undefined): Float64Array | undefined {
  if (!name) return undefined;
  return tensorOf(g, name).data?.data;
}

/**
 * Rows x columns for P GEMM rows: the engine works on 6 x 6 pixel subtiles, so P rows laid out as one row of
 * pixels would use a sixth of each subtile. Any factorisation is free (the bytes do not move): take the one that
 * needs the fewest subtiles, then the squarest.
 */
export function gemmGrid(p: number): { ho: number; wo: number } {
  let best = { ho: 1, wo: p, subtiles: Infinity };
  for (let wo = 1; wo <= p; wo++) {
    if (p % wo) continue;
    const ho = p / wo;
    const subtiles = Math.ceil(ho / 6) * Math.ceil(wo / 6);
    if (subtiles < best.subtiles || (subtiles === best.subtiles && Math.abs(ho - wo) < Math.abs(best.ho - best.wo))) {
      best = { ho, wo, subtiles };
    }
  }
  return { ho: best.ho, wo: best.wo };
}

export function npuEligible(n: Node, g: Graph): Eligibility {
  if (n.op === 'Conv') return convEligible(n, g);
  if (n.op === 'Gemm' || n.op === 'MatMul') return gemmEligible(n, g);
  return no(`${n.op} is not a convolution or GEMM`);
}

function convEligible(n: Node, g: Graph): Eligibility {
  const x = tensorOf(g, n.inputs[0]);
  const w = tensorOf(g, n.inputs[1]);
  const y = tensorOf(g, n.outputs[0]);
  if (x.shape.length !== 4) return no('only 2-D convolutions');
  if (x.shape[0] !== 1) return no('batch > 1');
  const bad = activationOk(g, n.inputs[0]);
  if (bad) return no(bad);
  if (!w.data || !isIntType(w.dtype)) return no('weights are not integer constants');
  const [CO, CIG, KH, KW] = w.shape;
  const C = x.shape[1];
  const group = attrInt(n, 'group', 1);
  const strides = attrInts(n, 'strides', [1, 1]);
  const dil = attrInts(n, 'dilations', [1, 1]);
  const pads = attrInts(n, 'pads', [0, 0, 0, 0]);
  const autoPad = n.attrs.auto_pad;
  if (autoPad?.kind === 'string' && autoPad.value !== 'NOTSET') return no(`auto_pad ${autoPad.value}`);
  if (strides.some((s) => s !== 1)) return no(`stride ${strides.join('x')} (the NPU runs stride 1)`);
  if (dil.some((d) => d !== 1)) return no('dilation');
  if (KH !== KW || (KH !== 1 && KH !== 3)) return no(`${KH}x${KW} kernel (the NPU runs 1x1 and 3x3)`);
  const dw = group > 1;
  if (dw && !(group === C && CIG === 1 && CO === C && KH === 3)) return no('grouped convolution other than 3x3 depthwise');
  if (pads.some((p) => p > 2)) return no('padding above 2');
  if (KH === 1 && pads.some((p) => p > 0)) return no('padded 1x1 convolution');
  const bits = weightBits(w.data.data);
  const per = CIG * KH * KW;
  const wd = w.data.data;
  const mode: NpuMode = dw ? '3x3dw' : KH === 3 ? '3x3' : '1x1';
  const cin = dw ? CO : CIG;
  return {
    ok: true,
    c: {
      kind: 'conv', mode, bits, cin, cout: CO, ho: y.shape[2], wo: y.shape[3],
      pads: { top: pads[0], left: pads[1], bottom: pads[2], right: pads[3] },
      weight: dw ? (co, _ci, tap) => wd[co * 9 + tap] : (co, ci, tap) => wd[co * per + ci * KH * KW + tap],
      channelWeights: (co) => Array.from(wd.subarray(co * per, (co + 1) * per)),
      bias: n.inputs[2] ? Array.from(constData(g, n.inputs[2]) ?? []) : undefined,
      macs: sizeOf(y.shape) * per,
    },
  };
}

function gemmEligible(n: Node, g: Graph): Eligibility {
  const a = tensorOf(g, n.inputs[0]);
  const b = tensorOf(g, n.inputs[1]);
  const bad = activationOk(g, n.inputs[0]);
  if (bad) return no(bad);
  if (!b.data || b.shape.length !== 2 || !isIntType(b.dtype)) return no('B is not a constant 2-D integer matrix');
  if (n.op === 'Gemm') {
    if (attrInt(n, 'transA', 0) !== 0) return no('transA');
    if (attrNumber(n, 'alpha', 1) !== 1 || (n.inputs[2] && attrNumber(n, 'beta', 1) !== 1)) return no('alpha or beta other than 1');
  }
  const transB = attrInt(n, 'transB', 0) !== 0; // MatMul too: an n-major constant B (frontend/passes/n-major-weights.ts)
  const [K, N] = transB ? [b.shape[1], b.shape[0]] : b.shape;
  if (a.shape[a.shape.length - 1] !== K) return no('A and B do not meet');
  const bias = constData(g, n.inputs[2]);
  if (n.inputs[2] && (!bias || bias.length !== N && bias.length !== 1)) return no('bias is not a constant per column');
  const p = sizeOf(a.shape) / K;
  const bd = b.data.data;
  const weight = transB ? (co: number, ci: number) => bd[co * K + ci] : (co: number, ci: number) => bd[ci * N + co];
  const grid = gemmGrid(p);
  return {
    ok: true,
    c: {
      kind: 'gemm', mode: '1x1', bits: weightBits(bd), cin: K, cout: N, ho: grid.ho, wo: grid.wo,
      pads: { top: 0, left: 0, bottom: 0, right: 0 },
      weight,
      channelWeights: (co) => Array.from({ length: K }, (_, ci) => weight(co, ci)),
      bias: bias ? Array.from({ length: N }, (_, c) => bias[bias.length === 1 ? 0 : c]) : undefined,
      macs: p * K * N,
    },
  };
}

export function isSignedActivation(g: Graph, name: string): boolean {
  return isSigned(tensorOf(g, name).dtype as IntType);
}
