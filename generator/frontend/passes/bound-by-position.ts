import { attrString } from '../../ir/attrs.js';
import type { Graph, Node } from '../../ir/graph.js';
import { consumersOf, producerOf, tensorOf } from '../../ir/graph.js';
import { soleConsumer } from '../edit.js';

/*
 * A decoder step's attention spans the cache rows written so far: its iSoftmax carries the run-time position (the
 * quantizer folds PositionMask into it) and reads entries 0..pos of each row, writing 0 past them. The two MatMuls
 * around it can stop there too, and then the step costs what the rows written so far cost, not the whole window:
 *   - scores = MatMul(q, K^T) read only by that softmax: columns past pos are never read. The kernel computes
 *     columns 0..pos and writes 0 past them (attribute position_bound 'n'). No graph output changes: the softmax
 *     is the columns' only reader and ignores them.
 *   - out = MatMul(probs, V) whose A is that softmax's output: A's entries past pos are 0, so the products past pos
 *     add nothing and the k loop stops at pos (position_bound 'k'). Exact for every output element.
 * The position tensor becomes the MatMul's fourth input (the third, the bias, '' when absent), so the tiler moves it
 * into L1 with the tile and the planner keeps it alive. The bound is min(max(pos + 1, 1), extent), the softmax's.
 *
 * The zeros past the position are read by nobody when the scores' one reader is that softmax, and when the
 * softmax's readers are all value products bounded along k (neither a graph output): then the MatMul and the
 * softmax skip writing them (attribute fill_past 0). At a long context that fill was most of the attention's cost
 * (context 2048, position 6: of the softmax's 27,028 cycles a layer about 18,000 were the zeros' stores). Every
 * output stays exact (K and the bounded N are never split across tiles, midend/tiling/specs.ts, and the kernels'
 * loops stop at the bound, their SIMD parts included); the skipped entries keep what the buffer held.
 */
export const POSITION_BOUND_INPUT = 3;

/** The axis a MatMul stops at the position along ('n' columns, 'k' the reduction), or '' when it spans its extent. */
export function positionBoundOf(node: Node): '' | 'n' | 'k' {
  return attrString(node, 'position_bound', '') as '' | 'n' | 'k';
}

function bounded(mm: Node, pos: string, axis: 'n' | 'k'): Node {
  const inputs = [...mm.inputs];
  while (inputs.length < POSITION_BOUND_INPUT) inputs.push('');
  inputs[POSITION_BOUND_INPUT] = pos;
  return { ...mm, inputs, attrs: { ...mm.attrs, position_bound: { kind: 'string', value: axis } } };
}

/** A MatMul the bound fits: 2-D or batched operands (so n and k are the last axes), no bound yet. */
function plainMatMul(n: Node | undefined, g: Graph): n is Node {
  if (!n || n.op !== 'MatMul' || n.inputs.length > POSITION_BOUND_INPUT || positionBoundOf(n) !== '') return false;
  return tensorOf(g, n.inputs[0]).shape.length >= 2 && tensorOf(g, n.inputs[1]).shape.length >= 2;
}

/** The attribute by which a bounded MatMul or softmax skips writing 0 past the position (fill_past 0). */
export const FILL_PAST = 'fill_past';

/** Whether a bounded MatMul or a softmax with a position writes 0 past it (the default) or leaves those entries. */
export function fillsPast(node: Node): boolean {
  const a = node.attrs[FILL_PAST];
  return !(a && a.kind === 'int' && a.value === 0);
}

const noFill = (n: Node): Node => ({ ...n, attrs: { ...n.attrs, [FILL_PAST]: { kind: 'int', value: 0 } } });

export function boundByPosition(g: Graph): Graph {
  const producers = producerOf(g);
  const consumers = consumersOf(g);
  const replace = new Map<Node, Node>();
  for (const sm of g.nodes) {
    if (sm.op !== 'iSoftmax' || !sm.inputs[1]) continue;
    const pos = sm.inputs[1];
    // Back from the softmax through Identity nodes (the quantizer leaves a scale of 1 and the folded mask as such
    // aliases), each the only reader of what it copies.
    let reader: Node = sm;
    let t = sm.inputs[0];
    let scores = producers.get(t);
    while (scores?.op === 'Identity' && soleConsumer(g, t, consumers) === reader) {
      reader = scores;
      t = scores.inputs[0];
      scores = producers.get(t);
    }
    // soleConsumer is undefined for a graph output: the scores (and every Identity on the way) are read by the
    // softmax alone, so nothing reads their columns past pos.
    if (plainMatMul(scores, g) && soleConsumer(g, t, consumers) === reader) replace.set(scores, noFill(bounded(scores, pos, 'n')));
    const users = consumers.get(sm.outputs[0]) ?? [];
    for (const user of users) {
      if (plainMatMul(user, g) && user.inputs[0] === sm.outputs[0] && !replace.has(user)) replace.set(user, bounded(user, pos, 'k'));
    }
    // Its zeros past pos: read by nobody when every reader is a value product stopping at this same position.
    const stopsHere = (u: Node): boolean => {
      const b = replace.get(u);
      return b !== undefined && positionBoundOf(b) === 'k' && b.inputs[POSITION_BOUND_INPUT] === pos && b.inputs[1] !== sm.outputs[0];
    };
    if (users.length > 0 && !g.outputs.includes(sm.outputs[0]) && users.every(stopsHere)) replace.set(sm, noFill(sm));
  }
  if (replace.size === 0) return g;
  return { ...g, nodes: g.nodes.map((n) => replace.get(n) ?? n) };
}
