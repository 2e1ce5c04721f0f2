/**
 * The timeline picture: one row per agent (the trace's threads), time in microseconds at the platform clock along
 * x, one box per slice (layers on the master, kernel shares on the cores; waits hatched). Built from the same
 * trace events as `--trace`, so the picture and the file never disagree.
 */
import type { Trace } from '../trace.js';
import { esc, fitText, fmtNum, indexColour, tickStep } from '../../../generator/report/svg.js';

const LABEL = 190;
const ROW = 26;
const TOP = 24;

export function timelineSvg(trace: Trace, width = 1200): string {
  const names = new Map<number, string>();
  for (const e of trace.traceEvents) if (e.ph === 'M' && e.name === 'thread_name') names.set(e.tid, String(e.args?.name));
  const slices = trace.traceEvents.filter((e) => e.ph === 'X');
  // Only agents that did something get a row: a chip of 151 worker PEs running a model on 4 draws 5 rows, not 152.
  const busy = new Set(slices.map((e) => e.tid));
  const tids = [...names.keys()].filter((t) => busy.has(t)).sort((a, b) => a - b);
  const total = Math.max(1e-9, Number(trace.otherData.totalCycles) * 1e6 / Number(trace.otherData.clockHz));
  const plot = width - LABEL - 12;
  const x = (us: number): number => LABEL + (us / total) * plot;
  const height = TOP + tids.length * ROW + 28;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" class="timeline" font-family="sans-serif" font-size="11">`,
    '<defs><pattern id="wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
      '<rect width="6" height="6" fill="#f3f3f3"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c8c8c8" stroke-width="2"/></pattern></defs>',
  ];
  // Time axis: gridlines and labels in microseconds.
  const step = tickStep(total, 10);
  for (let t = 0; t <= total + 1e-9; t += step) {
    out.push(`<line x1="${x(t).toFixed(1)}" y1="${TOP - 4}" x2="${x(t).toFixed(1)}" y2="${TOP + tids.length * ROW}" stroke="#e2e2e2"/>`);
    out.push(`<text x="${x(t).toFixed(1)}" y="${TOP - 8}" text-anchor="middle" fill="#555">${fmtNum(t)}</text>`);
  }
  out.push(`<text x="${LABEL - 8}" y="${TOP - 8}" text-anchor="end" fill="#555">µs</text>`);
  tids.forEach((tid, row) => {
    const y = TOP + row * ROW;
    if (row % 2 === 1) out.push(`<rect x="0" y="${y}" width="${width}" height="${ROW}" fill="#000" fill-opacity="0.03"/>`);
    out.push(`<text x="${LABEL - 8}" y="${y + ROW / 2 + 4}" text-anchor="end">${esc(names.get(tid)!)}</text>`);
    for (const s of slices.filter((e) => e.tid === tid)) {
      const x0 = x(s.ts!);
      const w = Math.max(0.5, x(s.ts! + s.dur!) - x0);
      const wait = s.cat === 'wait';
      const layer = s.args?.layer;
      const fill = wait ? 'url(#wait)' : typeof layer === 'number' && layer >= 0 ? indexColour(layer) : '#bbb';
      const tip = `${s.name}: ${fmtNum(s.dur!)} µs, ${String(s.args?.cycles)} cycles (${s.cat})`;
      out.push(`<g><title>${esc(tip)}</title><rect x="${x0.toFixed(2)}" y="${y + 3}" width="${w.toFixed(2)}" height="${ROW - 6}" ` +
        `fill="${fill}" stroke="#fff" stroke-width="0.5"/>`);
      const label = wait ? '' : fitText(s.name, w - 4);
      if (label) out.push(`<text x="${(x0 + 3).toFixed(2)}" y="${y + ROW / 2 + 4}" fill="#111">${esc(label)}</text>`);
      out.push('</g>');
    }
  });
  const yAxis = TOP + tids.length * ROW;
  out.push(`<line x1="${LABEL}" y1="${yAxis}" x2="${LABEL + plot}" y2="${yAxis}" stroke="#888"/>`);
  out.push(`<text x="${LABEL}" y="${yAxis + 18}" fill="#555">0 … ${fmtNum(total)} µs at ${fmtNum(Number(trace.otherData.clockHz) / 1e6)} MHz; hatched: a core waiting for the team</text>`);
  out.push('</svg>');
  return out.join('\n');
}
