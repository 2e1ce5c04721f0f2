/**
 * Builds out/c with make: `host` (the host compiler, the threads HAL), `rv32` (riscv64-unknown-elf-gcc + picolibc,
 * one bare-metal hart, for qemu-system-riscv32 -machine virt) or `arm` (SpiNNaker2: arm-none-eabi-gcc, an image per
 * PE role for the Cortex-M4F; built and measured, not run). A build is reused while it is newer than every source,
 * and a build of the same sources with the same compiler comes from the content-hashed cache beside the AS
 * firmware's (tests generate the same C into fresh directories on every run). A missing toolchain is an error that
 * says which Debian packages provide it, never a silent skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ImageFile } from '../../generator/backend/c-project.js';
import type { PeImageFile } from '../../generator/platforms/spinnaker2/pe-image.js';
import { GenError } from '../../generator/errors.js';
import { sizeReport, type SizeReport } from './c-sizes.js';
import { hashFiles } from './hash.js';
import { firmwareCacheDir } from './paths.js';

export type CTarget = 'host' | 'rv32' | 'rv32-xpulp' | 'arm';
export const C_TARGETS: CTarget[] = ['host', 'rv32', 'rv32-xpulp', 'arm'];

/** What each target's make goal writes into out/c; arm: one ELF per PE role, in image.json's order. */
const OUTPUT: Record<Exclude<CTarget, 'arm'>, string> = { host: 'network_host', rv32: 'network_rv32.elf', 'rv32-xpulp': 'network_rv32_xpulp.elf' };

export const RV32_PACKAGES = 'gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc';
export const ARM_PACKAGES = 'gcc-arm-none-eabi libnewlib-arm-none-eabi';
const COMPILER: Record<Exclude<CTarget, 'host'>, string> = { rv32: 'riscv64-unknown-elf-gcc', 'rv32-xpulp': 'riscv64-unknown-elf-gcc', arm: 'arm-none-eabi-gcc' };

/** The tools a target needs, each with the command that proves it is there. */
const TOOLS: Record<CTarget, { tool: string; args: string[]; hint: string }[]> = {
  host: [
    { tool: 'make', args: ['--version'], hint: 'install make' },
    { tool: 'cc', args: ['--version'], hint: 'install a C compiler (gcc)' },
  ],
  rv32: [
    { tool: 'make', args: ['--version'], hint: 'install make' },
    { tool: 'riscv64-unknown-elf-gcc', args: ['--version'], hint: `apt-get install ${RV32_PACKAGES}` },
  ],
  'rv32-xpulp': [
    { tool: 'make', args: ['--version'], hint: 'install make' },
    { tool: 'riscv64-unknown-elf-gcc', args: ['--version'], hint: `apt-get install ${RV32_PACKAGES}` },
  ],
  arm: [
    { tool: 'make', args: ['--version'], hint: 'install make' },
    { tool: 'arm-none-eabi-gcc', args: ['--version'], hint: `apt-get install ${ARM_PACKAGES}` },
  ],
};

/** Why the target cannot be built here, or undefined when its tools are installed. */
export function missingToolchain(target: CTarget): string | undefined {
  for (const t of TOOLS[target]) {
    if (spawnSync(t.tool, t.args, { stdio: 'ignore' }).status !== 0) return `${t.tool} is not installed (${t.hint})`;
  }
  if (target === 'rv32' || target === 'rv32-xpulp') {
    const specs = spawnSync('riscv64-unknown-elf-gcc', ['-print-file-name=picolibc.specs'], { encoding: 'utf8' }).stdout.trim();
    if (!specs.startsWith('/')) return `picolibc for riscv64-unknown-elf is not installed (apt-get install ${RV32_PACKAGES})`;
  }
  if (target === 'arm') {
    const specs = spawnSync('arm-none-eabi-gcc', ['-print-file-name=nano.specs'], { encoding: 'utf8' }).stdout.trim();
    if (!specs.startsWith('/')) return `newlib for arm-none-eabi is not installed (apt-get install ${ARM_PACKAGES})`;
  }
  return undefined;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(c|h|ld)$|Makefile$/.test(e.name))
    .map((e) => join(e.parentPath ?? dir, e.name))
    .sort((a, b) => relative(dir, a).localeCompare(relative(dir, b)));
}

const compilerIds = new Map<CTarget, string>();

/** The compiler's identity, part of the cache key: another compiler is another build. */
function compilerId(target: CTarget): string {
  let id = compilerIds.get(target);
  if (id === undefined) {
    const cc = target === 'host' ? process.env.CC ?? 'cc' : COMPILER[target];
    id = `${target} ${spawnSync(cc, ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0] ?? ''}`;
    compilerIds.set(target, id);
  }
  return id;
}

export interface CBuild {
  target: CTarget;
  /** The executable: network_host, network_rv32.elf, or (arm) the first role's image. */
  path: string;
  /** Every file the build made: one, or (arm) an ELF per PE role. */
  paths: string[];
  /** Milliseconds the build took; 0 when an up-to-date or cached build was reused. */
  ms: number;
}

/**
 * The output directory's build for `target` where it exists and is newer than every C source (what buildC would reuse
 * as it is), else undefined; nothing is built.
 */
export function upToDateBuild(outDir: string, target: CTarget): string | undefined {
  const cDir = join(outDir, 'c');
  if (!existsSync(join(cDir, 'Makefile'))) return undefined;
  const paths = outputsOf(outDir, target).map((o) => join(cDir, o));
  return newerThanSources(paths, sources(cDir)) ? paths[0] : undefined;
}

/** Whether every one of a build's output `paths` exists and is at least as new as each of its source `files`. */
function newerThanSources(paths: string[], files: string[]): boolean {
  const newest = Math.max(...files.map((f) => statSync(f).mtimeMs));
  return paths.every((p) => existsSync(p) && statSync(p).mtimeMs >= newest);
}

export function buildC(outDir: string, target: CTarget): CBuild {
  const cDir = join(outDir, 'c');
  if (!existsSync(join(cDir, 'Makefile'))) throw new GenError('input', 'no c/Makefile: not an output directory of `gen firmware`', { file: outDir });
  const outputs = outputsOf(outDir, target);
  const paths = outputs.map((o) => join(cDir, o));
  const made = (ms: number): CBuild => ({ target, path: paths[0], paths, ms });
  const files = sources(cDir);
  if (newerThanSources(paths, files)) return made(0);
  const key = hashFiles(cDir, files, [compilerId(target)]).slice(0, 32);
  const cached = outputs.map((o) => join(firmwareCacheDir(), 'c', `${key}-${o}`));
  if (cached.every((c) => existsSync(c))) {
    cached.forEach((c, i) => copyFileSync(c, paths[i]));
    return made(0);
  }
  const missing = missingToolchain(target);
  if (missing) throw new GenError('run', `the ${target} build needs its toolchain: ${missing}`, { file: cDir });
  const t0 = performance.now();
  try {
    execFileSync('make', ['-s', '-C', cDir, target], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stdout?: Buffer; stderr?: Buffer; message: string };
    const text = `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? err.message}`;
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0);
    const first = lines.find((l) => /error|\*\*\*/i.test(l)) ?? lines[lines.length - 1] ?? err.message;
    // One line: the first error; the compiler's whole output goes to a file beside the Makefile.
    const log = join(cDir, 'build-errors.log');
    let logged = true;
    try {
      writeFileSync(log, `${text}\n`);
    } catch {
      logged = false;
    }
    throw new GenError('run', `the ${target} C build failed: ${first}${logged ? ` (the build's output: ${log})` : ''}`, { file: cDir });
  }
  // Into the cache under a private name, then renamed: a concurrent build of the same sources never sees half a file.
  mkdirSync(join(firmwareCacheDir(), 'c'), { recursive: true });
  cached.forEach((c, i) => {
    const tmp = `${c}.${process.pid}.tmp`;
    copyFileSync(paths[i], tmp);
    renameSync(tmp, c);
  });
  return made(performance.now() - t0);
}

/** The files a target makes in out/c, or why this output directory has no such build. */
function outputsOf(outDir: string, target: CTarget): string[] {
  const image = readImageFile(outDir);
  if (target === 'arm') {
    if (!image.arm) throw new GenError('input', 'this platform has no ARM build (only spinnaker2 has: its PEs are Cortex-M4F)', { file: outDir });
    return image.arm.roles.map((r) => r.elf);
  }
  if ((target === 'rv32' || target === 'rv32-xpulp') && !image.rv32) throw new GenError('input', 'this platform has no bare-metal rv32 build', { file: outDir });
  return [OUTPUT[target]];
}

/** out/c/image.json: the core platforms' budget and rv32 map, or SpiNNaker2's PE images (`arm`). */
export function readImageFile(outDir: string): ImageFile & Partial<PeImageFile> {
  const f = join(outDir, 'c', 'image.json');
  if (!existsSync(f)) return {};
  try {
    const json: unknown = JSON.parse(readFileSync(f, 'utf8'));
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not an object');
    return json as ImageFile & Partial<PeImageFile>;
  } catch (e) {
    throw new GenError('run', `c/image.json is damaged (${(e as Error).message}): generate the firmware again`, { file: f });
  }
}

/** Builds and reports the section sizes of each file made: per memory region for rv32, and per role and region for arm. */
export function buildWithReports(outDir: string, target: CTarget): { build: CBuild; reports: SizeReport[] } {
  const build = buildC(outDir, target);
  const image = readImageFile(outDir);
  if (target === 'arm') {
    const roles = image.arm!.roles;
    return {
      build,
      reports: roles.map((r, i) => sizeReport(target, build.paths[i], { role: r.role, regions: r.regions, estimatedCodeAndData: r.codeAndData })),
    };
  }
  const map = target === 'rv32' || target === 'rv32-xpulp' ? { regions: image.rv32?.regions, estimatedCodeAndData: image.budget?.codeAndData } : { estimatedCodeAndData: image.budget?.codeAndData };
  return { build, reports: [sizeReport(target, build.path, map)] };
}

/** Builds and reports the section sizes of a one-file build (host, rv32). */
export function buildWithSizes(outDir: string, target: CTarget): { build: CBuild; sizes: SizeReport } {
  const { build, reports } = buildWithReports(outDir, target);
  return { build, sizes: reports[0] };
}
