/**
 * The memory-plan picture of one region: execution step along x (0 = inputs arrive, layer k of the manifest runs
 * at step k + 1, the last step reads the outputs), address along y, one box per buffer over its lifetime. Buffers
 * are grouped by their code symbol (aliases share one); lifetimes come from the layers' reads and writes, as the
 * planner computes them (generator/midend/lifetimes.ts). Constants live for the whole run.
 */
import type { Manifest, ManifestTensor } from '../manifest.js';
import { colour, esc, fitText, fmtBytes, tickStep } from './svg.js';

export interface PlannedBuffer {
  key: string;
  names: string[];
  role: string;
  offset: number;
  bytes: number;
  first: number;
  last: number;
}

/** Buffers of `region` with their lifetimes in steps; offsets from the lowest address used in the region. */
export function plannedBuffers(m: Manifest, region: string): { buffers: PlannedBuffer[]; base: number; steps: number } {
  const end = m.layers.length + 1;
  const tensors = m.tensors.filter((t) => t.region === region);
  const base = Math.min(...tensors.map((t) => t.address));
  const byKey = new Map<string, PlannedBuffer>();
  const keyOf = (t: ManifestTensor): string => t.symbol ?? `${t.address}:${t.name}`;
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

const LEFT = 80;
const TOP = 10;

export function memoryPlanSvg(m: Manifest, region: string, width = 1200, height = 380): string {
  const { buffers, base, steps } = plannedBuffers(m, region);
  const span = Math.max(1, ...buffers.map((b) => b.offset + b.bytes));
  const plotW = width - LEFT - 12;
  const col = plotW / steps;
  // Address grows upwards, as in a plot; 1 px at least so that 16-byte parameters stay visible.
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
    const label = s === 0 ? 'in' : s === steps - 1 ? 'out' : String(m.layers[s - 1].id);
    out.push(`<text x="${(LEFT + (s + 0.5) * col).toFixed(1)}" y="${TOP + height + 16}" text-anchor="middle" fill="#555">${label}</text>`);
  }
  for (const b of [...buffers].sort((p, q) => q.bytes - p.bytes)) {
    const x0 = LEFT + b.first * col;
    const w = (b.last - b.first + 1) * col;
    const y1 = y(b.offset + b.bytes);
    const h = Math.max(1, y(b.offset) - y1);
    const fill = b.role === 'const' ? '#c9c9c9' : colour(b.key, b.role === 'activation' ? 65 : 55);
    const tip = `${b.names.join(' = ')} (${b.role}): ${b.bytes} bytes at +0x${b.offset.toString(16)}, steps ${b.first}..${b.last}`;
    out.push(`<g><title>${esc(tip)}</title><rect x="${x0.toFixed(2)}" y="${y1.toFixed(2)}" width="${w.toFixed(2)}" height="${h.toFixed(2)}" ` +
      `fill="${fill}" stroke="#555" stroke-width="0.5"/>`);
    const label = h >= 13 ? fitText(b.names[0], w - 4) : '';
    if (label) out.push(`<text x="${(x0 + 3).toFixed(2)}" y="${(y1 + h / 2 + 4).toFixed(2)}" fill="#111">${esc(label)}</text>`);
    out.push('</g>');
  }
  out.push(`<line x1="${LEFT}" y1="${TOP + height}" x2="${LEFT + plotW}" y2="${TOP + height}" stroke="#888"/>`);
  out.push(`<line x1="${LEFT}" y1="${TOP}" x2="${LEFT + plotW}" y2="${TOP}" stroke="#bbb" stroke-dasharray="4 3"/>`);
  out.push(`<text x="${LEFT - 6}" y="${TOP + 4}" text-anchor="end" fill="#555">+${fmtBytes(span)}</text>`);
  out.push(`<text x="${LEFT}" y="${TOP + height + 34}" fill="#555">${esc(region)} from 0x${base.toString(16)}: ` +
    `${fmtBytes(span)} spanned; x = execution step (in, layer ids, out); grey = constants</text>`);
  out.push('</svg>');
  return out.join('\n');
}
