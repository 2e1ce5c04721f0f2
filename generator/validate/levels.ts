import { attrNumber } from '../ir/attrs.js';
import type { Node } from '../ir/graph.js';
import { rejectNode, shown } from './site.js';

/*
 * n_levels of the integer softmaxes and norms (SEMANTICS.md section 1): their outputs lie in 0..n_levels-1 (iSoftmax,
 * ITAMax), 0..n_levels/2-1 (ITAPartialMax) or the signed range of n_levels (the norms), so n_levels must be an
 * integer of at least 2 (fewer is an empty range, which no output can meet) whose bounds are int32.
 */
const LEVELS: Record<string, { signed: boolean }> = {
  iSoftmax: { signed: false }, ITAMax: { signed: false }, ITAPartialMax: { signed: false },
  iLayerNorm: { signed: true }, iRMSNorm: { signed: true },
};

export function checkLevels(node: Node): void {
  const kind = LEVELS[node.op];
  if (!kind) return;
  const n = attrNumber(node, 'n_levels');
  const max = kind.signed ? 2 ** 32 : 2 ** 31;
  if (!Number.isInteger(n) || n < 2 || n > max) {
    throw rejectNode(node, `n_levels = ${shown(n)}: must be an integer from 2 to ${max} (the output range's bounds are int32)`);
  }
}
