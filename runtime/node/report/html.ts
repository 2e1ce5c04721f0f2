/**
 * `gen run --report <file.html>`: one self-contained page (inline CSS and SVG, no script, no external asset) with
 * the per-layer table, the timeline and the memory plan of every region that holds tensors. Opens from disk.
 */
import type { Manifest } from '../manifest.js';
import type { DmaBytes, Profile, Span, Traffic } from '../profile.js';
import { fmtUs, memoryLevels, pct, showsDma } from '../profile-table.js';
import type { Trace } from '../trace.js';
import { memoryPlanSvg } from '../../../generator/report/memory-plan.js';
import { esc, fmtBytes, indexColour } from '../../../generator/report/svg.js';
import { timelineSvg } from './timeline.js';

const CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px 32px; color: #222; max-width: 1260px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: #666; margin: 0 0 16px; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.card b { display: block; font-size: 18px; } .card span { color: #666; font-size: 12px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: right; white-space: nowrap; }
th { background: #f6f6f6; position: sticky; top: 0; } td.l, th.l { text-align: left; }
tr.extra td { color: #666; } tr.total td { font-weight: 600; border-top: 2px solid #999; }
.bar { display: inline-block; height: 9px; background: #6b8fd6; vertical-align: middle; margin-right: 6px; }
.sw { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 6px; vertical-align: middle; }
.note { color: #666; font-size: 12px; } svg { display: block; margin: 6px 0; }
.scroll { overflow-x: auto; max-width: 100%; }
`;

export function reportHtml(m: Manifest, p: Profile, trace: Trace): string {
  const title = `${p.model || 'model'} on ${p.platform}`;
  const regions = [...new Set(m.tensors.map((t) => t.region))];
  const mhz = p.clockHz > 0 ? `${p.clockHz / 1e6} MHz` : 'no clock';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>firmgen profile: ${esc(title)}</title>
<style>${CSS}</style></head>
<body>
<h1>firmgen profile: ${esc(title)}</h1>
<p class="sub">${esc(agents(p))}, ${mhz}. Cycles from the ${esc(p.cyclesFrom)}.</p>
${cards(p)}
<h2>Layers</h2>
<div class="scroll">${table(p)}</div>
<h2>Timeline</h2>
<p class="note">One row per agent; hover a box for its cycles. Layers run on the master, which forks them onto the cluster${p.total.npuJobs > 0 ? '; the NPU row shows each N-EUREKA job on the engine\'s own clock, coloured by its layer (its cycles overlap the cores\', they are not added to them)' : ''}.</p>
${timelineSvg(trace)}
<h2>Memory plan</h2>
${regions.map((r) => `<p class="note">Region ${esc(r)}: one box per buffer, from the step that first touches it to the last.</p>\n${memoryPlanSvg(m, r)}`).join('\n')}
</body></html>
`;
}

/** What ran the layers, in the profile table's words. */
function agents(p: Profile): string {
  if (p.cores === 0) return '1 core';
  return `${p.cores} ${p.platform === 'spinnaker2' ? 'worker PEs available' : 'cluster cores'}`;
}

function cards(p: Profile): string {
  const card = (v: string, what: string): string => `<div class="card"><b>${esc(v)}</b><span>${esc(what)}</span></div>`;
  const bytes = Object.entries(p.total.memory).map(([r, t]) => card(fmtBytes(t.read + t.written), `moved in ${r}`));
  if (showsDma(p)) bytes.push(card(fmtBytes(p.total.dma.in + p.total.dma.out), 'moved by the cluster DMA'));
  if (showsNpu(p)) bytes.push(card(`${p.total.npuJobs} / ${p.total.npuCycles}`, 'N-EUREKA jobs / busy cycles'));
  return `<div class="cards">${[
    card(String(p.total.cycles), 'cycles'),
    card(`${fmtUs(p.total.us)} µs`, 'at the platform clock'),
    card(String(p.total.macs), 'MACs'),
    card(pct(p.total.utilisation), `of ${p.totalPeakMacsPerCycle} MAC/cycle peak${p.totalPeakMacsPerCycle > p.peakMacsPerCycle ? ' (cluster + N-EUREKA)' : ''}`),
    ...bytes,
  ].join('')}</div>`;
}

/** N-EUREKA work of a layer or the run: jobs triggered and their busy cycles on the NPU's own clock. */
interface NpuWork {
  npuJobs: number;
  npuCycles: number;
}

/** The NPU columns and card appear only when the run used the NPU. */
function showsNpu(p: Profile): boolean {
  return p.total.npuJobs > 0;
}

function table(p: Profile): string {
  const levels = memoryLevels(p);
  const maxShare = Math.max(1e-9, ...p.layers.map((l) => l.share));
  const dma = showsDma(p);
  const npu = showsNpu(p);
  const bytes = (m: Record<string, Traffic>, d: DmaBytes, n: NpuWork): string =>
    levels.map((r) => `<td>${m[r]?.read ?? 0}</td><td>${m[r]?.written ?? 0}</td>`).join('') +
    (dma ? `<td>${d.in}</td><td>${d.out}</td>` : '') + (npu ? `<td>${n.npuJobs}</td><td>${n.npuCycles}</td>` : '');
  const head = ['id', 'layer', 'op', 'kernel', 'engine', 'MACs', ...levels.flatMap((r) => [`${r} read`, `${r} written`]),
    ...(dma ? ['DMA in', 'DMA out'] : []), ...(npu ? ['NPU jobs', 'NPU cycles'] : []), 'cycles', 'µs', 'share', 'utilisation'];
  const left = new Set(['layer', 'op', 'kernel', 'engine', 'share']);
  const rows = p.layers.map((l) => `<tr><td>${l.layer}</td>` +
    `<td class="l"><span class="sw" style="background:${indexColour(l.layer)}"></span>${esc(l.name)}</td>` +
    `<td class="l">${esc(l.op)}</td><td class="l">${esc(l.kernel)}</td><td class="l">${esc(l.engine)}</td><td>${l.macs}</td>` +
    `${bytes(l.memory, l.dma, l)}<td>${l.cycles}</td><td>${fmtUs(l.us)}</td>` +
    `<td class="l"><span class="bar" style="width:${((l.share / maxShare) * 80).toFixed(1)}px"></span>${pct(l.share)}</td>` +
    `<td>${pct(l.utilisation)}</td></tr>`);
  const blank = levels.map(() => '<td></td><td></td>').join('') + (dma ? '<td></td><td></td>' : '') + (npu ? '<td></td><td></td>' : '');
  const extra = (name: string, s: Span): string =>
    `<tr class="extra"><td></td><td class="l">${name}</td><td></td><td></td><td></td><td></td>${blank}` +
    `<td>${s.cycles}</td><td>${fmtUs(s.us)}</td><td class="l">${pct(s.share)}</td><td></td></tr>`;
  return `<table>
<thead><tr>${head.map((h) => `<th${left.has(h) ? ' class="l"' : ''}>${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
${extra('(setup)', p.setup)}
${p.between.cycles !== 0 ? extra('(between layers)', p.between) : ''}
${extra('(teardown)', p.teardown)}
<tr class="total"><td></td><td class="l">total</td><td></td><td></td><td></td><td>${p.total.macs}</td>${bytes(p.total.memory, p.total.dma, p.total)}` +
    `<td>${p.total.cycles}</td><td>${fmtUs(p.total.us)}</td><td class="l">100.0%</td><td>${pct(p.total.utilisation)}</td></tr>
</tbody></table>`;
}
