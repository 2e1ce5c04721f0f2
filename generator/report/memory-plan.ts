/**
 * Memory-plan pictures: address against execution step, one box per buffer. Shared by `gen firmware` (which writes
 * out/memory-<REGION>.svg) and `gen run --report` (which embeds the home region's picture), so both draw the plan
 * the same way. Steps: 0 = inputs arrive, layer k of the manifest runs at step k + 1, the last step reads outputs.
 */
import { colour, esc, fitText, fmtBytes, tickStep } from './svg.js';

/** The part of firmware.json the pictures read; the generator's and the runtime's manifest types both have it. */
export interface PlanManifest {
  tensors: { name: string; role: string; region: string; address: number; bytes: number; symbol?: string }[];
  layers: { id: number; reads?: string[]; writes?: string[] }[];
  inputs: string[];
  outputs: string[];
}

export interface PlannedBuffer {
  key: string;
  names: string[];
  role: string;
  offset: number;
  bytes: number;
  first: number;
  last: number;
}

/**
 * Buffers of `region` with their lifetimes in steps; offsets from the lowest address used in the region. Buffers
 * are grouped by their code symbol (aliases share one); lifetimes come from the layers' reads and writes, as the
 * planner computes them (generator/midend/lifetimes.ts). Constants live for the whole run.
 */
export function plannedBuffers(m: PlanManifest, region: string): { buffers: PlannedBuffer[]; base: number; steps: number } {
  const end = m.layers.length + 1;
  const tensors = m.tensors.filter((t) => t.region === region);
  const base = Math.min(...tensors.map((t) => t.address));
  const byKey = new Map<string, PlannedBuffer>();
  const keyOf = (t: PlanManifest['tensors'][number]): string => t.symbol ?? `${t.address}:${t.name}`;
  for (const t of tensors) {
    const k = keyOf(t);
    const b = byKey.get(k);
    if (b) b.names.push(t.name);
    else byKey.set(k, { key: k, names: [t.name], role: t.role, offset: t.address - base, bytes: t.bytes, first: Infinity, last: -Infinity });
  }
  const named = new Map(tensors.map((t) => [t.name, byKey.get(keyOf(t))!]));
  const touch = (name: string, step: number): void => {
    const b = named.get(name);
    if (!b) return;
    b.first = Math.min(b.first, step);
    b.last = Math.max(b.last, step);
  };
  m.inputs.forEach((n) => touch(n, 0));
  m.layers.forEach((l, i) => [...(l.reads ?? []), ...(l.writes ?? [])].forEach((n) => touch(n, i + 1)));
  m.outputs.forEach((n) => touch(n, end));
  for (const b of byKey.values()) {
    if (b.role === 'const' || b.first === Infinity) {
      b.first = 0;
      b.last = end;
    }
  }
  return { buffers: [...byKey.values()], base, steps: end + 1 };
}

/** The fill of a buffer's box: constants grey, everything else a stable colour per buffer (the same in every picture). */
export function bufferFill(key: string, role: string, lighter = false): string {
  if (role === 'const') return lighter ? '#dedede' : '#c9c9c9';
  return colour(key, (role === 'activation' ? 65 : 55) + (lighter ? 15 : 0));
}

export interface ChartBox {
  /** Colour key: the same buffer has the same colour in every picture. */
  key: string;
  label: string;
  tip: string;
  fill: string;
  offset: number;
  bytes: number;
  first: number;
  last: number;
}

export interface MemoryChart {
  region: string;
  /** Chip address of offset 0, for the caption. */
  base: number;
  steps: number;
  stepLabel: (step: number) => string;
  boxes: ChartBox[];
  /** Dashed horizontal lines at an offset (a lower bound, a budget). */
  marks?: { offset: number; label: string; colour: string }[];
  caption: string;
}

const LEFT = 80;
const TOP = 10;

/** One region's plan as an SVG picture: address grows upwards, steps go right, one rect per box. */
export function memoryChartSvg(c: MemoryChart, width = 1200, height = 380): string {
  const { steps } = c;
  const span = Math.max(1, ...c.boxes.map((b) => b.offset + b.bytes), ...(c.marks ?? []).map((m) => m.offset));
  const plotW = width - LEFT - 12;
  const col = plotW / steps;
  // 1 px at least so that 16-byte parameters stay visible.
  const y = (off: number): number => TOP + height - (off / span) * height;
  const total = TOP + height + 44;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${total}" viewBox="0 0 ${width} ${total}" class="memplan" font-family="sans-serif" font-size="11">`,
  ];
  // Ticks at round numbers of the unit the labels use (bytes below 1 KiB, else KiB).
  const unit = span >= 2048 ? 1024 : 1;
  const step = tickStep(span / unit, 6) * unit;
  for (let a = 0; a <= span; a += step) {
    out.push(`<line x1="${LEFT}" y1="${y(a).toFixed(1)}" x2="${LEFT + plotW}" y2="${y(a).toFixed(1)}" stroke="#eee"/>`);
    // The top edge gets its own label below; a tick label within a line of it would overprint.
    if (y(a) - TOP < 12) continue;
    out.push(`<text x="${LEFT - 6}" y="${(y(a) + 4).toFixed(1)}" text-anchor="end" fill="#555">+${fmtBytes(a)}</text>`);
  }
  const every = Math.max(1, Math.ceil(steps / 40));
  for (let s = 0; s < steps; s += every) {
    out.push(`<text x="${(LEFT + (s + 0.5) * col).toFixed(1)}" y="${TOP + height + 16}" text-anchor="middle" fill="#555">${esc(c.stepLabel(s))}</text>`);
  }
  // Largest first, so that a small box drawn later is never hidden under a large one.
  for (const b of [...c.boxes].sort((p, q) => q.bytes - p.bytes)) {
    const x0 = LEFT + b.first * col;
    const w = (b.last - b.first + 1) * col;
    const y1 = y(b.offset + b.bytes);
    const h = Math.max(1, y(b.offset) - y1);
    out.push(`<g><title>${esc(b.tip)}</title><rect x="${x0.toFixed(2)}" y="${y1.toFixed(2)}" width="${w.toFixed(2)}" height="${h.toFixed(2)}" ` +
      `fill="${b.fill}" stroke="#555" stroke-width="0.5"/>`);
    const label = h >= 13 ? fitText(b.label, w - 4) : '';
    if (label) out.push(`<text x="${(x0 + 3).toFixed(2)}" y="${(y1 + h / 2 + 4).toFixed(2)}" fill="#111">${esc(label)}</text>`);
    out.push('</g>');
  }
  for (const m of c.marks ?? []) {
    const my = y(m.offset).toFixed(1);
    out.push(`<line x1="${LEFT}" y1="${my}" x2="${LEFT + plotW}" y2="${my}" stroke="${m.colour}" stroke-width="1.2" stroke-dasharray="6 3"/>`);
    // Above its line, unless that would leave the picture at the top.
    const ty = y(m.offset) - TOP < 14 ? y(m.offset) + 12 : y(m.offset) - 3;
    out.push(`<text x="${LEFT + plotW - 4}" y="${ty.toFixed(1)}" text-anchor="end" fill="${m.colour}" stroke="#fff" stroke-width="3" paint-order="stroke">${esc(m.label)}</text>`);
  }
  out.push(`<line x1="${LEFT}" y1="${TOP + height}" x2="${LEFT + plotW}" y2="${TOP + height}" stroke="#888"/>`);
  out.push(`<line x1="${LEFT}" y1="${TOP}" x2="${LEFT + plotW}" y2="${TOP}" stroke="#bbb" stroke-dasharray="4 3"/>`);
  out.push(`<text x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end" fill="#555">+${fmtBytes(span)}</text>`);
  out.push(`<text x="${LEFT}" y="${TOP + height + 34}" fill="#555">${esc(c.region)} from 0x${c.base.toString(16)}: ${esc(c.caption)}</text>`);
  out.push('</svg>');
  return out.join('\n');
}

/** Step labels of a manifest's steps: 'in', the layer ids, 'out'. */
export function stepLabels(m: PlanManifest): (s: number) => string {
  const last = m.layers.length + 1;
  return (s) => (s === 0 ? 'in' : s === last ? 'out' : String(m.layers[s - 1].id));
}

/** Boxes of the buffers of one region of a manifest (the home memory's plan). */
export function bufferBoxes(buffers: PlannedBuffer[]): ChartBox[] {
  return buffers.map((b) => ({
    key: b.key,
    label: b.names[0],
    tip: `${b.names.join(' = ')} (${b.role}): ${b.bytes} bytes at +0x${b.offset.toString(16)}, steps ${b.first}..${b.last}`,
    fill: bufferFill(b.key, b.role),
    offset: b.offset,
    bytes: b.bytes,
    first: b.first,
    last: b.last,
  }));
}

/** The home memory's plan as `gen run --report` shows it: rebuilt from firmware.json alone. */
export function memoryPlanSvg(m: PlanManifest, region: string, width = 1200, height = 380): string {
  const { buffers, base, steps } = plannedBuffers(m, region);
  const span = Math.max(1, ...buffers.map((b) => b.offset + b.bytes));
  return memoryChartSvg({
    region, base, steps, stepLabel: stepLabels(m), boxes: bufferBoxes(buffers),
    caption: `${fmtBytes(span)} spanned; x = execution step (in, layer ids, out); grey = constants`,
  }, width, height);
}
