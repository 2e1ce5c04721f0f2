/**
 * The plan made visible in every output directory (issue 3): out/memory-<REGION>.svg for the home memory (whole
 * tensors over the run) and for L1 (each tiled layer's tile buffers), and out/tiles.md (what the tiler chose per
 * layer). Everything is drawn from the manifest, the same data `gen run --report` reads, so the files can never
 * disagree with firmware.json.
 */
import { printable } from '../errors.js';
import type { MemoryPlan } from '../midend/plan.js';
import type { Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';
import {
  bufferBoxes, bufferFill, memoryChartSvg, plannedBuffers, stepLabels, type ChartBox, type MemoryChart,
} from '../report/memory-plan.js';
import { fmtBytes } from '../report/svg.js';
import type { Manifest } from './manifest.js';

export function planPictures(m: Manifest, plan: MemoryPlan, platform: Platform): Map<string, string> {
  const files = new Map<string, string>();
  files.set(`memory-${plan.region}.svg`, `${memoryChartSvg(homeChart(m, plan, platform))}\n`);
  if (plan.far) files.set(`memory-${plan.far.region}.svg`, `${memoryChartSvg(farChart(m, plan.far, platform))}\n`);
  if (m.tiling) {
    files.set(`memory-${m.tiling.memory}.svg`, `${memoryChartSvg(l1Chart(m, platform))}\n`);
    files.set('tiles.md', tilesMarkdown(m));
  }
  return files;
}

/** A level's peak against its live-set lower bound: one green mark when they meet, else both. */
function boundMarks(used: number, lowerBound: number): MemoryChart['marks'] {
  return used === lowerBound
    ? [{ offset: used, label: `peak ${used} B = lower bound`, colour: '#2a7d2a' }]
    : [
        { offset: lowerBound, label: `lower bound ${lowerBound} B`, colour: '#2a7d2a' },
        { offset: used, label: `peak ${used} B (+${used - lowerBound})`, colour: '#b03030' },
      ];
}

/** Whole tensors in the home memory, offsets from the arena's start, with the tile tables among the constants. */
function homeChart(m: Manifest, plan: MemoryPlan, platform: Platform): MemoryChart {
  const arena = memoryOf(platform, plan.region).chipBase + plan.arenaOffset;
  const { buffers, base, steps } = plannedBuffers(m, plan.region);
  const boxes = bufferBoxes(buffers).map((b) => ({ ...b, offset: b.offset + base - arena }));
  for (const [name, blob] of plan.blobs) {
    const offset = blob.offset - plan.arenaOffset;
    boxes.push({
      key: name, label: name, fill: '#e3d9c6', offset, bytes: blob.bytes, first: 0, last: steps - 1,
      tip: `${name} (tile table, constant): ${blob.bytes} bytes at +0x${offset.toString(16)}`,
    });
  }
  const a = plan.activations;
  const marks = boundMarks(plan.used, plan.lowerBound);
  return {
    region: plan.region, base: arena, steps, stepLabel: stepLabels(m), boxes, marks,
    caption: `${fmtBytes(plan.used)} used of ${fmtBytes(plan.arenaSize)}; constants at the bottom (grey; tile tables beige), ` +
      `activations above (greedy peak ${a.greedy} B, final ${a.final} B, solver ${a.solver.status}); x = step (in, layer ids, out)`,
  };
}

/** Tensors at home in the far memory (L3): offsets from its start; each lives from its copy out to its last copy in. */
function farChart(m: Manifest, far: NonNullable<MemoryPlan['far']>, platform: Platform): MemoryChart {
  const region = memoryOf(platform, far.region);
  const { buffers, base, steps } = plannedBuffers(m, far.region);
  const boxes = bufferBoxes(buffers).map((b) => ({ ...b, offset: b.offset + base - region.chipBase }));
  const marks = boundMarks(far.used, far.lowerBound);
  return {
    region: far.region, base: region.chipBase, steps, stepLabel: stepLabels(m), boxes, marks,
    caption: `${fmtBytes(far.used)} of ${fmtBytes(far.size)}: the ${far.tensors} tensor(s) L2 could not hold, staged through L2 ` +
      `by the copy layers; constants at the bottom; x = step (in, layer ids, out)`,
  };
}

/** Each tiled layer's L1 buffers at its own step: layers run one at a time, so every layer starts at offset 0. */
function l1Chart(m: Manifest, platform: Platform): MemoryChart {
  const t = m.tiling!;
  const symbol = new Map(m.tensors.map((x) => [x.name, { key: x.symbol, role: x.role }]));
  const boxes: ChartBox[] = [];
  m.layers.forEach((l, i) => {
    if (!l.tiling) return;
    for (const o of l.tiling.operands) {
      const s = symbol.get(o.tensor) ?? { key: o.tensor, role: 'activation' };
      o.offsets.forEach((offset, slot) => {
        const slots = o.offsets.length > 1 ? ` [${slot}]` : '';
        boxes.push({
          key: s.key, label: `${o.tensor}${slots}`, fill: bufferFill(s.key, s.role, slot > 0), offset, bytes: o.bytes,
          first: i + 1, last: i + 1,
          tip: `layer ${l.id} ${l.op}: ${o.tensor} (${o.write ? 'output' : 'input'}) slot ${slot + 1} of ${o.offsets.length}: ` +
            `${o.bytes} bytes at +0x${offset.toString(16)}, ${o.transfers} DMA transfers`,
        });
      });
    }
  });
  // The budget line only when it is near the peak: a 256 KiB line over a 4 KiB plan would flatten every box.
  const marks = t.l1Budget <= 1.5 * t.l1Peak ? [{ offset: t.l1Budget, label: `budget ${t.l1Budget} B`, colour: '#b03030' }] : [];
  return {
    region: t.memory, base: memoryOf(platform, t.memory).chipBase, steps: m.layers.length + 2, stepLabel: stepLabels(m), boxes, marks,
    caption: `peak ${fmtBytes(t.l1Peak)} of a ${fmtBytes(t.l1Budget)} budget; one box per tile buffer of each tiled layer ` +
      '(the second slot of a double-buffered operand lighter); x = step',
  };
}

const cell = (s: string | number): string => printable(String(s)).replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\r?\n/g, ' ');
const row = (cells: (string | number)[]): string => `| ${cells.map(cell).join(' | ')} |`;

/** out/tiles.md: per layer what the tiler chose and what the cost model expects of it. */
export function tilesMarkdown(m: Manifest): string {
  const t = m.tiling!;
  const shapes = new Map(m.tensors.map((x) => [x.name, x.shape]));
  const tiled = m.layers.filter((l) => l.tiling);
  const lines = [
    `# Tiles of ${cell(m.model || 'model')} on ${m.platform}`,
    '',
    `${tiled.length} of ${m.layers.length} layers run in tiles through ${t.memory} (budget ${t.l1Budget} bytes, peak ${t.l1Peak}). ` +
      `Layers not listed work on ${m.memory.region} directly. Cycles are the cost model's ` +
      'estimate (compute over all tiles; DMA in and out over the whole layer); `gen run` measures the real ones.',
    '',
    row(['layer', 'op', 'output', 'axes split', 'tile', 'tiles per axis', 'tiles', 'instances', 'buffering', 'L1 bytes', 'est. cycles', 'compute', 'DMA in', 'DMA out']),
    row(Array(14).fill('---')),
  ];
  for (const l of tiled) {
    const x = l.tiling!;
    const out = shapes.get(l.writes[0]) ?? [];
    lines.push(row([
      `${l.id} ${l.name}`, l.op, `[${out.join(', ')}]`, x.axes.join(', ') || '-', x.sizes.join(' x ') || '-', x.counts.join(' x ') || '1',
      x.tiles, x.instances, x.buffering, x.l1Bytes, x.estimate.cycles, x.estimate.compute, x.estimate.dmaIn, x.estimate.dmaOut,
    ]));
  }
  lines.push('', '## Operands', '', row(['layer', 'operand', 'direction', 'L1 bytes', 'slots', 'L1 offsets', 'DMA transfers']), row(Array(7).fill('---')));
  for (const l of tiled) {
    for (const o of l.tiling!.operands) {
      lines.push(row([l.id, o.tensor, o.write ? 'out' : 'in', o.bytes, o.offsets.length, o.offsets.join(', '), o.transfers]));
    }
  }
  return `${lines.join('\n')}\n`;
}
