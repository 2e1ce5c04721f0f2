import { GenError } from '../errors.js';
import { attrInt } from '../ir/attrs.js';
import { producerOf, type Graph, type Node } from '../ir/graph.js';
import { checkLevels } from './levels.js';
import { checkRequant } from './requant.js';
import { INT32_MAX, INT32_MIN, isInt32, rejectNode, shown } from './site.js';
import { checkTensorSize } from './sizes.js';
import { checkWindow } from './windows.js';

/*
 * The load-time half of model validation: every attribute and constant whose domain SEMANTICS.md fixes is checked
 * before inference, so a value outside it is a one-line error naming the node, on every platform alike, instead of
 * a hang, a crash or firmware that does not build or disagrees with the reference. The half that needs inferred
 * types and ranges is types.ts.
 */
export function checkAttributes(g: Graph): void {
  for (const name of g.inputs) {
    const t = g.tensors.get(name);
    if (t) checkTensorSize(t);
  }
  const producers = producerOf(g);
  for (const node of g.nodes) {
    try {
      checkWindow(g, node);
      checkRequant(g, node, producers);
      checkLevels(node);
      checkMatMul(node);
      checkInt32Attributes(node);
      DOMAIN_CHECKS.get(node.op)?.(node);
    } catch (e) {
      // Attribute accessors throw GenErrors naming the node; anything else is still this node's attribute.
      if (e instanceof GenError) throw e;
      throw new GenError('model', (e as Error).message, { node: node.name, op: node.op });
    }
  }
}

/**
 * ONNX MatMul has no attributes; transA/transB on it are the generator's own annotation of an n-major B
 * (frontend/passes/n-major-weights.ts), which the GEMM kernel reads. A model's MatMul carrying them would
 * be run transposed by the firmware and as written by the reference (a fuzz finding: transB = 1e15 on generic).
 */
function checkMatMul(node: Node): void {
  if (node.op !== 'MatMul' || node.domain) return;
  const given = ['transA', 'transB'].filter((a) => node.attrs[a] !== undefined);
  if (given.length > 0) throw new GenError('model', `MatMul takes no ${given.join(' or ')} attribute (ONNX MatMul has none: use Gemm)`, { node: node.name, op: node.op });
}

/**
 * The integer-dialect attributes that enter the kernels' int32 arithmetic as constants (SEMANTICS.md: iHardswish,
 * iGELU and IntegerDiv compute in int32): each must be one integer in int32's range. The attribute accessors take the
 * first element of a list, and 1e30 passes Number.isInteger: a fuzz mutation gave iHardswish `three` = [1e30, -inf,
 * 7, -inf], the reference added 1e30 in doubles and the firmware another constant (Siracusa: outputs differed).
 */
const INT32_ATTRIBUTES: Record<string, string[]> = {
  iHardswish: ['one_over_six', 'three', 'six'],
  iGELU: ['b', 'one'],
  IntegerDiv: ['Delta', 'eps', 'eta'],
  iSoftmax: ['coeffA', 'coeffB', 'coeffC', 'log2'],
  TableSoftmax: ['mul', 'shift', 'zero_point', 'lo', 'hi'],
  QLayerNorm: ['eps', 'frac', 'shift', 'zero_point', 'lo', 'hi'],
};

function checkInt32Attributes(node: Node): void {
  for (const name of INT32_ATTRIBUTES[node.op] ?? []) {
    const a = node.attrs[name];
    if (a === undefined) continue; // a missing one is the accessor's error, where the op reads it
    const values = a.kind === 'int' || a.kind === 'float' ? [a.value] : a.kind === 'ints' || a.kind === 'floats' ? a.value : a.kind === 'tensor' ? Array.from(a.value.data) : undefined;
    if (!values || values.length !== 1) {
      throw rejectNode(node, `attribute '${name}' must be one integer${values ? `, not ${values.length} values` : ''}`);
    }
    if (!isInt32(values[0])) throw rejectNode(node, `attribute '${name}' = ${shown(values[0])}: must be an integer from ${INT32_MIN} to ${INT32_MAX}`);
  }
}

/**
 * iSoftmax's exponent polynomial e = (coeffA*(p + coeffB)^2 + coeffC) >> z must be >= 0 for every p and positive at a
 * row's maximum (p = 0), or its outputs leave the unsigned 0..n_levels-1 that SEMANTICS.md gives them and the row sum
 * may be 0; log2 divides. So coeffA >= 0, coeffC >= 0, coeffA*coeffB^2 + coeffC >= 1 and log2 >= 1 (a fuzz mutation,
 * coeffA = -1 on Kernels/Integer/Softmax/Large: the reference gave negative outputs, every platform's firmware others).
 */
function checkSoftmaxCoefficients(node: Node): void {
  const [a, b, c, log2] = ['coeffA', 'coeffB', 'coeffC', 'log2'].map((k) => attrInt(node, k));
  const why = a < 0 ? `coeffA = ${a} is negative` : c < 0 ? `coeffC = ${c} is negative` : log2 < 1 ? `log2 = ${log2} is below 1`
    : a * b * b + c < 1 ? `coeffA*coeffB^2 + coeffC = ${shown(a * b * b + c)} is below 1 (the row maximum's term)` : undefined;
  if (why) throw rejectNode(node, `${why}: the exponent polynomial must be >= 0 everywhere and >= 1 at a row's maximum (SEMANTICS.md, iSoftmax)`);
}

/**
 * QLayerNorm scales by 4^frac and divides by r*2^shift (docs/quantized-onnx.md): both counts must be >= 0. A negative
 * one made the reference scale by a fraction and the kernel's 64-bit bound throw a RangeError, which reached the user
 * as "undefined must be positive" (found beside fuzz seed 4404).
 */
function checkQLayerNormShifts(node: Node): void {
  for (const k of ['frac', 'shift']) {
    const v = attrInt(node, k);
    if (v < 0) throw rejectNode(node, `${k} = ${v} is negative: QLayerNorm scales by 4^frac and divides by 2^shift`);
  }
}

/**
 * iHardswish clips x + three to [0, six] (SEMANTICS.md): six < 0 leaves no interval, and the reference's clip and the
 * kernels' (max then min, or min then max) disagree on it (a fuzz mutation, seed 4404: six = -1530 on
 * Kernels/Integer/Hardswish/Regular_RQ, outputs differed on generic with exit 0). Refused at load.
 */
function checkHardswishSix(node: Node): void {
  const six = attrInt(node, 'six');
  if (six < 0) throw rejectNode(node, `six = ${six} is negative: iHardswish clips x + three to [0, six]`);
}

/** The ops whose attributes have a domain beyond one int32 each (SEMANTICS.md), and its check (a Map: op names come from the model). */
const DOMAIN_CHECKS = new Map<string, (node: Node) => void>([
  ['iSoftmax', checkSoftmaxCoefficients],
  ['QLayerNorm', checkQLayerNormShifts],
  ['iHardswish', checkHardswishSix],
]);
