/**
 * A run as a Chrome / Perfetto trace-event file (the JSON "Trace Event Format": traceEvents with complete 'X'
 * slices and 'M' metadata naming the threads). One thread per agent: the master, then each cluster core; later DMA
 * channels and accelerators get threads of their own. Time is microseconds at the platform clock, so the trace
 * reads like a measurement on the chip; every slice also carries its exact cycles in `args`.
 *
 * Slices: on the master, one per layer (and setup/teardown when they take time); on each core, per fork phase, its
 * kernel share (emulator `share` events) and the wait until the last core of the team finishes the phase; on each
 * cluster DMA engine (one per direction, HARDWARE.md "cluster DMA timing"), its transfers' busy intervals, so the
 * overlap of transfers with compute is visible; on the NPU track (Siracusa N-EUREKA, after the DMA lanes), each job's
 * busy interval on the engine.
 */
import type { Manifest } from './manifest.js';
import type { DmaTiming, NpuTiming, RunResult, ShareTiming } from './run.js';
import type { DeviceTimings } from './device-timings.js';
import type { IssRun, IssWait } from './iss-run.js';
import { CYCLE_SOURCE } from './profile.js';

/** Where an ISS trace's cycles come from. */
export const ISS_CYCLE_SOURCE = 'the rv32 ELF itself on firmgen\'s cycle-counting RV32 core (CV32E40P timing, docs/iss.md)';

export interface TraceEvent {
  name: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

export interface Trace {
  traceEvents: TraceEvent[];
  displayTimeUnit: 'ns';
  otherData: Record<string, string | number>;
}

const PID = 1;

/** Thread name of an agent: what it is on the chip, not just its index. */
export function agentLabel(platform: string, agent: number, cores: number): string {
  if (agent === 0) return cores > 0 ? (platform === 'siracusa' ? 'master (fabric controller)' : 'master') : 'core';
  return `cluster core ${agent - 1}`;
}

/** Thread id of a DMA engine lane: after the master and the cores. */
export function dmaLane(cores: number, toL1: boolean): number {
  return cores + (toL1 ? 1 : 2);
}

/** Thread id of the NPU track: after both DMA lanes. */
export function npuLane(cores: number): number {
  return cores + 3;
}

/** Thread id of the L3 (HyperRAM) DMA track: after the NPU's. */
export function l3Lane(cores: number): number {
  return cores + 4;
}

/** Thread id of BrainScaleS-2's track (link transfers and analog runs, on the calling core's time): after the L3's. */
export function bss2Lane(cores: number): number {
  return cores + 5;
}

const BSS2_PHASE_NAMES = { in: 'inputs over the link', run: 'analog run', out: 'outputs over the link', configure: 'synapse block over the link' } as const;

/** A trace being written: thread names first, then the slices (in the order they were drawn). */
interface TraceWriter {
  thread(tid: number, name: string): void;
  slice(tid: number, name: string, cat: string, start: number, end: number, args?: Record<string, unknown>): void;
  /** The trace: its events, and the model, platform and clock with `other` as its otherData. */
  finish(other: Record<string, string | number>): Trace;
}

function traceWriter(m: Manifest): TraceWriter {
  // Without a clock (older manifests) one cycle is drawn as one microsecond.
  const hz = m.clockHz ?? 1e6;
  const us = (cycles: number): number => Math.round((cycles * 1e12) / hz) / 1e6;
  const meta: TraceEvent[] = [
    { name: 'process_name', ph: 'M', pid: PID, tid: 0, args: { name: `${m.platform}: ${m.model ?? 'model'}` } },
  ];
  const slices: TraceEvent[] = [];
  return {
    thread(tid, name) {
      meta.push({ name: 'thread_name', ph: 'M', pid: PID, tid, args: { name } });
      meta.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid, args: { sort_index: tid } });
    },
    slice(tid, name, cat, start, end, args = {}) {
      slices.push({ name, ph: 'X', cat, pid: PID, tid, ts: us(start), dur: Math.round((us(end) - us(start)) * 1e6) / 1e6, args: { ...args, startCycle: start, cycles: end - start } });
    },
    finish: (other) => ({
      traceEvents: [...meta, ...slices],
      displayTimeUnit: 'ns',
      otherData: { model: m.model ?? '', platform: m.platform, clockHz: hz, ...other },
    }),
  };
}

/** The devices' tracks (cluster DMA lanes, N-EUREKA, L3): named now; the returned function draws their slices. */
function deviceTracks(w: TraceWriter, cores: number, d: DeviceTimings): () => void {
  const dmaTracks = dmaLanes(d.dma, cores);
  for (const [tid, name] of dmaTracks.names) w.thread(tid, name);
  if (d.npu.length > 0) w.thread(npuLane(cores), 'NPU');
  if (d.l3.length > 0) w.thread(l3Lane(cores), 'L3 DMA (HyperRAM)');
  return () => {
    for (const x of d.dma) {
      w.slice(dmaTracks.lane(x), dmaName(x), 'dma', x.start, x.end, {
        layer: x.layer, channel: x.channel, bytes: x.bytes, issuer: x.agentName, ext2d: x.ext2d, l12d: x.l12d,
      });
    }
    for (const j of d.npu) {
      w.slice(npuLane(cores), npuName(j), 'npu', j.start, j.end, {
        layer: j.layer, job: j.id, mode: j.mode, weightBits: j.weightBits, weights: j.wmem ? 'WMEM' : 'L1',
        output: j.out32 ? 'int32' : '8-bit', trigger: j.agentName,
      });
    }
    for (const c of d.l3) {
      w.slice(l3Lane(cores), `${c.bytes} B ${c.toL3 ? 'to' : 'from'} L3`, 'l3', c.start, c.end, { layer: c.layer, bytes: c.bytes, caller: c.agentName });
    }
  };
}

export function buildTrace(m: Manifest, r: RunResult): Trace {
  const w = traceWriter(m);
  const cores = r.coreCycles.length;
  for (let a = 0; a <= cores; a++) w.thread(a, agentLabel(m.platform, a, cores));
  const drawDevices = deviceTracks(w, cores, r);
  const bss2 = r.bss2 ?? [];
  if (bss2.length > 0) w.thread(bss2Lane(cores), 'analog arrays and link');

  const byId = new Map(m.layers.map((l) => [l.id, l]));
  const layerName = (id: number): string => byId.get(id)?.name ?? `layer ${id}`;
  for (const e of r.layers) {
    const l = byId.get(e.layer);
    w.slice(e.agent, layerName(e.layer), 'layer', e.start, e.end, { layer: e.layer, op: l?.op, kernel: l?.kernel, macs: l?.macs });
  }
  const master = r.layers.filter((e) => e.agent === 0);
  if (master.length > 0) {
    const first = Math.min(...master.map((e) => e.start));
    const last = Math.max(...master.map((e) => e.end));
    if (first > 0) w.slice(0, 'setup', 'setup', 0, first);
    if (last < r.cycles) w.slice(0, 'teardown', 'teardown', last, r.cycles);
  }

  for (const phase of phases(r.shares)) {
    const end = Math.max(...phase.map((s) => s.end));
    for (const s of phase) {
      const l = byId.get(s.layer);
      const name = l ? `${l.kernel ?? l.op ?? 'kernel'} ${l.name}` : 'kernel';
      const args = { layer: s.layer, phase: s.phase };
      if (s.end > s.start) w.slice(s.agent, name, 'kernel', s.start, s.end, args);
      if (end > s.end) w.slice(s.agent, 'wait', 'wait', s.end, end, args);
    }
  }
  drawDevices();
  for (const b of bss2) {
    w.slice(bss2Lane(cores), BSS2_PHASE_NAMES[b.phase], 'bss2', b.start, b.end, { layer: b.layer, [b.phase === 'run' ? 'macs' : 'bytes']: b.amount });
  }
  return w.finish({ totalCycles: r.cycles, cyclesFrom: CYCLE_SOURCE });
}

/** What a hart's wait is called on its track (emulator event kind wait). */
const WAIT_NAMES: Record<IssWait['why'], string> = {
  idle: 'idle', barrier: 'barrier', 'cluster task': 'waiting for the cluster', DMA: 'DMA wait', NPU: 'NPU wait',
};

/**
 * `gen run --on iss --trace`: the rv32 ELF's run on the RV32 core, drawn as the AS path's trace is (one track per
 * hart, the devices' tracks after them), from what the core measured: on each hart the stretches it ran, cut at the
 * layers' marks and named by the layer running then, and the stretches it waited (at a barrier, on a DMA transfer,
 * on N-EUREKA, the fabric controller on the cluster; a core idle in the event unit between forks is left blank);
 * the layers themselves on the hart that marks them (cluster core 0 on a cluster); each DMA transfer, N-EUREKA job
 * and L3 copy on its device's track.
 */
export function buildIssTrace(m: Manifest, r: IssRun): Trace {
  const w = traceWriter(m);
  const t = r.timeline;
  const cores = r.harts - 1;
  for (let h = 0; h < r.harts; h++) w.thread(h, agentLabel(m.platform, h, cores));
  const drawDevices = deviceTracks(w, cores, t);
  const byId = new Map(m.layers.map((l) => [l.id, l]));
  const layers = [...r.layers].sort((a, b) => a.start - b.start);
  for (const l of layers) {
    const info = byId.get(l.layer);
    w.slice(t.markHart, l.name || `layer ${l.layer}`, 'layer', l.start, l.end, {
      layer: l.layer, op: info?.op, kernel: info?.kernel, macs: info?.macs, instructions: l.instructions,
    });
  }
  // A hart's run from `a` to `b`, one slice per layer it overlaps (and one per stretch outside every layer).
  const ran = (h: number, a: number, b: number): void => {
    let at = a;
    for (const l of layers) {
      if (l.end <= at || at >= b) continue;
      if (l.start >= b) break;
      if (l.start > at) w.slice(h, 'run', 'run', at, l.start);
      const end = Math.min(b, l.end);
      const info = byId.get(l.layer);
      w.slice(h, `${info?.kernel ?? info?.op ?? 'kernel'} ${l.name || `layer ${l.layer}`}`, 'kernel', Math.max(at, l.start), end, { layer: l.layer });
      at = end;
    }
    if (b > at) w.slice(h, 'run', 'run', at, b);
  };
  for (let h = 0; h < r.harts; h++) {
    let at = 0;
    for (const x of t.waits.filter((y) => y.hart === h).sort((p, q) => p.start - q.start)) {
      if (x.start > at) ran(h, at, x.start);
      if (x.why !== 'idle') w.slice(h, WAIT_NAMES[x.why], 'wait', x.start, x.end, { layer: x.layer });
      at = Math.max(at, x.end);
    }
    if (t.hartCycles[h] > at) ran(h, at, t.hartCycles[h]);
  }
  drawDevices();
  return w.finish({ totalCycles: r.cycles, networkCycles: r.networkCycles, cyclesFrom: ISS_CYCLE_SOURCE, eventsDropped: t.eventsDropped });
}

/**
 * The DMA tracks: one per direction while the transfers of a direction never overlap (one engine, as Siracusa's
 * cluster DMA); a direction whose transfers overlap in time came from engines of their own (SpiNNaker2's per-PE DMA),
 * so it gets one track per issuing agent instead of slices drawn over each other.
 */
function dmaLanes(dma: DmaTiming[], cores: number): { names: Map<number, string>; lane(d: DmaTiming): number } {
  const names = new Map<number, string>();
  const perAgent = new Map<string, number>();
  const split = new Set<boolean>();
  for (const toL1 of [true, false]) {
    const ds = dma.filter((d) => d.toL1 === toL1).sort((a, b) => a.start - b.start);
    if (ds.length === 0) continue;
    let end = -Infinity;
    const overlaps = ds.some((d) => { const o = d.start < end; end = Math.max(end, d.end); return o; });
    const what = toL1 ? 'DMA in (to L1)' : 'DMA out (from L1)';
    if (!overlaps) { names.set(dmaLane(cores, toL1), what); continue; }
    split.add(toL1);
    for (const agent of [...new Set(ds.map((d) => d.agent))].sort((a, b) => a - b)) {
      const tid = l3Lane(cores) + 1 + perAgent.size;
      perAgent.set(`${toL1}:${agent}`, tid);
      names.set(tid, `${what}, ${ds.find((d) => d.agent === agent)!.agentName}`);
    }
  }
  return { names, lane: (d) => (split.has(d.toL1) ? perAgent.get(`${d.toL1}:${d.agent}`)! : dmaLane(cores, d.toL1)) };
}

function dmaName(d: DmaTiming): string {
  return `${d.bytes} B ${d.toL1 ? 'in' : 'out'} ch${d.channel}`;
}

function npuName(j: NpuTiming): string {
  return `job ${j.id} ${j.mode} w${j.weightBits}${j.wmem ? ' WMEM' : ''}`;
}

/** Shares grouped by the fork phase they belong to: same layer, phase index and start clock. */
function phases(shares: ShareTiming[]): ShareTiming[][] {
  const groups = new Map<string, ShareTiming[]>();
  for (const s of shares) {
    const key = `${s.layer}:${s.phase}:${s.start}`;
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  return [...groups.values()];
}
