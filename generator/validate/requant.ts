import { attrNumber, hasAttr } from '../ir/attrs.js';
import type { Graph, Node } from '../ir/graph.js';
import { foldTrueIntegerDiv, trueIntegerDivCoeff, trueIntegerDivParams } from '../reference/ops/true-integer-div.js';
import { INT32_MAX, INT32_MIN, isInt32, rejectNode, shown } from './site.js';

/*
 * RequantShift's domain (SEMANTICS.md section 1), as the emitted arithmetic holds it exactly:
 * - div a power of two from 1 to 2^31: s = log2(div) from 0 to 31. Kernels shift the 64-bit sum
 *   acc*mul + add + 2^(s-1), and a shift by 64 or more is undefined in C (and differs between cores); 2^31 keeps the
 *   rounding term 2^(s-1) an int32 too.
 * - mul and add integers within int32: kernels load them into int32 locals. With acc, mul and add in int32,
 *   |acc*mul + add + 2^(s-1)| <= 2^62 + 2^31 + 2^30 < 2^63, so the 64-bit sum is exact for every input
 *   (backend/expr.ts widens to 64 bits exactly where the interval needs it). Fractions are not rounded silently.
 * - n_levels an integer from 2 (one level is no range) to 2^32 signed / 2^31 unsigned (the clip bounds are int32);
 *   signed is 0 or 1.
 * A RequantShift that reads a TrueIntegerDiv runs with the folded mul' and div' (SEMANTICS.md): those are checked.
 */
const MAX_SHIFT = 31;

function requantReject(node: Node, reason: string, via?: Node): Error {
  return rejectNode(node, via ? `${reason} (after folding TrueIntegerDiv '${via.name}' into it)` : reason);
}

function checkDiv(node: Node, div: number, via?: Node): void {
  const s = Math.log2(div);
  if (!Number.isFinite(div) || !Number.isInteger(s) || s < 0 || s > MAX_SHIFT) {
    throw requantReject(node, `div = ${shown(div)}: must be a power of two from 1 to 2^${MAX_SHIFT}`, via);
  }
}

function checkLevels(node: Node): void {
  const key = hasAttr(node, 'n_levels') ? 'n_levels' : 'n_levels_out';
  const n = attrNumber(node, key);
  const signed = attrNumber(node, 'signed', 1);
  if (signed !== 0 && signed !== 1) throw rejectNode(node, `signed = ${shown(signed)}: must be 0 or 1`);
  const max = signed ? 2 ** 32 : 2 ** 31;
  if (!Number.isInteger(n) || n < 2 || n > max) {
    throw rejectNode(node, `${key} = ${shown(n)}: must be an integer from 2 to ${max} (${signed ? 'signed' : 'unsigned'} int32 clip bounds)`);
  }
}

function checkParam(g: Graph, node: Node, i: number, what: string, values?: ArrayLike<number>, via?: Node): void {
  const data = values ?? g.tensors.get(node.inputs[i] ?? '')?.data?.data;
  if (!data) return; // a computed parameter: kernels refuse it (requantization parameters must be constants)
  for (let k = 0; k < data.length; k++) {
    if (!isInt32(data[k])) {
      throw requantReject(node, `${what}[${k}] = ${shown(data[k])}: must be an integer from ${INT32_MIN} to ${INT32_MAX}`, via);
    }
  }
}

function checkTrueIntegerDiv(node: Node): void {
  const p = trueIntegerDivParams(node);
  for (const [k, v] of Object.entries(p)) if (!Number.isFinite(v)) throw rejectNode(node, `attribute '${k}' = ${shown(v)}: must be finite`);
  const den = p.y * p.eta + p.eps;
  if (den === 0) throw rejectNode(node, `y*eta + eps = 0: division by zero`);
  const coeff = trueIntegerDivCoeff(p);
  if (!isInt32(coeff)) throw rejectNode(node, `coefficient floor(Delta*eta / (y*eta + eps))*256 = ${shown(coeff)}: must be an int32`);
}

export function checkRequant(g: Graph, node: Node, producers: Map<string, Node>): void {
  if (node.op === 'TrueIntegerDiv') return checkTrueIntegerDiv(node);
  if (node.op !== 'RequantShift') return;
  checkLevels(node);
  const div = attrNumber(node, 'div');
  checkDiv(node, div);
  checkParam(g, node, 1, 'mul');
  checkParam(g, node, 2, 'add');
  const tid = producers.get(node.inputs[0] ?? '');
  if (tid?.op !== 'TrueIntegerDiv') return;
  checkTrueIntegerDiv(tid);
  const p = trueIntegerDivParams(tid);
  checkDiv(node, foldTrueIntegerDiv(p, 0, div).div, tid);
  const mul = g.tensors.get(node.inputs[1] ?? '')?.data?.data;
  if (mul) checkParam(g, node, 1, 'mul', Array.from(mul, (m) => foldTrueIntegerDiv(p, m, div).mul), tid);
}
