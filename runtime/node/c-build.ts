/**
 * Builds out/c with make: `host` (the host compiler, the threads HAL) or `rv32` (riscv64-unknown-elf-gcc + picolibc,
 * one bare-metal hart, for qemu-system-riscv32 -machine virt). A build is reused while it is newer than every source,
 * and a build of the same sources with the same compiler comes from the content-hashed cache beside the AS
 * firmware's (tests generate the same C into fresh directories on every run). A missing toolchain is an error that
 * says which Debian packages provide it, never a silent skip.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ImageFile } from '../../generator/backend/c-project.js';
import { GenError } from '../../generator/errors.js';
import { sizeReport, type SizeReport } from './c-sizes.js';
import { hashFiles } from './hash.js';
import { firmwareCacheDir } from './paths.js';

export type CTarget = 'host' | 'rv32';
export const C_TARGETS: CTarget[] = ['host', 'rv32'];

const OUTPUT: Record<CTarget, string> = { host: 'network_host', rv32: 'network_rv32.elf' };

export const RV32_PACKAGES = 'gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc';

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
};

/** Why the target cannot be built here, or undefined when its tools are installed. */
export function missingToolchain(target: CTarget): string | undefined {
  for (const t of TOOLS[target]) {
    if (spawnSync(t.tool, t.args, { stdio: 'ignore' }).status !== 0) return `${t.tool} is not installed (${t.hint})`;
  }
  if (target === 'rv32') {
    const specs = spawnSync('riscv64-unknown-elf-gcc', ['-print-file-name=picolibc.specs'], { encoding: 'utf8' }).stdout.trim();
    if (!specs.startsWith('/')) return `picolibc for riscv64-unknown-elf is not installed (apt-get install ${RV32_PACKAGES})`;
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
    const cc = target === 'rv32' ? 'riscv64-unknown-elf-gcc' : process.env.CC ?? 'cc';
    id = `${target} ${spawnSync(cc, ['--version'], { encoding: 'utf8' }).stdout?.split('\n')[0] ?? ''}`;
    compilerIds.set(target, id);
  }
  return id;
}

export interface CBuild {
  target: CTarget;
  /** The executable: network_host, or network_rv32.elf. */
  path: string;
  /** Milliseconds the build took; 0 when an up-to-date or cached build was reused. */
  ms: number;
}

export function buildC(outDir: string, target: CTarget): CBuild {
  const cDir = join(outDir, 'c');
  if (!existsSync(join(cDir, 'Makefile'))) throw new GenError('input', 'no c/Makefile: not an output directory of `gen firmware`', { file: outDir });
  if (target === 'rv32' && !readImageFile(outDir).rv32) {
    throw new GenError('input', 'this platform has no bare-metal rv32 build', { file: outDir });
  }
  const path = join(cDir, OUTPUT[target]);
  const files = sources(cDir);
  if (existsSync(path) && statSync(path).mtimeMs >= Math.max(...files.map((f) => statSync(f).mtimeMs))) return { target, path, ms: 0 };
  const cached = join(firmwareCacheDir(), 'c', `${hashFiles(cDir, files, [compilerId(target)]).slice(0, 32)}-${OUTPUT[target]}`);
  if (existsSync(cached)) {
    copyFileSync(cached, path);
    return { target, path, ms: 0 };
  }
  const missing = missingToolchain(target);
  if (missing) throw new GenError('run', `the ${target} build needs its toolchain: ${missing}`, { file: cDir });
  const t0 = performance.now();
  try {
    execFileSync('make', ['-s', '-C', cDir, target], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    const first = (err.stderr?.toString() ?? err.message).split('\n').find((l) => /error/i.test(l)) ?? err.message;
    throw new GenError('run', `the ${target} C build failed: ${first.trim()}`, { file: cDir });
  }
  // Into the cache under a private name, then renamed: a concurrent build of the same sources never sees half a file.
  mkdirSync(join(firmwareCacheDir(), 'c'), { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  copyFileSync(path, tmp);
  renameSync(tmp, cached);
  return { target, path, ms: performance.now() - t0 };
}

export function readImageFile(outDir: string): ImageFile {
  const f = join(outDir, 'c', 'image.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as ImageFile) : {};
}

/** Builds and reports the section sizes (per memory region for rv32). */
export function buildWithSizes(outDir: string, target: CTarget): { build: CBuild; sizes: SizeReport } {
  const build = buildC(outDir, target);
  return { build, sizes: sizeReport(target, build.path, readImageFile(outDir)) };
}
