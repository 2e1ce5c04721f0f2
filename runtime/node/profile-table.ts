/** The profile as a plain-text table for the terminal (`gen run`): one row per layer, then setup, teardown, total. */
import { printable } from '../../generator/errors.js';
import type { AnalogUse, DmaBytes, Profile, Span, Traffic } from './profile.js';

const NAME_WIDTH = 20;

/** Bytes and MACs in at most 6 characters (the table fits a 100-column terminal); cycles stay exact. */
export function compact(n: number): string {
  if (n < 10000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e5 ? 1 : 0)}k`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 2 : 1)}M`;
  return `${(n / 1e9).toFixed(2)}G`;
}

export function memoryLevels(p: Profile): string[] {
  return Object.keys(p.total.memory);
}

/** DMA columns only when the run used the DMA: untiled firmware never does. */
export function showsDma(p: Profile): boolean {
  return p.total.dma.in + p.total.dma.out > 0;
}

/** NPU columns only when the run used N-EUREKA. */
export function showsNpu(p: Profile): boolean {
  return p.total.npuJobs > 0;
}

/** Analog columns only when the run used BrainScaleS-2's arrays. */
export function showsAnalog(p: Profile): boolean {
  return p.total.analog.runs > 0;
}

/** Array columns only when the run used Gemmini's array. */
export function showsArray(p: Profile): boolean {
  return p.total.arrayCycles > 0;
}

export function pct(x: number | null): string {
  return x === null ? '-' : `${(x * 100).toFixed(1)}%`;
}

export function fmtUs(us: number): string {
  return us >= 100 ? us.toFixed(1) : us >= 1 ? us.toFixed(2) : us.toFixed(3);
}

function clip(text: string, n: number): string {
  const s = printable(text, 1000); // a layer name is model text: no control characters reach the terminal
  return s.length <= n ? s : `${s.slice(0, n - 1)}~`;
}

export function formatProfile(p: Profile): string {
  const levels = memoryLevels(p);
  const dma = showsDma(p);
  const npu = showsNpu(p);
  const arr = showsArray(p);
  const ana = showsAnalog(p);
  const analogCells = (a: AnalogUse): string[] => (ana ? [String(a.runs), String(a.cycles), String(a.linkCycles), compact(a.linkBytes)] : []);
  // A memory's read or write column appears when the run read or wrote it at all (the NPU only reads its memory).
  const cols = levels.flatMap((l) => (['read', 'written'] as const).filter((k) => p.total.memory[l][k] > 0).map((k) => ({ l, k })));
  const head = ['id', 'layer', 'kernel', 'engine', 'MACs', ...cols.map((c) => `${c.l} ${c.k === 'read' ? 'rd' : 'wr'}`),
    ...(dma ? ['DMA in', 'DMA out'] : []), ...(npu ? ['NPU jobs', 'NPU cyc'] : []), 'cycles', 'us', 'share', 'util', ...(arr ? ['array'] : []),
    ...(ana ? ['runs', 'analog cyc', 'link cyc', 'link B'] : [])];
  const bytes = (m: Record<string, Traffic>, d: DmaBytes, n: { npuJobs: number; npuCycles: number }): string[] => [
    ...cols.map((c) => compact(m[c.l]?.[c.k] ?? 0)),
    ...(dma ? [compact(d.in), compact(d.out)] : []),
    ...(npu ? [String(n.npuJobs), String(n.npuCycles)] : []),
  ];
  const rows: string[][] = p.layers.map((l) => [
    // Kernel and engine come from firmware.json, which a user may edit: printable like the names.
    String(l.layer), clip(l.name, NAME_WIDTH), printable(l.kernel, 40), printable(l.engine, 40), compact(l.macs), ...bytes(l.memory, l.dma, l),
    String(l.cycles), fmtUs(l.us), pct(l.share), pct(l.utilisation), ...(arr ? [pct(l.arrayBusy)] : []), ...analogCells(l.analog),
  ]);
  const blank = bytes({}, { in: 0, out: 0 }, { npuJobs: 0, npuCycles: 0 }).map(() => '');
  const extra = (name: string, s: Span): string[] =>
    ['', name, '', '', '', ...blank, String(s.cycles), fmtUs(s.us), pct(s.share), '', ...(arr ? [''] : []), ...(ana ? ['', '', '', ''] : [])];
  rows.push(extra('(setup)', p.setup));
  if (p.between.cycles !== 0) rows.push(extra('(between layers)', p.between));
  rows.push(extra('(teardown)', p.teardown));
  rows.push(['', 'total', '', '', compact(p.total.macs), ...bytes(p.total.memory, p.total.dma, p.total),
    String(p.total.cycles), fmtUs(p.total.us), '100.0%', pct(p.total.utilisation), ...(arr ? [pct(p.total.arrayBusy)] : []),
    ...analogCells(p.total.analog)]);
  // The setup, between-layers and teardown rows' labels may reach into the id column, which they leave blank, all
  // indented alike: the layer column is as wide as its names (a label of 16 characters made a 100-column table 101).
  const first = p.layers.length;
  const spans = (k: number): boolean => k >= first && k < rows.length - 1;
  const width = head.map((h, c) => Math.max(h.length, ...rows.map((r, k) => (c === 1 && spans(k) ? 0 : r[c].length))));
  const label = Math.max(...rows.filter((_, k) => spans(k)).map((r) => r[1].length));
  width[1] = Math.max(width[1], label - width[0] - 1);
  const indent = ' '.repeat(Math.min(width[0] + 2, width[0] + 2 + width[1] - label));
  // Text columns (layer, kernel, engine) left-aligned, numbers right-aligned.
  const left = new Set([1, 2, 3]);
  // The engine column only when layers ran on more than one engine (the NPU beside the cores).
  const engines = new Set(p.layers.map((l) => l.engine).filter((e) => e !== 'none'));
  const shown = head.map((_, c) => c !== 3 || engines.size > 1);
  const cells = (r: string[]): string[] => r.map((v, c) => (left.has(c) ? v.padEnd(width[c]) : v.padStart(width[c])));
  const line = (r: string[]): string => cells(r).filter((_, c) => shown[c]).join('  ').trimEnd();
  const spanning = (r: string[]): string =>
    [(indent + r[1]).padEnd(width[0] + 2 + width[1]), ...cells(r).filter((_, c) => c > 1 && shown[c])].join('  ').trimEnd();
  const rule = '-'.repeat(line(head).length);
  const mhz = p.clockHz > 0 ? `${p.clockHz / 1e6} MHz` : 'no clock given';
  const withNpu = p.totalPeakMacsPerCycle > p.peakMacsPerCycle;
  const peak = p.peakMacsPerCycle <= 0 ? '' : withNpu
    ? `, utilisation against each engine's peak: cluster ${p.peakMacsPerCycle}, N-EUREKA ${p.totalPeakMacsPerCycle - p.peakMacsPerCycle}, total ${p.totalPeakMacsPerCycle} MAC/cycle`
    : `, utilisation against ${p.peakMacsPerCycle} MAC/cycle peak${arr ? '; array: cycles the array streams operands over the layer\'s' : ''}${ana ? '; runs, analog cyc: the arrays\' runs and their cycles; link cyc, link B: transfers over the host-FPGA link (inputs, outputs, synapse blocks)' : ''}`;
  return [
    `Profile of ${printable(p.model || 'the model', 80)} on ${printable(p.platform, 40)} (${p.cores > 0 ? `${p.cores} ${p.platform === 'spinnaker2' ? 'worker PEs' : 'cluster cores'}` : '1 core'}, ${mhz})`,
    ...(peak ? [peak.slice(2)] : []),
    `cycles from the ${p.cyclesFrom}`,
    'bytes and MACs: k = 10^3, M = 10^6',
    line(head),
    rule,
    ...rows.slice(0, p.layers.length).map(line),
    rule,
    ...rows.slice(first).map((r, k) => (spans(first + k) ? spanning(r) : line(r))),
  ].join('\n');
}
