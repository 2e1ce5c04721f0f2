/**
 * The per-layer profile of one emulated run: where the cycles went, what each layer computed and moved, and how
 * close it came to its engine's peak. Built from the manifest (layers, MACs, tensors) and the run's layer events;
 * written to <out>/profile.json and printed by `gen run` (profile-table.ts).
 *
 * Accounting: layer cycles are the master's layer_begin..layer_end spans (the makespan of the forked kernel,
 * fork and join included). Everything else on the master clock is setup (before the first layer), between (gaps
 * between layers) or teardown (after the last), so the rows always add up to the total exactly.
 */
import type { Manifest, ManifestTensor } from './manifest.js';
import type { RunResult } from './run.js';

/** Where every cycle figure comes from: the emulator's cost model, not a measurement on silicon. */
export const CYCLE_SOURCE = 'firmgen emulator cost model (docs/timing.md; parameters from HARDWARE.md)';

export interface Traffic {
  read: number;
  written: number;
}

export interface ProfileLayer {
  layer: number;
  name: string;
  op: string;
  kernel: string;
  /** Who runs it: `cluster` (the forked cores), `core` (a single-core target), `none` (an alias, no code). */
  engine: string;
  macs: number;
  /** Bytes the layer reads from and writes to its buffers, per memory level (region name). */
  memory: Record<string, Traffic>;
  /** Bytes the cluster DMA moved for the layer (transfers issued while it was open): into L1 and out of L1. */
  dma: DmaBytes;
  /** N-EUREKA jobs triggered while the layer was open (Siracusa; 0 elsewhere). */
  npuJobs: number;
  /** Their busy cycles on the NPU's own clock (sum of end - start): overlaps the layer's cycles, not added to them. */
  npuCycles: number;
  start: number;
  end: number;
  cycles: number;
  us: number;
  /** Fraction of the total cycles. */
  share: number;
  /** MACs / (cycles x engine peak MACs per cycle); null for a layer without MACs. */
  utilisation: number | null;
  /**
   * Gemmini: cycles the array streamed operands (the sum of its computes' 16-cycle streams, docs/gemmini.md
   * "Events"), and that over the layer's cycles (null without array work, or when the event log overwrote some).
   */
  arrayCycles: number;
  arrayBusy: number | null;
  /** BrainScaleS-2 (docs/brainscales2.md "Profile"): analog runs, their cycles, and the link's cycles and bytes. */
  analog: AnalogUse;
}

export interface AnalogUse {
  runs: number;
  /** Block writes (synapse configurations). */
  writes: number;
  /** Cycles of the analog runs (events and their fixed part). */
  cycles: number;
  /** Cycles of the link transfers: inputs, outputs and synapse blocks. */
  linkCycles: number;
  linkBytes: number;
  /** Multiply-accumulates on the arrays. */
  macs: number;
}

export interface DmaBytes {
  in: number;
  out: number;
}

export interface Span {
  cycles: number;
  us: number;
  share: number;
}

export interface Profile {
  model: string;
  platform: string;
  clockHz: number;
  cyclesFrom: string;
  /** Cluster cores in use (0: the master runs kernels itself). */
  cores: number;
  /** Peak MACs per cycle of the cores: cores x per-core peak (HARDWARE.md); cluster layers' utilisation. */
  peakMacsPerCycle: number;
  /** The whole run's peak: the cores', plus N-EUREKA's when the run used it (the total's utilisation). */
  totalPeakMacsPerCycle: number;
  layers: ProfileLayer[];
  setup: Span;
  between: Span;
  teardown: Span;
  total: {
    cycles: number; us: number; macs: number; memory: Record<string, Traffic>; dma: DmaBytes;
    /** N-EUREKA jobs of the whole run and their busy cycles on the NPU's clock. */
    npuJobs: number; npuCycles: number; utilisation: number | null;
    arrayCycles: number; arrayBusy: number | null; analog: AnalogUse;
  };
  agents: { agent: number; name: string; cycles: number; busy: number }[];
}

/** N-EUREKA's peak MACs per cycle (3x3 dense, full subtiles, 8-bit weights; HARDWARE.md "Throughput"). */
const NPU_PEAK_MACS = 1134;

export function buildProfile(m: Manifest, r: Omit<RunResult, 'profile'>): Profile {
  const clockHz = m.clockHz ?? 0;
  const us = (cycles: number): number => (clockHz > 0 ? (cycles * 1e6) / clockHz : 0);
  const total = r.cycles;
  const share = (cycles: number): number => (total > 0 ? cycles / total : 0);
  const span = (cycles: number): Span => ({ cycles, us: us(cycles), share: share(cycles) });
  const cores = r.coreCycles.length;
  const peak = (m.peakMacsPerCoreCycle ?? 0) * Math.max(1, cores);
  const util = (macs: number, cycles: number): number | null =>
    macs > 0 && cycles > 0 && peak > 0 ? macs / (cycles * peak) : null;
  const tensors = new Map(m.tensors.map((t) => [t.name, t]));
  // With N-EUREKA in the run, the whole run's MACs are measured against both engines' peaks together.
  const totalPeak = peak + (r.npu.length > 0 ? NPU_PEAK_MACS : 0);

  // Master spans per layer id; a layer marked more than once (never by generated code) adds up its spans.
  const spans = new Map<number, { start: number; end: number; cycles: number }>();
  for (const e of r.layers.filter((x) => x.agent === 0)) {
    const s = spans.get(e.layer);
    if (s) {
      s.start = Math.min(s.start, e.start);
      s.end = Math.max(s.end, e.end);
      s.cycles += e.cycles;
    } else {
      spans.set(e.layer, { start: e.start, end: e.end, cycles: e.cycles });
    }
  }
  const dmaOf = (layer: number): DmaBytes => {
    const d = { in: 0, out: 0 };
    for (const t of r.dma) if (t.layer === layer) d[t.toL1 ? 'in' : 'out'] += t.bytes;
    return d;
  };
  const npuOf = (layer?: number): { npuJobs: number; npuCycles: number } => {
    const u = { npuJobs: 0, npuCycles: 0 };
    for (const j of r.npu) {
      if (layer !== undefined && j.layer !== layer) continue;
      u.npuJobs++;
      u.npuCycles += j.end - j.start;
    }
    return u;
  };
  const arrayOf = (layer?: number): { arrayCycles: number; arrayBusy: number | null } => {
    let busy = 0;
    for (const c of r.gemminiArray) if (layer === undefined || c.layer === layer) busy += c.end - c.start;
    const cycles = layer === undefined ? total : (spans.get(layer)?.cycles ?? 0);
    return { arrayCycles: busy, arrayBusy: busy > 0 && cycles > 0 && r.eventsDropped === 0 ? busy / cycles : null };
  };
  const analogOf = (layer?: number): { analog: AnalogUse } => {
    const u: AnalogUse = { runs: 0, writes: 0, cycles: 0, linkCycles: 0, linkBytes: 0, macs: 0 };
    for (const e of r.bss2 ?? []) {
      if (layer !== undefined && e.layer !== layer) continue;
      if (e.phase === 'run') {
        u.runs++;
        u.cycles += e.cycles;
        u.macs += e.amount;
      } else {
        if (e.phase === 'configure') u.writes++;
        u.linkCycles += e.cycles;
        u.linkBytes += e.amount;
      }
    }
    return { analog: u };
  };
  const layers: ProfileLayer[] = m.layers.map((l) => {
    const s = spans.get(l.id);
    const cycles = s?.cycles ?? 0;
    const macs = l.macs ?? 0;
    return {
      layer: l.id,
      name: l.name,
      op: l.op ?? '',
      kernel: l.kernel ?? '',
      engine: engineName(l.engine, cores),
      macs,
      memory: traffic(l.reads ?? [], l.writes ?? [], tensors),
      dma: dmaOf(l.id),
      ...npuOf(l.id),
      start: s?.start ?? 0,
      end: s?.end ?? 0,
      cycles,
      us: us(cycles),
      share: share(cycles),
      // An NPU layer is measured against the engine's peak: a 3x3 job of full subtiles at 8-bit weights does
      // 36 pixels x 32 x 28 x 9 MACs in 32 x 8 cycles (1134 MAC/cycle, HARDWARE.md "Throughput").
      utilisation: l.engine === 'npu' ? (macs > 0 && cycles > 0 ? macs / (cycles * NPU_PEAK_MACS) : null) : util(macs, cycles),
      ...arrayOf(l.id),
      ...analogOf(l.id),
    };
  });

  const timed = [...spans.values()].sort((a, b) => a.start - b.start);
  const inLayers = timed.reduce((n, s) => n + s.cycles, 0);
  const setup = timed.length > 0 ? timed[0].start : total;
  const teardown = timed.length > 0 ? total - Math.max(...timed.map((s) => s.end)) : 0;
  const between = total - inLayers - setup - teardown;
  const macs = layers.reduce((n, l) => n + l.macs, 0);
  const memory: Record<string, Traffic> = {};
  for (const l of layers) {
    for (const [region, t] of Object.entries(l.memory)) {
      const sum = (memory[region] ??= { read: 0, written: 0 });
      sum.read += t.read;
      sum.written += t.written;
    }
  }
  return {
    model: m.model ?? '',
    platform: m.platform,
    clockHz,
    cyclesFrom: CYCLE_SOURCE,
    cores,
    peakMacsPerCycle: peak,
    totalPeakMacsPerCycle: totalPeak,
    layers,
    setup: span(setup),
    between: span(between),
    teardown: span(teardown),
    total: {
      cycles: total, us: us(total), macs, memory, utilisation: macs > 0 && total > 0 && totalPeak > 0 ? macs / (total * totalPeak) : null,
      ...npuOf(),
      ...arrayOf(),
      ...analogOf(),
      dma: r.dma.reduce((d, t) => ({ in: d.in + (t.toL1 ? t.bytes : 0), out: d.out + (t.toL1 ? 0 : t.bytes) }), { in: 0, out: 0 }),
    },
    agents: [
      { agent: 0, name: 'master', cycles: total, busy: r.masterBusy },
      ...r.coreCycles.map((c, i) => ({ agent: i + 1, name: `core${i}`, cycles: c, busy: r.coreBusy[i] })),
    ],
  };
}

function engineName(engine: string | undefined, cores: number): string {
  if (engine === 'cores') return cores > 0 ? 'cluster' : 'core';
  return engine ?? 'none';
}

/** Bytes of each buffer a layer touches, once per tensor, summed per region. */
function traffic(reads: string[], writes: string[], tensors: Map<string, ManifestTensor>): Record<string, Traffic> {
  const out: Record<string, Traffic> = {};
  const add = (names: string[], key: keyof Traffic): void => {
    for (const n of names) {
      const t = tensors.get(n);
      if (!t) continue;
      (out[t.region] ??= { read: 0, written: 0 })[key] += t.bytes;
    }
  };
  add(reads, 'read');
  add(writes, 'written');
  return out;
}
