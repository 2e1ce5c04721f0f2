import type { DType, IntRange } from './dtype.js';
import type { NDArray } from './ndarray.js';

/** Attribute values as the IR keeps them: protobuf types never leave generator/onnx. */
export type AttrValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: number[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'strings'; value: string[] }
  | { kind: 'tensor'; value: NDArray };

/**
 * Integer requantization applied to a value: clip((v*mul + add + round) >> shift, min, max), with round =
 * 2^(shift-1) when shift > 0 (SEMANTICS.md, RequantShift). mul and add name constant tensors.
 */
export interface Requant {
  mul: string;
  add: string;
  shift: number;
  min: number;
  max: number;
}

/** Elementwise expression over a fused node's inputs (see frontend/passes/fuse-elementwise.ts). */
export type Expr =
  | { k: 'in'; i: number }
  | { k: 'const'; v: number }
  // `bound`: a range the value is proven to keep, tighter than the operands' intervals give (the low half word
  // of a split product: backend/expr.ts splitRequantExpr); the emitter intersects the two. `split`: the sum is a
  // product split at bit 16, ah*m + ((al*m + c) >> 16) (splitRequantExpr), which the C takes as fg_mulsplit.
  | { k: 'add' | 'sub' | 'mul' | 'tdiv' | 'min' | 'max'; a: Expr; b: Expr; bound?: IntRange; split?: true }
  | { k: 'shr'; a: Expr; s: number }
  | { k: 'clip'; a: Expr; lo: number; hi: number }
  | { k: 'abs' | 'sign' | 'signp' | 'wrap8'; a: Expr };

export interface Node {
  /** Unique within the graph (the loader names unnamed nodes). */
  name: string;
  op: string;
  domain: string;
  /** Input tensor names; '' marks an omitted optional input. */
  inputs: string[];
  outputs: string[];
  attrs: Record<string, AttrValue>;
  /** Set by the lowering passes on fused nodes: requantization of the op's int32 result. */
  requant?: Requant;
  /** Set on op 'Elementwise' (domain firmgen): the fused expression; inputs are its leaves. */
  expr?: Expr;
  /** Names of the original nodes a fused node stands for (profile, error messages). */
  fusedFrom?: string[];
  /** Set on op 'NeurekaConv' (domain firmgen): the NPU job the node runs (generator/platforms/siracusa/npu/). */
  npu?: NpuJob;
  /** Why the node runs on the engine it runs on (engine selection; shown in the manifest). */
  engineNote?: string;
  /**
   * Set on the tile instances of a dense Conv whose weights sit in L1 with padded filter rows, or of a Gemm/MatMul
   * whose B does (midend/tiling/filter-layout.ts): weight elements from one output channel's filter to the next
   * (conv), from one row of B to the next (GEMM: k rows, or n rows with transB). Absent: the dense layout
   * (CIG x KH x KW; B's last dim).
   */
  filterStride?: number;
}

/** A convolution as N-EUREKA runs it: NHWC input and output, weights already in the engine's format. */
export interface NpuJob {
  mode: '3x3' | '3x3dw' | '1x1';
  bits: number;
  signedInput: boolean;
  /** Weights read from the neural memory (NMS SRAM) instead of L1. */
  wmem: boolean;
  pads: { top: number; left: number; bottom: number; right: number };
  stage: { normQuant: boolean; scale32: boolean; bias: boolean; relu: boolean; shift: number };
  cin: number;
  cout: number;
}

export interface Tensor {
  name: string;
  shape: number[];
  /** Device type after inference; what the model file declared before it. */
  dtype: DType;
  /** Inferred value range of an integer tensor (drives the device type). */
  range?: IntRange;
  /** Constant data (initializers and Constant nodes). */
  data?: NDArray;
  /** A graph input read as a position: its values must lie in [0, limit) (validate/positions.ts). */
  limit?: number;
}

export interface Graph {
  name: string;
  /** Model file the graph came from, for error messages. */
  source: string;
  tensors: Map<string, Tensor>;
  /** Nodes in a valid execution (topological) order. */
  nodes: Node[];
  /** Graph inputs that are not constants, in declaration order. */
  inputs: string[];
  outputs: string[];
}

export function tensorOf(g: Graph, name: string): Tensor {
  const t = g.tensors.get(name);
  if (!t) throw new Error(`graph ${g.name}: no tensor '${name}'`);
  return t;
}

export function isConstant(g: Graph, name: string): boolean {
  return g.tensors.get(name)?.data !== undefined;
}

/** Map from tensor name to the nodes that read it. */
export function consumersOf(g: Graph): Map<string, Node[]> {
  const m = new Map<string, Node[]>();
  for (const n of g.nodes) {
    for (const i of n.inputs) {
      if (!i) continue;
      const list = m.get(i);
      if (list) list.push(n);
      else m.set(i, [n]);
    }
  }
  return m;
}

export function producerOf(g: Graph): Map<string, Node> {
  const m = new Map<string, Node>();
  for (const n of g.nodes) for (const o of n.outputs) m.set(o, n);
  return m;
}

/** A shallow copy whose node list and tensor map may be edited without touching the original. */
export function cloneGraph(g: Graph): Graph {
  return {
    ...g,
    tensors: new Map([...g.tensors].map(([k, t]) => [k, { ...t, shape: [...t.shape] }])),
    nodes: g.nodes.map((n) => ({ ...n, inputs: [...n.inputs], outputs: [...n.outputs], attrs: { ...n.attrs } })),
    inputs: [...g.inputs],
    outputs: [...g.outputs],
  };
}
