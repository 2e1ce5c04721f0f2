/**
 * What a C build of the firmware occupies: text, data and bss as binutils' `size` counts them (read-only data is
 * text), each allocated section, and for a bare-metal build the use of each memory region of its link script, with
 * the generator's estimate beside the measured code and data.
 */
import type { BuildRegion } from '../../generator/backend/c-project.js';
import { readElfSections, SHF_ALLOC, SHF_EXEC, SHF_WRITE, SHT_NOBITS } from './elf.js';

export interface SectionSize {
  name: string;
  address: number;
  size: number;
  kind: 'text' | 'data' | 'bss';
}

export interface RegionUse extends BuildRegion {
  used: number;
  sections: SectionSize[];
}

export interface SizeReport {
  target: string;
  /** The PE role of the image (SpiNNaker2's ARM build: scheduler, worker). */
  role?: string;
  elf: string;
  text: number;
  data: number;
  bss: number;
  sections: SectionSize[];
  regions?: RegionUse[];
  /** Code and static data (text + data + bss without the arena, the tile buffers and the stack), measured and estimated. */
  codeAndData: number;
  estimatedCodeAndData?: number;
}

/** Sections the generator sizes itself: the arena, the tile buffers, the stack (not code and data). */
// Planned by the generator, not code or data of the image: the arena, tile buffers, stack, N-EUREKA weights.
const PLANNED = new Set(['.fg_arena', '.fg_l1', '.stack', '.fg_nms_sram', '.fg_nms_mram', '.fg_l3']);

/** Where a bare-metal build's link script puts things, and what the generator estimated for its code and data. */
export interface BuildMap {
  role?: string;
  regions?: BuildRegion[];
  estimatedCodeAndData?: number;
}

export function sizeReport(target: string, elf: string, map: BuildMap = {}): SizeReport {
  const sections: SectionSize[] = readElfSections(elf)
    .filter((s) => (s.flags & SHF_ALLOC) !== 0 && s.size > 0)
    .map((s) => ({
      name: s.name,
      address: s.address,
      size: s.size,
      kind: s.type === SHT_NOBITS ? 'bss' : (s.flags & SHF_WRITE) !== 0 && (s.flags & SHF_EXEC) === 0 ? 'data' : 'text',
    }));
  const total = (k: SectionSize['kind']): number => sections.filter((s) => s.kind === k).reduce((n, s) => n + s.size, 0);
  // .tbss_space only makes room for .tbss (the link script's trick): count it once.
  const codeAndData = sections.filter((s) => !PLANNED.has(s.name) && s.name !== '.tbss_space').reduce((n, s) => n + s.size, 0);
  const report: SizeReport = { target, elf, text: total('text'), data: total('data'), bss: total('bss'), sections, codeAndData };
  if (map.role) report.role = map.role;
  if (map.regions) {
    report.regions = map.regions.map((r) => {
      const inside = sections.filter((s) => s.address >= r.origin && s.address < r.origin + r.length);
      const end = Math.max(r.origin, ...inside.map((s) => s.address + s.size));
      return { ...r, used: end - r.origin, sections: inside };
    });
  }
  if (map.estimatedCodeAndData !== undefined) report.estimatedCodeAndData = map.estimatedCodeAndData;
  return report;
}

const pad = (v: string | number, n: number): string => String(v).padStart(n);

export function formatSizes(r: SizeReport): string {
  const lines = [
    `${r.target} build${r.role ? `, ${r.role} image` : ''}: ${r.elf}`,
    `${pad('text', 9)}${pad('data', 9)}${pad('bss', 9)}   (bytes; read-only data counts as text)`,
    `${pad(r.text, 9)}${pad(r.data, 9)}${pad(r.bss, 9)}`,
  ];
  if (r.regions) {
    const w = Math.max(8, ...r.regions.map((g) => g.name.length));
    lines.push(`  ${'region'.padEnd(w)}${pad('address', 12)}${pad('size', 10)}${pad('used', 10)}  sections`);
    for (const g of r.regions) {
      const list = g.sections.filter((s) => s.name !== '.tbss_space').map((s) => `${s.name} ${s.size}`).join(', ') || '(nothing linked)';
      lines.push(`  ${g.name.padEnd(w)}${pad(`0x${g.origin.toString(16)}`, 12)}${pad(g.length, 10)}${pad(g.used, 10)}  ${list}`);
    }
  } else {
    lines.push(`  sections: ${r.sections.map((s) => `${s.name} ${s.size}`).join(', ')}`);
  }
  // Only a bare-metal build compares with the board's budget (a host executable carries a dynamic loader's tables).
  if (r.regions) {
    const estimate = r.estimatedCodeAndData !== undefined ? ` (the generator's estimate for the board: ${r.estimatedCodeAndData})` : '';
    const planned = r.sections.filter((s) => PLANNED.has(s.name)).map((s) => s.name);
    const without = planned.length > 0 ? ` without ${planned.join(', ')}` : '';
    lines.push(`code and data${without}: ${r.codeAndData} bytes${estimate}`);
  }
  return lines.join('\n');
}
