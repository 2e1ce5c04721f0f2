import { computeCycles, enginesOf } from './cost.js';
import { band, blockRows, forwardsOf, readingOf } from './forwarding.js';
import type { TangramHardware } from './hardware.js';
import { type LayerShape, operandsOf } from './layers.js';
import {
  ELEMENT_KINDS, type ElementKind, emitLayer, engineParts, type Functional, H, isLeader, type LayerPlan, messageIds, OP, planLayer,
  programImage, writeFunctional,
} from './programs.js';
import type { ElementwiseLeaves } from './segment-functions.js';
import { MAX_SEGMENT_ACCUMULATORS, type SegmentPlan } from './segment.js';

/** Most pipeline steps a segment's program takes (its size grows with them): the dataflow's steps, capped. */
export const MAX_SEGMENT_STEPS = 8;

/**
 * What one layer of a segment computes (functional programs): 1 products (a convolution; its fused requantization
 * applied by the group's leader after each step's partial-sum tree), 2 max pooling, 3 element-wise on one operand,
 * y = clip(requant(x)) (a RequantShift, a ReLU or a Clip: `fn.requant` optional, `clip` optional), per element,
 * 4 the requantized Add of two maps, y = requant(x*sx + x2*sx2) (the scales scalars).
 */
export interface SegmentLayerFunction {
  kind: 1 | 2 | 3 | 4;
  fn: Functional;
  clip?: { min: number; max: number };
  /** Element-wise layers: which of the node's inputs are the maps, scales and requantization parameters. */
  leaves?: ElementwiseLeaves;
  /** Kind 4: the second map's element kind. */
  x2Type?: ElementKind;
}

/**
 * A segment layer's record (functional programs), in the header's layout: record word i is header word i + 10 of a
 * single layer's program (kind, dims, strides, types, requantization), with these words of its own (header-equivalent
 * offsets): the layer's first engine (11), its engine count (41), the clip flag and range (48..50), and the base of
 * its int32 accumulators (51) in the emulator's table.
 */
export const LAYER_WORDS = 42;
export const LAYER = { first: 11, engines: 41, clip: 48, clipMin: 49, clipMax: 50, accumulators: 51 } as const;
/**
 * The firmware hands a segment 7 addresses per layer: x, w, bias, y, mul, add, x2 (0 when absent; an Add of two maps
 * has its maps' scales in w and bias).
 */
export const ARGS_PER_LAYER = 7;

/** Steps of a segment's program: the dataflow's, capped, and at most every layer's folded output rows. */
export function segmentSteps(seg: SegmentPlan, layers: LayerShape[], batch: number): number {
  const rows = Math.min(...seg.layers.map((pl) => batch * layers[pl.index].h));
  return Math.max(1, Math.min(MAX_SEGMENT_STEPS, seg.steps, rows));
}

interface Link { peer: number; words: number; key: string }

/**
 * One program for a whole pipeline segment of the dataflow (segment.ts): every layer on its own region with its
 * partitioning, in the same steps (each engine's step is a band of its block's output rows, forwarding.ts; at most
 * MAX_SEGMENT_STEPS, coarser than the cost model's row-by-row steps, so the fill and drain weigh more here). Per step an engine waits for its loads and
 * for the forwarded data its step needs first (relaying it along its input-sharing group), computes its block's
 * rows of the band (STEP), reduces the band's
 * partial sums over its input-channel group, and the group's leader applies the epilogue (FINISH) and forwards to
 * each consumer engine exactly the data of the band that engine needs (forwarding.ts). A layer whose output leaves
 * the segment also stores it. A one-layer segment without `fns` is the layer alone (programs.ts emitLayer).
 *
 * With `fns` (one per layer) the image carries the layers' arithmetic: the emulator computes each STEP's rows and
 * each FINISH's epilogue on the operands the firmware hands it, bit-exact; timing-only runs of the same image give
 * the same schedule and counters.
 */
export function segmentProgram(seg: SegmentPlan, layers: LayerShape[], batch: number, hw: TangramHardware, sharing: boolean, fns?: SegmentLayerFunction[]): Int32Array {
  const first = seg.first;
  const inSeg = (i: number): boolean => i >= seg.first && i <= seg.last;
  if (fns && fns.length !== seg.layers.length) throw new Error(`segment program: ${fns.length} functions for ${seg.layers.length} layers`);
  let base = 0;
  const plans: LayerPlan[] = seg.layers.map((pl) => {
    const plan = planLayer(layers[pl.index], batch, hw, pl.eval.partition, sharing, pl.region.engines, base, pl.sources.some((x) => x.from === 'noc'), pl.reservedWords);
    base += enginesOf(pl.eval.partition);
    return plan;
  });
  const ids = messageIds();
  if (seg.layers.length === 1 && !fns) {
    emitLayer(plans[0], hw, ids.msg);
    return programImage(hw, plans[0].blocks, ids.count());
  }
  const steps = segmentSteps(seg, layers, batch);
  // Per layer and engine, per step: the messages it receives before and sends after the step.
  const table = (): Link[][][][] => plans.map((p) => p.blocks.map(() => Array.from({ length: steps }, (): Link[] => [])));
  const recvs = table();
  const sends = table();
  const relays = table();
  const forwarded = plans.map(() => 0);
  seg.layers.forEach((pl, at) => {
    layers[pl.index].inputs.forEach((p, operand) => {
      if (!inSeg(p)) return;
      forwarded[at]++;
      const rd = readingOf(layers[p], layers[pl.index], fns?.[at].fn);
      const producer = plans[p - first];
      const consumer = plans[at];
      // An input-sharing group (engines that differ only in their output channels) reads the same data: the producer
      // sends it to the group's first member, which relays it to the next, and so on (buffer sharing of forwarded
      // maps: each link of the chain carries it once, instead of the producer sending a copy to every member).
      const { po, pi } = consumer.p;
      const relay = consumer.groups.ifm > 1;
      for (const f of forwardsOf(producer, consumer, rd, steps)) {
        if (relay && Math.floor(f.to / pi) % po !== 0) continue;
        const key = `f${p}>${pl.index}/${operand}/${f.from}/${f.step}/${f.to}`;
        sends[p - first][f.from][f.step].push({ peer: consumer.base + f.to, words: f.words, key });
        recvs[at][f.to][f.at].push({ peer: producer.base + f.from, words: f.words, key });
        for (let m = 1; relay && m < po; m++) {
          const prev = f.to + (m - 1) * pi, next = f.to + m * pi;
          const link = `${key}/${m}`;
          relays[at][prev][f.at].push({ peer: consumer.base + next, words: f.words, key: link });
          recvs[at][next][f.at].push({ peer: consumer.base + prev, words: f.words, key: link });
        }
      }
    });
  });
  plans.forEach((plan, at) => {
    const l = plan.l;
    const pes = hw.array.rows * hw.array.cols;
    const finish = fns?.[at].kind === 1 && fns[at].fn.requant !== undefined;
    // The share of the input words from DRAM: the inputs not forwarded (an element-wise layer's operands, or the
    // parts of a product's concatenated input, ASSUMPTION: equal parts).
    const inputs = Math.max(1, l.inputs.length);
    const dramShare = (inputs - forwarded[at]) / inputs;
    plan.blocks.forEach((b, j) => {
      const t = plan.tiles[j];
      const e = engineParts(plan, hw, ids.msg, j, steps, dramShare);
      const cycles = computeCycles(l, t, hw);
      const rowsOf = blockRows(b);
      // A step's share of the block's cycles: its rows' (cumulative, so the steps add up to the block's cycles).
      const upTo = (rows: number): number => (rowsOf === 0 ? 0 : Math.round((cycles * rows) / rowsOf));
      e.load(0);
      for (let s = 0; s < steps; s++) {
        b.cmds.push({ op: OP.WAIT_LOADS, a: 0, b: 0, c: 0 });
        if (s + 1 < steps) e.load(s + 1);
        for (const r of recvs[at][j][s]) b.cmds.push({ op: OP.RECV, a: r.peer, b: r.words, c: ids.msg(r.key) });
        for (const r of relays[at][j][s]) b.cmds.push({ op: OP.SEND, a: r.peer, b: r.words, c: ids.msg(r.key) });
        e.rotate(s);
        // The step's rows of the block, [r0, r1) counted in the block (forwarding.ts stepPieces).
        const [r0, r1] = band(rowsOf, steps, s);
        const rows = r1 - r0;
        b.cmds.push({ op: OP.STEP, a: upTo(r1) - upTo(r0), b: r0, c: r1 });
        if (rows === 0) continue;
        const words = rows * t.k * t.w;
        if (!e.reduce(words, `${plan.base}/r/${s}`)) continue;
        // The fused requantization of the band's whole sums on the leader. ASSUMPTION: each PE requantizes one
        // output per cycle (its multiplier, the rounding add and the shift as one operation, like a MAC).
        if (finish) b.cmds.push({ op: OP.FINISH, a: Math.ceil(words / pes), b: r0, c: r1 });
        for (const x of sends[at][j][s]) b.cmds.push({ op: OP.SEND, a: x.peer, b: x.words, c: ids.msg(x.key) });
      }
      if (isLeader(plan, j) && !seg.layers[at].ofmOnChip && t.ofm > 0) b.cmds.push({ op: OP.STORE, a: e.ch, b: t.ofm, c: 0 });
    });
  });
  const engines = plans.flatMap((p) => p.blocks);
  if (!fns) return programImage(hw, engines, ids.count());
  const image = programImage(hw, engines, ids.count(), undefined, 1, fns.length * LAYER_WORDS);
  const records = image.length - fns.length * LAYER_WORDS;
  image[H.functional] = 3;
  image[H.dims] = fns.length;
  image[H.dims + 1] = records;
  let accumulators = 0;
  fns.forEach((f, at) => {
    if ((f.kind === 3 && operandsOf(plans[at].l) !== 1) || (f.kind === 4 && operandsOf(plans[at].l) !== 2)) throw new Error(`segment program: ${plans[at].l.name}: an element-wise layer of ${operandsOf(plans[at].l)} operands for a function of ${f.kind === 3 ? 1 : 2}`);
    const rec = records + at * LAYER_WORDS;
    const fb = rec - H.functional;
    writeFunctional(image, fb, f.fn, f.kind);
    image[fb + LAYER.first] = plans[at].base;
    image[fb + LAYER.engines] = plans[at].blocks.length;
    if (f.clip) {
      image[fb + LAYER.clip] = 1;
      image[fb + LAYER.clipMin] = f.clip.min;
      image[fb + LAYER.clipMax] = f.clip.max;
    }
    image[fb + LAYER.accumulators] = accumulators;
    if (f.kind === 4) image[fb + H.bias] = ELEMENT_KINDS.indexOf(f.x2Type!);
    if (f.kind === 1 && f.fn.requant) accumulators += f.fn.n * f.fn.k * f.fn.ho * f.fn.wo;
  });
  if (accumulators > MAX_SEGMENT_ACCUMULATORS) throw new Error(`segment program: its requantized products have ${accumulators} outputs, more than the engine model's ${MAX_SEGMENT_ACCUMULATORS} accumulators`);
  return image;
}
