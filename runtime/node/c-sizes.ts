/**
 * What a C build of the firmware occupies: text, data and bss as binutils' `size` counts them (read-only data is
 * text), each allocated section, and for a bare-metal build the use of each memory region of its link script, with
 * the generator's estimate beside the measured code and data.
 */
import type { BuildRegion, ImageFile } from '../../generator/backend/c-project.js';
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
const PLANNED = new Set(['.fg_arena', '.fg_l1', '.stack', '.fg_nms_sram', '.fg_nms_mram']);

export function sizeReport(target: string, elf: string, image?: ImageFile): SizeReport {
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
  const regions = target === 'rv32' ? image?.rv32?.regions : undefined;
  if (regions) {
    report.regions = regions.map((r) => {
      const inside = sections.filter((s) => s.address >= r.origin && s.address < r.origin + r.length);
      const end = Math.max(r.origin, ...inside.map((s) => s.address + s.size));
      return { ...r, used: end - r.origin, sections: inside };
    });
  }
  if (image?.budget) report.estimatedCodeAndData = image.budget.codeAndData;
  return report;
}

const pad = (v: string | number, n: number): string => String(v).padStart(n);

export function formatSizes(r: SizeReport): string {
  const lines = [
    `${r.target} build: ${r.elf}`,
    `${pad('text', 9)}${pad('data', 9)}${pad('bss', 9)}   (bytes; read-only data counts as text)`,
    `${pad(r.text, 9)}${pad(r.data, 9)}${pad(r.bss, 9)}`,
  ];
  if (r.regions) {
    lines.push(`  ${'region'.padEnd(8)}${pad('address', 12)}${pad('size', 10)}${pad('used', 10)}  sections`);
    for (const g of r.regions) {
      const list = g.sections.filter((s) => s.name !== '.tbss_space').map((s) => `${s.name} ${s.size}`).join(', ');
      lines.push(`  ${g.name.padEnd(8)}${pad(`0x${g.origin.toString(16)}`, 12)}${pad(g.length, 10)}${pad(g.used, 10)}  ${list}`);
    }
  } else {
    lines.push(`  sections: ${r.sections.map((s) => `${s.name} ${s.size}`).join(', ')}`);
  }
  // Only a bare-metal build compares with the board's budget (a host executable carries a dynamic loader's tables).
  if (r.regions) {
    const estimate = r.estimatedCodeAndData !== undefined ? ` (the generator's estimate for the board: ${r.estimatedCodeAndData})` : '';
    lines.push(`code and data without arena, tile buffers and stack: ${r.codeAndData} bytes${estimate}`);
  }
  return lines.join('\n');
}
