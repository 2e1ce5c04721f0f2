/** The emulator module as the runtime sees it: its exports, and readers for its region table, fault and event log. */
import { readFile } from 'node:fs/promises';
import { GenError } from '../../generator/errors.js';
import { EMULATOR_WASM } from './paths.js';

/** Exports of build/emulator.wasm (emulator/assembly/index.ts); i64 results arrive as BigInt. */
export interface EmulatorExports {
  memory: WebAssembly.Memory;
  configure(platform: number, cores: number): number;
  memory_pages(): number;
  heap_base(): number;
  region_count(): number;
  region_chip_base(i: number): number;
  region_linear_base(i: number): number;
  region_size(i: number): number;
  region_name(i: number): number;
  core_count(): number;
  agent_count(): number;
  total_cycles(): bigint;
  /** L1 bank-conflict stall cycles charged so far, all cores (docs/timing.md "L1 bank conflicts"). */
  l1_stall_cycles(): bigint;
  agent_cycles(agent: number): bigint;
  agent_busy(agent: number): bigint;
  /** Units of a cost class over the run, all agents (runtime/as/cost.ts ids). */
  units_of(cls: number): bigint;
  events_ptr(): number;
  events_capacity(): number;
  events_count(): number;
  events_first(): number;
  events_total(): number;
  cost_cycles(cls: number): number;
  fork_cycles(): number;
  barrier_cycles(): number;
  join_cycles(): number;
  fault_message(): number;
  fault_message_length(): number;
  /** The watchdog (`gen run --max-cycles`): no agent's clock may pass this; 0 = no limit. */
  set_cycle_limit(cycles: bigint): void;
  set_bank_skew(cycles: number): void;
  set_cost_64ths(cls: number, v: number): void;
  /** Layer `layer`'s code as the C build compiled it (bytes), in place of the generator's estimate (code-bytes.ts). */
  set_layer_code_bytes(layer: number, bytes: number): void;
  /** The layer open when a trap happened (-1: none). */
  current_layer(): number;
  // The device API; the firmware imports these as module "chip".
  fork(cores: number): number;
  enter(core: number): void;
  barrier(): void;
  join(): void;
  compute(cls: number, units: number): void;
  divide(units: number, divisor: number): void;
  cycles(): bigint;
  check(ptr: number, bytes: number, write: number): void;
  layer_begin(layer: number): void;
  layer_end(layer: number): void;
  // The cluster DMA (emulator/assembly/dma.ts; firmware imports the first four through runtime/as/dma.ts).
  dma_alloc(): number;
  dma_free(ch: number): void;
  dma_copy(ch: number, l1: number, ext: number, bytes: number, toL1: number, extLength: number, extStride: number,
    l1Length: number, l1Stride: number): void;
  dma_wait(ch: number): void;
  /** Faults if a transfer was never waited for; the runtime calls it after the firmware returns. */
  dma_finish(): void;
  dma_channels(): number;
  dma_max_bytes(): number;
  dma_latency_cycles(): number;
  dma_bytes_per_cycle(): number;
  dma_queue_depth(): number;
  dma_register_cycles(): number;
  // SpiNNaker2 (emulator/assembly/pes.ts, pe-dma.ts, mla.ts); the firmware imports them through its HAL.
  irq_raise(pe: number, key: number, payload: number): void;
  irq_next(): number;
  pe_wake(pe: number): void;
  irq_key(): number;
  irq_payload(): number;
  pe_signal(to: number): void;
  pe_wait(n: number): void;
  pe_id(): number;
  pe_count(): number;
  /** Faults if an interrupt was never taken or a completion signal never waited for. */
  pe_finish(): void;
  pe_dma(local: number, dram: number, bytes: number, toLocal: number, rowLength: number, rowStride: number): number;
  pe_dma_wait(ticket: number): void;
  /** Faults if a PE's transfer was never waited for. */
  pe_dma_finish(): void;
  mla_start(a: number, b: number, out: number, m: number, n: number, k: number, aRow: number, aK: number, bK: number,
    bCol: number, outRow: number, flags: number): void;
  mla_wait(): void;
  /** A PE with an MLA job never waited for, or -1. */
  mla_busy(): number;
  mla_peak_macs(): number;
  // Siracusa's N-EUREKA NPU (emulator/assembly/neureka.ts; the firmware imports the first three through
  // runtime/as/neureka.ts). Register offsets and semantics: docs/neureka.md.
  npu_write(offset: number, value: number): void;
  /** u32: JavaScript receives it as a signed i32 (apply `>>> 0`). */
  npu_read(offset: number): number;
  npu_event_wait(): void;
  /** Faults if a job was never observed finished (or acquired and never triggered); else the jobs run. */
  npu_finish(): number;
  npu_register_cycles(): number;
  // Siracusa's HyperRAM DMA (emulator/assembly/l3-dma.ts; the firmware imports l3_copy through runtime/as/l3.ts).
  l3_copy(l2: number, l3: number, bytes: number, toL3: number): void;
  l3_setup_cycles(): number;
  l3_transfer_cycles(bytes: number): number;
  // Gemmini (emulator/assembly/gemmini/; docs/gemmini.md): a RoCC command with gemmini.h's funct and 64-bit rs1/rs2.
  gemmini_rocc(funct: number, rs1: bigint, rs2: bigint): void;
  /** The host waits until every issued command has completed. */
  gemmini_fence(): void;
  /** Faults if commands are still running (the firmware returned without a fence); the runtime's check. */
  gemmini_finish(): void;
  gemmini_busy_until(): bigint;
  /** Linear addresses of scratchpad row 0 (16 int8 per row) and accumulator row 0 (16 int32 per row). */
  gemmini_spad_ptr(): number;
  gemmini_acc_ptr(): number;
  // BrainScaleS-2 (emulator/assembly/brainscales2/; docs/brainscales2.md): chip identity and noise, synapse blocks,
  // analog runs (linear addresses), counters.
  bss2_chip(seed: number, pattern: number, noiseSeed: number, noiseStd: number): void;
  bss2_configure(array: number, row0: number, col0: number, rows: number, cols: number, w: number, stride: number): void;
  bss2_run(array: number, row0: number, col0: number, rows: number, cols: number, x: number, y: number, numSends: number,
    wait: number, gain: number): void;
  bss2_stat(i: number): bigint;
  bss2_effective_weight(array: number, row: number, col: number): number;
}

/** Platform ids of configure() (emulator/assembly/index.ts). */
export const PLATFORM_IDS: Readonly<Record<string, number>> = { generic: 0, siracusa: 1, spinnaker2: 2, gemmini: 3, tangram: 4, brainscales2: 5 };

let compiled: Promise<WebAssembly.Module> | undefined;

/** The compiled emulator module, once per process. */
export function emulatorModule(): Promise<WebAssembly.Module> {
  compiled ??= readFile(EMULATOR_WASM).then(
    (bytes) => WebAssembly.compile(bytes),
    () => {
      compiled = undefined;
      throw new GenError('run', `no emulator at ${EMULATOR_WASM}: run \`npm run build\``);
    },
  );
  return compiled;
}

/** A fresh emulator (fresh, zeroed memory), configured for `platform`. */
export async function createEmulator(platform: string, cores = 0): Promise<EmulatorExports> {
  const id = PLATFORM_IDS[platform];
  if (id === undefined) throw new GenError('run', `platform '${platform}' has no emulator model`);
  const emu = (await WebAssembly.instantiate(await emulatorModule(), {})).exports as unknown as EmulatorExports;
  try {
    emu.configure(id, cores);
  } catch (e) {
    throw faultError(emu, e);
  }
  return emu;
}

export interface Region {
  index: number;
  name: string;
  /** Chip address (unsigned). */
  chip: number;
  size: number;
  linear: number;
}

/** The configured chip's region table. */
export function readRegions(emu: EmulatorExports): Region[] {
  const regions: Region[] = [];
  for (let i = 0; i < emu.region_count(); i++) {
    regions.push({
      index: i,
      name: readAsString(emu.memory, emu.region_name(i)),
      chip: emu.region_chip_base(i) >>> 0, // u32 arrives as a signed i32
      size: emu.region_size(i) >>> 0,
      linear: emu.region_linear_base(i) >>> 0,
    });
  }
  return regions;
}

/** An AssemblyScript string: UTF-16LE, its byte length in the u32 before it. */
export function readAsString(memory: WebAssembly.Memory, ptr: number): string {
  const bytes = new DataView(memory.buffer).getUint32(ptr - 4, true);
  return Buffer.from(memory.buffer, ptr, bytes).toString('utf16le');
}

/** The fault message, or undefined when the emulator has not faulted. */
export function readFault(emu: EmulatorExports): string | undefined {
  const n = emu.fault_message_length();
  return n > 0 ? Buffer.from(emu.memory.buffer, emu.fault_message(), n).toString('latin1') : undefined;
}

/** " 'name'" after a layer id, or nothing when the manifest gives the layer no name. */
function withName(quotedName: string): string {
  return quotedName === "''" ? '' : ` ${quotedName}`;
}

/** A trap turned into the error the user sees: the emulator's fault message when there is one. */
export function faultError(emu: EmulatorExports, e: unknown, layerName?: (layer: number) => string): GenError {
  if (e instanceof GenError) return e;
  const fault = readFault(emu);
  // The emulator knows layers by id; the manifest knows their names.
  if (fault !== undefined) {
    // msgLayer() ends a message with " in layer N": the name goes after it (never into the middle of a message).
    const named = layerName ? fault.replace(/ in layer (\d+)$/, (m, id: string) => `${m}${withName(layerName(Number(id)))}`) : fault;
    return new GenError('run', `fault: ${named}`);
  }
  // wasmer wraps the trap ("Error while running start function: RuntimeError: JsValue(RuntimeError: <reason>...").
  const text = e instanceof Error ? e.message : String(e);
  const reasons = [...text.matchAll(/RuntimeError: ([\w ]+)/g)];
  const reason = reasons.length > 0 ? reasons[reasons.length - 1][1].trim() : text;
  // A wasm trap (an access outside the linear memory, unreachable, a division by zero) carries no address; the
  // layer the firmware was in says where to look, and the memory's size what "outside" means.
  const layer = emu.current_layer();
  const where = layer >= 0 ? ` in layer ${layer}${layerName ? withName(layerName(layer)) : ''}` : ' outside any layer';
  const size = /out of bounds/.test(reason) ? ` (the linear memory holds ${emu.memory.buffer.byteLength} bytes)` : '';
  return new GenError('run', `the firmware trapped: ${reason}${where}${size}`);
}

export interface EmulatorEvent {
  /**
   * layer: a layer_begin..layer_end span; share: one cluster core's work in one phase of a fork; dma: one cluster
   * DMA transfer issued by `agent` (SpiNNaker2: one PE DMA transfer), start..end the engine's busy interval,
   * `detail` decoded by dmaDetail(); mla: one SpiNNaker2 MAC-array job on PE `agent`, detail = its 4x16 blocks;
   * npu: one N-EUREKA job triggered by `agent`, start..end the engine's busy interval, `detail` decoded by npuDetail();
   * l3: one HyperRAM DMA copy by `agent`, which slept through it; `detail` decoded by l3Detail(); gemmini: one
   * Gemmini command on one of its units, start..end the unit's busy interval, `detail` decoded by gemminiDetail();
   * bss2: one phase of a BrainScaleS-2 device call on `agent`'s clock, `detail` decoded by bss2Detail(); wait (the
   * RV32 core, `gen run --on iss`): hart `agent` lost start..end, `detail` why (WAIT_REASONS).
   */
  kind: 'layer' | 'share' | 'dma' | 'mla' | 'npu' | 'l3' | 'gemmini' | 'bss2' | 'wait';
  /** 0 = master, 1.. = cluster core agent - 1. */
  agent: number;
  /** The layer id (share: the master's open layer, -1 outside any). */
  layer: number;
  /** share: the phase index within its fork (0 first, +1 per barrier); layer: 0. */
  detail: number;
  start: number;
  end: number;
}

const EVENT_BYTES = 32;
const KINDS = ['layer', 'share', 'dma', 'mla', 'npu', 'l3', 'gemmini', 'bss2', 'wait'] as const;

/** A `wait` event's detail (emulator/assembly/events.ts kind 8): why the hart did not run. */
export const WAIT_REASONS: Record<number, 'idle' | 'barrier' | 'cluster task' | 'DMA' | 'NPU'> = {
  1: 'idle', 2: 'barrier', 3: 'cluster task', 4: 'DMA', 5: 'NPU',
};

/** What reading the event log needs of an emulator instance (the AS path's and the RV32 core's alike). */
export type EventLogExports = Pick<EmulatorExports, 'memory' | 'events_ptr' | 'events_capacity' | 'events_count' | 'events_first' | 'events_total'>;

/** A `gemmini` event's detail word (emulator/assembly/gemmini/timing.ts, kind 6). */
export interface GemminiDetail {
  /** The command's RoCC funct (gemmini.h k_*). */
  funct: number;
  unit: 'load' | 'execute' | 'store';
  /** Issued by the loop_ws unroller rather than the host. */
  unrolled: boolean;
  rows: number;
}

const GEMMINI_UNITS = ['load', 'execute', 'store', 'store'] as const;

export function gemminiDetail(detail: number): GemminiDetail {
  return {
    funct: detail & 0xff,
    unit: GEMMINI_UNITS[(detail >>> 8) & 3],
    unrolled: (detail & (1 << 10)) !== 0,
    rows: (detail >>> 16) & 0xff,
  };
}

/** A `bss2` event's detail word (emulator/assembly/events.ts recordBss2, kind 7): the phase and its amount. */
export interface Bss2Detail {
  phase: 'in' | 'run' | 'out' | 'configure';
  /** Bytes over the link; a run: its multiply-accumulates. */
  amount: number;
}

const BSS2_PHASES = ['in', 'run', 'out', 'configure'] as const;

export function bss2Detail(detail: number): Bss2Detail {
  return { phase: BSS2_PHASES[detail & 3], amount: detail >>> 2 };
}

/** An `l3` event's detail word (emulator/assembly/events.ts, kind 5): the bytes and the direction. */
export function l3Detail(detail: number): { bytes: number; toL3: boolean } {
  return { bytes: detail & 0xffffff, toL3: (detail & (1 << 24)) !== 0 };
}

/** A `dma` event's detail word: mchan v7 command-word bits plus the channel (emulator/assembly/events.ts). */
export interface DmaDetail {
  channel: number;
  bytes: number;
  /** true: external (L2/L3) to L1; false: L1 to external. */
  toL1: boolean;
  /** Rows on the external side (command bit 19) and on the L1 side (bit 23). */
  ext2d: boolean;
  l12d: boolean;
}

export function dmaDetail(detail: number): DmaDetail {
  return {
    channel: (detail >>> 24) & 15,
    bytes: detail & 0x1ffff,
    toL1: (detail & (1 << 17)) !== 0,
    ext2d: (detail & (1 << 19)) !== 0,
    l12d: (detail & (1 << 23)) !== 0,
  };
}

/** An `npu` event's detail word (emulator/assembly/events.ts, kind 4). */
export interface NpuDetail {
  /** The job id the engine gave it (0..255). */
  id: number;
  mode: '3x3' | '3x3dw' | '1x1';
  /** Weights read from the neural memory (WMEM) rather than L1. */
  wmem: boolean;
  weightBits: number;
  /** int32 output (norm/quant off). */
  out32: boolean;
}

const NPU_MODES = ['3x3', '3x3dw', '1x1', '1x1'] as const;

export function npuDetail(detail: number): NpuDetail {
  return {
    id: detail & 255,
    mode: NPU_MODES[(detail >>> 8) & 3],
    wmem: (detail & (1 << 10)) !== 0,
    weightBits: (detail >>> 12) & 15,
    out32: (detail & (1 << 16)) !== 0,
  };
}

/**
 * The event log, oldest first (layout: emulator/assembly/events.ts), and how many records the ring overwrote; with
 * `since` (an earlier events_total()) only the records written after it that are still held.
 */
export function readEvents(emu: EventLogExports, since = 0): { events: EmulatorEvent[]; dropped: number } {
  const view = new DataView(emu.memory.buffer);
  const base = emu.events_ptr();
  const capacity = emu.events_capacity();
  const count = emu.events_count();
  const first = emu.events_first();
  const events: EmulatorEvent[] = [];
  for (let i = Math.max(0, count - (emu.events_total() - since)); i < count; i++) {
    const p = base + ((first + i) % capacity) * EVENT_BYTES;
    const kind = KINDS[view.getInt32(p, true)];
    if (kind === undefined) throw new GenError('internal', `event log: unknown kind ${view.getInt32(p, true)}`);
    events.push({
      kind,
      agent: view.getInt32(p + 4, true),
      layer: view.getInt32(p + 8, true),
      detail: view.getInt32(p + 12, true),
      start: Number(view.getBigInt64(p + 16, true)),
      end: Number(view.getBigInt64(p + 24, true)),
    });
  }
  return { events, dropped: emu.events_total() - count };
}

/**
 * Agent 0 is the master (Siracusa's fabric controller), agent k >= 1 is cluster core k - 1. On SpiNNaker2 agent k is
 * PE k, PE 0 the scheduler.
 */
export function agentName(agent: number, platform?: string): string {
  if (platform === 'spinnaker2') return agent === 0 ? 'PE0 (scheduler)' : `PE${agent}`;
  return agent === 0 ? 'master' : `core${agent - 1}`;
}
