/**
 * SpiNNaker2: the time stamps the firmware wrote into the DRAM's time-measurement area (docs/spinnaker2.md), read
 * back after a run and turned into the per-layer table `gen run` prints: setup, each layer with its workers and the
 * scheduler's overhead, cleanup, total. The stamps are what a board would report (32-bit PE cycle counters); the
 * emulator's own event log is not used here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GenError, printable } from '../../generator/errors.js';

interface Area {
  address: number;
  bytes: number;
}

/** The part of firmware.json's `spinnaker2` section the reader needs. */
interface S2Description {
  areas: { time: Area & { run: number; slotBytes: number; layerBlockBytes: number } };
  layers: { id: number | null; type: string; workers: number; time: number; plan?: { tiles: number; estimate: { cycles: number } } }[];
}

export interface S2LayerTimes {
  /** firmware.json layer id; null for the finish layer. */
  id: number | null;
  name: string;
  type: string;
  workers: number;
  tiles: number;
  /** Scheduler stamps: begin, workers woken, all done, end. */
  scheduler: number[];
  /** Per worker: wake, configured, computed, signal. */
  worker: number[][];
  /** The generator's cost-model estimate (cycles), if any. */
  estimate?: number;
}

export interface S2Times {
  clockHz: number;
  /** Scheduler run record: boot, first layer begins, finish layer begins, end. */
  run: number[];
  layers: S2LayerTimes[];
}

export function readS2Description(outDir: string): S2Description {
  const file = join(outDir, 'firmware.json');
  const json = JSON.parse(readFileSync(file, 'utf8')) as { spinnaker2?: S2Description };
  if (!json.spinnaker2) throw new GenError('run', 'firmware.json has no spinnaker2 section', { file: outDir });
  checkDescription(json.spinnaker2, file);
  return json.spinnaker2;
}

const isCount = (v: unknown, max: number): boolean => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;

/** The section as the reader uses it: a folder edited by hand (or damaged) fails here with one line, not in the middle. */
function checkDescription(d: S2Description, file: string): void {
  const fail = (where: string): never => { throw new GenError('run', `firmware.json spinnaker2.${where} is missing or out of range`, { file }); };
  const t = d.areas?.time;
  if (!t || !isCount(t.run, 2 ** 32) || !isCount(t.slotBytes, 2 ** 20) || t.slotBytes < 16) fail('areas.time');
  if (!Array.isArray(d.layers)) fail('layers');
  d.layers.forEach((l, i) => {
    if (typeof l !== 'object' || l === null) fail(`layers[${i}]`);
    if (!(l.id === null || isCount(l.id, 2 ** 31)) || typeof l.type !== 'string' || !isCount(l.workers, 151) || !isCount(l.time, 2 ** 32)) fail(`layers[${i}]`);
  });
}

/** Reads the stamps out of the DRAM (`dram` = its bytes from the chip address `dramBase`). */
export function readS2Times(d: S2Description, dram: Uint8Array, dramBase: number, clockHz: number, names: Map<number, string>): S2Times {
  const view = new DataView(dram.buffer, dram.byteOffset, dram.byteLength);
  const slot = (address: number): number[] => {
    const at = address - dramBase;
    if (at < 0 || at + 16 > dram.byteLength) throw new GenError('run', `firmware.json spinnaker2: time stamp address 0x${address.toString(16)} lies outside the DRAM`);
    return [0, 4, 8, 12].map((o) => view.getUint32(at + o, true));
  };
  const { time } = d.areas;
  return {
    clockHz,
    run: slot(time.run),
    layers: d.layers.map((l) => ({
      id: l.id,
      name: l.id === null ? '(finish)' : names.get(l.id) ?? '',
      type: l.type,
      workers: l.workers,
      tiles: l.plan?.tiles ?? 0,
      scheduler: slot(l.time),
      worker: Array.from({ length: l.workers }, (_, j) => slot(l.time + (1 + j) * time.slotBytes)),
      estimate: l.plan?.estimate.cycles,
    })),
  };
}

export interface S2Row {
  id: number | null;
  name: string;
  type: string;
  workers: number;
  tiles: number;
  cycles: number;
  /** Layer time outside the workers' window: header fetch, interrupts, completion packets, stamps. */
  overhead: number;
  /** Longest worker configuration fetch and longest tile run. */
  config: number;
  compute: number;
  estimate?: number;
}

export interface S2Table {
  clockHz: number;
  setup: number;
  layers: S2Row[];
  cleanup: number;
  total: number;
}

/**
 * Layer l lasts from its scheduler's begin stamp to the next layer's (the finish layer's for the last), so setup
 * (boot to the first begin), the layers and cleanup (the finish layer: stopping the workers) add up to the total.
 */
export function s2Table(t: S2Times): S2Table {
  const compute = t.layers.filter((l) => l.id !== null);
  const finish = t.layers[t.layers.length - 1];
  const rows = compute.map((l, i) => {
    const next = t.layers[i + 1].scheduler[0];
    const cycles = next - l.scheduler[0];
    const span = Math.max(...l.worker.map((w) => w[3])) - Math.min(...l.worker.map((w) => w[0]));
    return {
      id: l.id, name: l.name, type: l.type, workers: l.workers, tiles: l.tiles, cycles,
      overhead: cycles - span,
      config: Math.max(...l.worker.map((w) => w[1] - w[0])),
      compute: Math.max(...l.worker.map((w) => w[2] - w[1])),
      estimate: l.estimate,
    };
  });
  return {
    clockHz: t.clockHz,
    setup: (t.layers[0]?.scheduler[0] ?? t.run[3]) - t.run[0],
    layers: rows,
    cleanup: t.run[3] - finish.scheduler[0],
    total: t.run[3] - t.run[0],
  };
}

export function formatS2Table(s: S2Table, title: string): string {
  const us = (c: number): string => ((c * 1e6) / s.clockHz).toFixed(2);
  const head = ['id', 'layer', 'type', 'workers', 'tiles', 'us', 'sched. overhead us', 'config us', 'compute us', 'model us'];
  const body = s.layers.map((l) => [String(l.id), printable(l.name, 28), l.type, String(l.workers), String(l.tiles), us(l.cycles),
    us(l.overhead), us(l.config), us(l.compute), l.estimate === undefined ? '-' : us(l.estimate)]);
  const extra = (name: string, c: number): string[] => ['', name, '', '', '', us(c), '', '', '', ''];
  const tail = [extra('(setup)', s.setup), extra('(cleanup: finish layer)', s.cleanup), extra('total', s.total)];
  const width = head.map((h, c) => Math.max(h.length, ...[...body, ...tail].map((r) => r[c].length)));
  const left = new Set([1, 2]);
  const line = (r: string[]): string => r.map((v, c) => (left.has(c) ? v.padEnd(width[c]) : v.padStart(width[c]))).join('  ').trimEnd();
  const rule = '-'.repeat(line(head).length);
  return [
    `${title}: time stamps from the DRAM time-measurement area, microseconds at ${s.clockHz / 1e6} MHz`,
    line(head), rule, ...body.map(line), rule, ...tail.map(line),
  ].join('\n');
}
