/**
 * `gen run --on iss`: the bare-metal rv32 ELF that `gen build --target rv32-xpulp` makes (the qemu image's C with the
 * XpulpV2 SIMD instructions of firmgen_simd.h) executed by the
 * emulator's cycle-counting RV32 core (emulator/assembly/iss, CV32E40P timing; docs/iss.md). The ELF's memories are
 * mapped at their link addresses, the inputs and outputs go through the same semihosting files as under qemu, and
 * the layer markers of the rv32 HAL (fg_layer_marks) give each layer's cycles as measured on this very binary.
 * On a platform whose image declares a cluster for the ISS (Siracusa: c/image.json rv32.cluster), the fabric
 * controller and every cluster core are harts, interleaved by their clocks (emulator/assembly/iss/cluster.ts): the
 * HAL (runtime/c/siracusa/hal_iss.c) forks through the event unit and copies through the cluster DMA by their
 * registers, L1 is banked (conflicts from the actual addresses) and L2 costs the cluster its latency; N-EUREKA and the
 * HyperRAM DMA are devices too (iss/npu.ts, iss/l3.ts: the AS path's models, driven by neureka_iss.c and l3_iss.c),
 * with the neural memory and L3 mapped at the link script's addresses. Elsewhere one
 * hart runs everything: the rv32 HAL runs a cluster fork as a team of one and its DMA is a copy at issue.
 */
import { readFileSync } from 'node:fs';
import { GenError, quoted } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import type { IssDevice } from '../../generator/platforms/types.js';
import { buildC, readImageFile } from './c-build.js';
import { emulatorModule } from './emulator.js';
import { readElfSections, readElfSymbols, SHF_ALLOC, type ElfSymbol } from './elf.js';
import { deviceFaultLine, faultLine, FLAG, ISS_CALL_INSTRUCTIONS, STALL_KINDS, STOP, type IssExports } from './iss.js';
import { readManifest } from './manifest.js';
import { packInputs, unpackOutputs } from './raw-io.js';
import { codeSpan, readHotspots, startProfile, type Hotspots } from './iss-hotspots.js';
import { readEvents, WAIT_REASONS } from './emulator.js';
import { deviceTimings, type DeviceTimings } from './device-timings.js';
import { agentLabel } from './trace.js';

/** Instructions a run may execute before it is taken for a hang: about a minute at the core's emulated speed. */
export const ISS_DEFAULT_MAX_INSTRUCTIONS = 1e10;

export interface IssLayer {
  layer: number;
  name: string;
  cycles: number;
  /** The layer's begin and end on the clock of the hart that marks layers (IssTimeline.markHart). */
  start: number;
  end: number;
  /** Cluster runs: the layer's instructions and stall cycles by kind, summed over the cluster cores, and its L1
   * bank-conflict cycles (recorded by the event unit at each mark, emulator/assembly/iss/cluster.ts). */
  instructions?: number;
  stalls?: number[];
  bankConflicts?: number;
  /** Cluster runs: the layer's instruction-cache misses, [private levels summed, shared level] (a shared-level miss
   * is a line brought from L2: the layer's code its cores ran that was not in the cache yet). */
  icacheMisses?: [number, number];
}

export interface IssRun {
  outputs: NDArray[];
  /** Cycles and instructions of the whole program (startup, input reading and output writing included). */
  cycles: number;
  instructions: number;
  /** Cycles from the first layer's begin to the last layer's end: the network itself. */
  networkCycles: number;
  layers: IssLayer[];
  /** Stall cycles by kind: load-use, branch, multi-cycle, memory, misaligned, event-unit sleep, DMA sleep, NPU sleep,
   * instruction fetch (summed over the cluster cores when there is a cluster, else of the one hart). */
  stalls: number[];
  /** Harts that ran: 1, or the fabric controller and the cluster cores. */
  harts: number;
  /** Instructions each hart retired (hart 0 first). */
  hartInstructions: number[];
  /** Each hart's stall cycles by kind (hart 0 first). */
  hartStalls: number[][];
  /** Memory stalls from L1 bank conflicts (cluster runs; 0 otherwise). */
  bankConflicts: number;
  /** Instruction-cache misses of the cluster cores: [private levels summed, shared level] ([0, 0] without a cluster). */
  icacheMisses: [number, number];
  /** The shared level's misses at the cycles a core waits for a line from L2: the code fetched cold, once. */
  icacheColdCycles: number;
  ms: number;
  /** Cycles by function and instruction, when asked for (runIss options.hotspots). */
  hotspots?: Hotspots;
  /** When each hart waited and each device was busy: what `--trace` draws (trace.ts buildIssTrace). */
  timeline: IssTimeline;
}

/** One stretch a hart did not run (emulator event kind wait). */
export interface IssWait {
  hart: number;
  why: (typeof WAIT_REASONS)[number];
  /** The layer the marks had open (-1: none). */
  layer: number;
  start: number;
  end: number;
}

export interface IssTimeline extends DeviceTimings {
  waits: IssWait[];
  /** Each hart's final clock (hart 0 first). */
  hartCycles: number[];
  /** The hart whose clock the layer marks read: cluster core 0 on a cluster (hal_iss.c), else the only hart. */
  markHart: number;
  /** Event records the emulator's ring overwrote (the oldest): the timeline's start is missing that many. */
  eventsDropped: number;
}

export interface IssOptions {
  /** Instructions a run may execute before it is taken for a hang. */
  maxInstructions?: number;
  /** Charge every instruction's cycles to its address and name them (iss-hotspots.ts). */
  hotspots?: boolean;
  /** Profile only this hart (0: the fabric controller or the only hart; 1..: cluster cores); default all. */
  hotspotHart?: number;
  /** How many of the hottest instructions the profile lists (default 12). */
  hotInstructions?: number;
  /** Profile only the instructions that start in these cycles [from, to) (a layer's span, IssLayer start and end). */
  hotspotWindow?: [number, number];
}

interface Mapped { base: number; size: number; linear: number }

/** The ISS's device models by kind (iss/mmio.ts dispatch numbers); where each sits is the platform's (IssCluster.mmio). */
const DEVICE: Record<IssDevice['kind'], number> = { 'event-unit': 2, 'cluster-dma': 3, npu: 4, 'far-dma': 5 };

/** The ELF's allocated sections merged into spans (gaps under 64 KiB joined), each mapped as one RAM region. */
function spans(elf: string): { base: number; size: number }[] {
  const secs = readElfSections(elf).filter((s) => (s.flags & SHF_ALLOC) !== 0 && s.size > 0).sort((a, b) => a.address - b.address);
  const out: { base: number; end: number }[] = [];
  for (const s of secs) {
    const last = out[out.length - 1];
    if (last && s.address <= last.end + 0x10000) last.end = Math.max(last.end, s.address + s.size);
    else out.push({ base: s.address, end: s.address + s.size });
  }
  return out.map((s) => ({ base: s.base, size: ((s.end - s.base + 4095) & ~4095) >>> 0 }));
}

export async function runIss(outDir: string, inputs: NDArray[], options: IssOptions = {}): Promise<IssRun> {
  const maxInstructions = options.maxInstructions ?? ISS_DEFAULT_MAX_INSTRUCTIONS;
  const manifest = readManifest(outDir);
  const image = readImageFile(outDir).rv32;
  // The C as the board's cores would run it: with the XpulpV2 instructions of firmgen_simd.h where they have them
  // (Siracusa, with its cluster), else plain rv32imc (generic, Gemmini's host).
  const { path: elf } = buildC(outDir, image?.xpulp ? 'rv32-xpulp' : 'rv32');
  // The ELF's symbols, read once: the cluster's entry and stacks, the layer marks (by name, the first of a name as
  // the table lists it), the hotspots' function names (all of them).
  const symbolList = readElfSymbols(elf);
  const symbols = new Map<string, ElfSymbol>();
  for (const sym of symbolList) if (!symbols.has(sym.name)) symbols.set(sym.name, sym);
  const cluster = image?.xpulp ? image.cluster : undefined;
  const inBytes = packInputs(manifest, inputs, outDir);
  const outBytes = manifest.outputs.reduce((n, name) => n + (manifest.tensors.find((t) => t.name === name)?.bytes ?? 0), 0);

  const inst = await WebAssembly.instantiate(await emulatorModule(), {});
  const emu = inst.exports as unknown as IssExports;
  emu.iss_reset();
  const regions: string[] = [];
  const mapped: Mapped[] = [];
  const map = (base: number, size: number, flags: number, name: string): number => {
    const linear = emu.iss_alloc(size);
    if (linear === 0) throw new GenError('run', `no memory for the rv32 image's ${size} bytes at 0x${base.toString(16)}`, { file: elf });
    const i = emu.iss_region_add(base >>> 0, size >>> 0, linear, 0, flags, 0);
    if (i < 0) throw new GenError('run', `cannot map 0x${base.toString(16)} + ${size} bytes`, { file: elf });
    regions[i] = name;
    mapped.push({ base, size, linear });
    return i;
  };
  const ram = FLAG.read | FLAG.write | FLAG.exec;
  let l1 = -1;
  let l2 = -1;
  let l3 = -1;
  let mram = -1;
  let sram = -1;
  if (cluster && !Array.isArray(cluster.mmio)) {
    throw new GenError('run', 'c/image.json names no cluster devices (written by an older firmgen): run gen firmware again', { file: outDir });
  }
  if (cluster && image) {
    // The build's memories as a whole, L1 and L2 timed for the cluster; the NPU's and other sections as spans.
    // L3 is reached only through the HyperRAM DMA when the build has its HAL (l3_iss.c): no core access.
    const farDevice = cluster.far !== undefined && symbols.has('hal_l3_read');
    for (const r of image.regions) {
      const far = farDevice && r.name === cluster.far;
      const flags = far ? 0 : ram | (r.name === cluster.l1 || r.name === cluster.l2 ? FLAG.timed : 0);
      const i = map(r.origin, r.length, flags, r.name);
      if (r.name === cluster.l1) l1 = i;
      if (r.name === cluster.l2) l2 = i;
      if (far) l3 = i;
    }
    // The neural memory, whole, when the image has NPU weights (a WMEM job's pointers are checked against it).
    const sections = new Set(readElfSections(elf).map((x) => x.name));
    if (cluster.neural && (sections.has('.fg_nms_mram') || sections.has('.fg_nms_sram'))) {
      mram = map(cluster.neural.mram, cluster.neural.size, FLAG.read, 'NMS_MRAM');
      sram = map(cluster.neural.sram, cluster.neural.size, FLAG.read, 'NMS_SRAM');
    }
    for (const s of spans(elf)) {
      if (!mapped.some((r) => s.base < r.base + r.size && r.base < s.base + s.size)) map(s.base, s.size, ram, `RAM@0x${s.base.toString(16)}`);
    }
    for (const d of cluster.mmio) {
      const i = emu.iss_region_add(d.base >>> 0, d.size, 0, 0, FLAG.read | FLAG.write | FLAG.mmio, DEVICE[d.kind]);
      if (i < 0) throw new GenError('run', `cannot map the ${d.name}`, { file: elf });
      regions[i] = d.name;
    }
  } else {
    for (const s of spans(elf)) map(s.base, s.size, ram, `RAM@0x${s.base.toString(16)}`);
  }
  const bytes = readFileSync(elf);
  const imagePtr = emu.iss_alloc(bytes.length);
  new Uint8Array(emu.memory.buffer, imagePtr, bytes.length).set(bytes);
  const inPtr = emu.iss_alloc(Math.max(1, inBytes.length));
  new Uint8Array(emu.memory.buffer, inPtr, inBytes.length).set(inBytes);
  emu.iss_host_input(inPtr, inBytes.length);
  const outPtr = emu.iss_alloc(Math.max(1, outBytes));
  emu.iss_host_output(outPtr, outBytes);
  if (emu.iss_load_elf(imagePtr, bytes.length) !== 0) throw new GenError('run', `rv32 image: ${faultLine({ emu, regions })}`, { file: elf });
  emu.iss_set_pc(0, emu.iss_elf_entry());
  const harts = cluster ? 1 + cluster.cores : 1;
  const markCapacity = 2 * manifest.layers.length + 16;
  const marksPtr = cluster ? emu.iss_alloc(markCapacity * MARK_WORDS * 8) : 0;
  if (cluster) {
    startClusterCores(emu, elf, symbols, cluster.cores, l1, l2);
    emu.iss_cluster_marks(marksPtr, markCapacity);
    emu.iss_npu_config(l1, mram, sram, cluster.neural?.mram ?? 0);
    emu.iss_l3_config(l2, l3);
  }

  const span = options.hotspots ? codeSpan(elf) : undefined;
  const profileBuf = span ? startProfile(emu, span) : 0;
  if (span && options.hotspotHart !== undefined) emu.iss_profile_hart(options.hotspotHart);
  if (span && options.hotspotWindow) emu.iss_profile_window(options.hotspotWindow[0], options.hotspotWindow[1]);
  const t0 = performance.now();
  let console = '';
  let stop: number;
  let stopHart = 0;
  const executed = (): number => Array.from({ length: harts }, (_, h) => emu.iss_instructions(h)).reduce((a, b) => a + b, 0);
  try {
    for (;;) {
      const left = maxInstructions - executed();
      if (left <= 0) {
        throw new GenError('run', `the rv32 firmware did not finish within ${maxInstructions} instructions (a loop that never ends?)`, { file: elf });
      }
      if (cluster) {
        stop = emu.iss_cluster_run(harts, Math.min(left, ISS_CALL_INSTRUCTIONS));
        stopHart = Math.max(0, emu.iss_cluster_stop_hart());
      } else {
        stop = emu.iss_run(0, Math.min(left, ISS_CALL_INSTRUCTIONS));
      }
      const n = emu.iss_console_length();
      console += Buffer.from(new Uint8Array(emu.memory.buffer, emu.iss_console_ptr(), n)).toString('latin1');
      emu.iss_console_clear();
      if (stop !== STOP.output && stop !== STOP.budget) break;
    }
    // Every N-EUREKA job observed finished, else its outputs never landed (the AS path's npu_finish).
    if (cluster && stop === STOP.exit) emu.iss_npu_finish();
  } catch (e) {
    throw new GenError('run', `fault: ${deviceFaultLine(emu, e)}`, { file: elf });
  }
  const ms = performance.now() - t0;
  if (stop === STOP.fault) throw new GenError('run', `fault: ${faultLine({ emu, regions })}`, { file: elf });
  if (stop !== STOP.exit || stopHart !== 0) {
    throw new GenError('run', `the rv32 firmware stopped (reason ${stop}${harts > 1 ? `, hart ${stopHart}` : ''}) instead of exiting`, { file: elf });
  }
  const code = emu.iss_exit_code(0);
  if (code !== 0) {
    throw new GenError('run', `the rv32 firmware exited with code ${code}${console.trim() ? `: ${console.trim().split('\n').slice(-2).join(' | ')}` : ''}`, { file: elf });
  }
  const outputs = unpackOutputs(manifest, new Uint8Array(emu.memory.buffer, outPtr, emu.iss_host_output_length()).slice(), elf);

  const layers = layerCycles(emu, mapped, symbols, new Map(manifest.layers.map((l) => [l.id, l.name])));
  if (cluster) addClusterCounters(layers.rows, new Float64Array(emu.memory.buffer, marksPtr, emu.iss_cluster_mark_count() * MARK_WORDS));
  const counted = cluster ? Array.from({ length: cluster.cores }, (_, k) => 1 + k) : [0];
  return {
    outputs,
    cycles: emu.iss_cycles(0),
    instructions: executed(),
    networkCycles: layers.span,
    layers: layers.rows,
    stalls: STALL_KINDS.map((k) => counted.reduce((a, h) => a + emu.iss_stalls(h, k), 0)),
    harts,
    hartInstructions: Array.from({ length: harts }, (_, h) => emu.iss_instructions(h)),
    hartStalls: Array.from({ length: harts }, (_, h) => STALL_KINDS.map((k) => emu.iss_stalls(h, k))),
    bankConflicts: cluster ? emu.iss_bank_conflicts() : 0,
    icacheMisses: [emu.iss_icache_misses(0), emu.iss_icache_misses(1)],
    icacheColdCycles: emu.iss_icache_misses(1) * emu.iss_icache_line_cycles(),
    ms,
    hotspots: span ? readHotspots(emu, elf, symbolList, span, profileBuf, options.hotInstructions) : undefined,
    timeline: timelineOf(emu, manifest.platform, harts),
  };
}

function timelineOf(emu: IssExports, platform: string, harts: number): IssTimeline {
  const { events, dropped } = readEvents(emu);
  const cores = harts - 1;
  return {
    ...deviceTimings(events, (a) => agentLabel(platform, a, cores)),
    waits: events.filter((e) => e.kind === 'wait').map((e) => ({ hart: e.agent, why: WAIT_REASONS[e.detail] ?? 'idle', layer: e.layer, start: e.start, end: e.end })),
    hartCycles: Array.from({ length: harts }, (_, h) => emu.iss_cycles(h)),
    markHart: harts > 1 ? 1 : 0,
    eventsDropped: dropped,
  };
}

/** Words of one mark record (cluster.ts MARK_WORDS): tag, instructions, the stall kinds, bank-conflict cycles, the
 * instruction cache's misses (private levels, shared level). */
const MARK_WORDS = 5 + STALL_KINDS.length;

/** Each layer's share of the cluster's counters: the record at its end minus the one at its begin. */
function addClusterCounters(rows: IssLayer[], marks: Float64Array): void {
  const open = new Map<number, number>();
  const byLayer = new Map<number, { instructions: number; stalls: number[]; bank: number; icache: [number, number] }>();
  for (let i = 0; i < marks.length / MARK_WORDS; i++) {
    const r = marks.subarray(i * MARK_WORDS, (i + 1) * MARK_WORDS);
    const layer = r[0] >>> 1;
    if ((r[0] & 1) === 0) { open.set(layer, i); continue; }
    const b = open.get(layer);
    if (b === undefined) continue;
    const s = marks.subarray(b * MARK_WORDS, (b + 1) * MARK_WORDS);
    byLayer.set(layer, {
      instructions: r[1] - s[1],
      stalls: STALL_KINDS.map((k) => r[2 + k] - s[2 + k]),
      bank: r[2 + STALL_KINDS.length] - s[2 + STALL_KINDS.length],
      icache: [r[3 + STALL_KINDS.length] - s[3 + STALL_KINDS.length], r[4 + STALL_KINDS.length] - s[4 + STALL_KINDS.length]],
    });
  }
  for (const row of rows) {
    const c = byLayer.get(row.layer);
    if (c) Object.assign(row, { instructions: c.instructions, stalls: c.stalls, bankConflicts: c.bank, icacheMisses: c.icache });
  }
}

/** The cluster cores start asleep in the HAL's fg_cluster_core on their L1 stacks (hal_iss.c), with the image's gp. */
function startClusterCores(emu: IssExports, elf: string, symbols: Map<string, ElfSymbol>, cores: number, l1: number, l2: number): void {
  const need = (name: string): { address: number; size: number } => {
    const s = symbols.get(name);
    if (!s) throw new GenError('run', `the rv32-xpulp image has no ${name} (not built with the cluster HAL?)`, { file: elf });
    return s;
  };
  const entry = need('fg_cluster_core');
  const master = need('fg_cluster_stack_master');
  const slaves = need('fg_cluster_stack_slaves');
  const gp = need('__global_pointer$');
  const slave = Math.floor(slaves.size / Math.max(1, cores - 1));
  if (emu.iss_cluster_config(0, 1, cores, l1, l2) !== 0) throw new GenError('run', `cannot wire a cluster of ${cores} cores`, { file: elf });
  // The cluster cores fetch their code through the cluster's instruction cache (emulator/assembly/iss/icache.ts).
  if (emu.iss_icache_config(1, cores) !== 0) throw new GenError('run', `cannot wire the instruction cache of ${cores} cores`, { file: elf });
  for (let k = 0; k < cores; k++) {
    const h = 1 + k;
    const [lo, hi] = k === 0 ? [master.address, master.address + master.size] : [slaves.address + (k - 1) * slave, slaves.address + k * slave];
    emu.iss_set_pc(h, entry.address);
    emu.iss_set_reg(h, 2, hi);
    emu.iss_set_reg(h, 3, gp.address);
    emu.iss_cluster_stack(h, lo, hi);
  }
}

/** Per-layer cycles from the HAL's marks (runtime/c/rv32/layer_marks.c): end minus begin of each layer, in run order. */
function layerCycles(emu: IssExports, mapped: { base: number; size: number; linear: number }[], symbols: Map<string, ElfSymbol>,
  names: Map<number, string>): { rows: IssLayer[]; span: number } {
  const sym = symbols.get('fg_layer_marks');
  if (!sym) return { rows: [], span: 0 };
  const m = mapped.find((r) => sym.address >= r.base && sym.address + sym.size <= r.base + r.size);
  if (!m) return { rows: [], span: 0 };
  const words = new Uint32Array(emu.memory.buffer, m.linear + (sym.address - m.base), sym.size / 4);
  const count = Math.min(words[0], Math.floor((words.length - 1) / 3));
  const open = new Map<number, number>();
  const rows: IssLayer[] = [];
  let first = -1;
  let last = -1;
  for (let k = 0; k < count; k++) {
    const tag = words[1 + 3 * k];
    const at = words[2 + 3 * k] + words[3 + 3 * k] * 2 ** 32;
    const layer = tag >>> 1;
    if ((tag & 1) === 0) {
      open.set(layer, at);
      if (first < 0) first = at;
    } else {
      const begin = open.get(layer);
      if (begin === undefined) continue;
      open.delete(layer);
      rows.push({ layer, name: names.get(layer) ?? '', cycles: at - begin, start: begin, end: at });
      last = at;
    }
  }
  return { rows, span: first >= 0 && last >= first ? last - first : 0 };
}

/** The `--on iss` table: each layer's measured cycles and share (on a cluster also its instructions and where the
 * cores' cycles went), then the network's and the program's totals. */
export function formatIssProfile(r: IssRun, clockHz?: number): string {
  const us = (c: number): string => (clockHz ? (c / clockHz * 1e6).toFixed(2) : '-');
  const total = r.networkCycles || 1;
  const cluster = r.harts > 1;
  const kilo = (v: number | undefined): string => (v === undefined ? '-' : v >= 1e4 ? `${Math.round(v / 1000)}k` : String(Math.round(v)));
  const lines = [
    `Profile on the RV32 core (CV32E40P timing, ${cluster ? `fabric controller + ${r.harts - 1} cluster cores` : 'one hart'}; cycles measured on the rv32 ELF itself, docs/iss.md)`,
    `${'id'.padStart(3)}  ${'layer'.padEnd(24)}  ${'cycles'.padStart(10)}  ${'us'.padStart(9)}  ${'share'.padStart(6)}` +
      (cluster ? `  ${['instr', 'ld-use', 'branch', 'memory', 'bank', 'fetch', 'sleep', 'dma', 'npu', 'refill', 'cold'].map((h) => h.padStart(7)).join('')}` : ''),
  ];
  for (const l of r.layers) {
    const extra = cluster
      ? `  ${[l.instructions, l.stalls?.[0], l.stalls?.[1], l.stalls?.[3], l.bankConflicts, l.stalls?.[8], l.stalls?.[5], l.stalls?.[6], l.stalls?.[7], ...(l.icacheMisses ?? [undefined, undefined])].map((v) => kilo(v).padStart(7)).join('')}`
      : '';
    lines.push(`${String(l.layer).padStart(3)}  ${quoted(l.name).slice(1, -1).slice(0, 24).padEnd(24)}  ${String(l.cycles).padStart(10)}  ` +
      `${us(l.cycles).padStart(9)}  ${(100 * l.cycles / total).toFixed(1).padStart(5)}%${extra}`);
  }
  if (cluster) lines.push('(instr and stall columns: the 8 cluster cores summed; memory includes bank; fetch: waiting for the instruction cache; sleep: in the event unit at forks and barriers; dma: waiting for the cluster DMA or an L3 copy; npu: waiting for N-EUREKA jobs; refill: lines the cores\' private instruction caches missed; cold: of those, lines brought from L2)');
  lines.push(`network ${r.networkCycles} cycles; whole program ${r.cycles} cycles, ${r.instructions} instructions ` +
    `(IPC ${(r.instructions / Math.max(1, r.cycles)).toFixed(2)}); stalls: load-use ${r.stalls[0]}, branch ${r.stalls[1]}, ` +
    `multi-cycle ${r.stalls[2]}, memory ${r.stalls[3]}${cluster ? ` (L1 bank conflicts ${r.bankConflicts})` : ''}, misaligned ${r.stalls[4]}` +
    `${cluster ? `, instruction fetch ${r.stalls[8]}, event-unit sleep ${r.stalls[5]}, DMA sleep ${r.stalls[6]}, NPU sleep ${r.stalls[7]} (cluster cores summed)` : ''}; emulated in ${r.ms.toFixed(0)} ms`);
  return lines.join('\n');
}
