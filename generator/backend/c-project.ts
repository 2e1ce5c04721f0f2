import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IssCluster, IssDevice, Platform } from '../platforms/types.js';
import { memoryOf } from '../platforms/types.js';
import type { CImageBudget } from './c-image.js';
import { RUNTIME, templatePath } from './paths.js';
import { renderFile } from './render.js';

/** A memory region of a bare-metal build's address map (out/c/image.json, the link script, `gen build`). */
export interface BuildRegion {
  name: string;
  origin: number;
  length: number;
}

/** out/c/image.json: the generator's budget and the rv32 map, read back by `gen build` (runtime/node/c-build.ts). */
export interface ImageFile {
  budget?: CImageBudget;
  rv32?: { regions: BuildRegion[]; xpulp?: boolean; cluster?: Omit<IssCluster, 'hal' | 'devices'> };
}

const hex = (v: number): string => `0x${v.toString(16)}`;

/** The address of the NPU's register file among the ISS build's devices, or false where it has none. */
function issNpuBase(mmio: IssDevice[] | undefined): string | false {
  const npu = mmio?.find((d) => d.kind === 'npu');
  return npu ? hex(npu.base) : false;
}

/**
 * The rest of out/c beside the generated sources, so that it is a self-contained firmware project: the HAL headers
 * and every HAL implementation a build needs, the Makefile (host and rv32 builds), the bare-metal link script, the
 * board SDK's build files, a README and image.json. `header` carries the generated-file header fields.
 */
export function addCProject(files: Map<string, string | Uint8Array>, platform: Platform, budget: CImageBudget | undefined,
  header: { version: string; model: string; platform: string }): void {
  copyTree(join(RUNTIME, 'c', 'include'), 'c/hal', files);
  copyTree(join(RUNTIME, 'c', 'common'), 'c/hal/common', files);
  copyTree(join(RUNTIME, 'c', 'host'), 'c/hal/host', files);
  if (existsSync(join(RUNTIME, 'c', platform.name))) copyTree(join(RUNTIME, 'c', platform.name), `c/hal/${platform.name}`, files);
  const image = platform.image;
  const regions = image?.rv32 ? Object.entries(image.rv32).map(([name, origin]) => ({ name, origin, length: memoryOf(platform, name).size })) : undefined;
  if (regions && image) {
    copyTree(join(RUNTIME, 'c', 'rv32'), 'c/hal/rv32', files);
    const tileMemory = platform.tiling?.memory;
    files.set('c/hal/rv32/link.ld', renderFile(templatePath(platform.name, 'c', 'link_rv32.ld.mustache'), {
      ...header,
      regions: regions.map((r) => {
        const m = memoryOf(platform, r.name);
        return { name: r.name, origin: hex(r.origin), length: hex(r.length), comment: `${m.name}: ${m.size} bytes at ${hex(m.chipBase)} on the chip` };
      }),
      codeRegion: image.memory,
      arenaRegion: image.memory,
      arenaAt: budget && budget.codeWindow > 0 ? hex(budget.codeWindow) : false,
      stackBytes: hex(image.stackBytes),
      l1Region: tileMemory && image.rv32?.[tileMemory] !== undefined ? tileMemory : false,
    }));
  }
  const boardFiles = image?.boardFiles ?? [];
  for (const name of boardFiles) files.set(`c/${name}`, renderFile(templatePath(platform.name, 'c', `${name}.mustache`), header));
  files.set('c/Makefile', renderFile(templatePath(platform.name, 'c', 'Makefile.mustache'), {
    ...header, hostCores: platform.cores, rv32: regions !== undefined, boardFiles, hostModel: image?.hostModel ?? false, issHal: image?.issCluster?.hal ?? false,
    issDevices: image?.issCluster?.devices ?? [],
    // The NPU's register file on the emulator's map: its HAL accesses inline at that address (firmgen_neureka.h).
    issNpuBase: issNpuBase(image?.issCluster?.mmio),
  }));
  files.set('c/README.md', renderFile(templatePath(platform.name, 'c', 'README.md.mustache'), {
    ...header, rv32: regions !== undefined, budget: budget ?? false, boardFiles,
  }));
  // What the ISS runner needs of the cluster (its C files are the Makefile's business).
  const cluster = image?.issCluster ? (({ hal: _h, devices: _d, ...rest }) => rest)(image.issCluster) : undefined;
  const imageFile: ImageFile = {
    budget, rv32: regions ? { regions, ...(image?.xpulp ? { xpulp: true } : {}), ...(cluster ? { cluster } : {}) } : undefined,
  };
  files.set('c/image.json', `${JSON.stringify(imageFile, null, 2)}\n`);
}

export function copyTree(src: string, dest: string, files: Map<string, string | Uint8Array>): void {
  if (!existsSync(src)) return;
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (entry.isDirectory()) copyTree(join(src, entry.name), `${dest}/${entry.name}`, files);
    else files.set(`${dest}/${entry.name}`, readFileSync(join(src, entry.name)));
  }
}
