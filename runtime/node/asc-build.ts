/**
 * Builds generated AS firmware (<asDir>/network.ts plus its hal/ and kernels) to wasm, cached by a content hash of
 * every .ts file under asDir (its comments left out), the compiler version and the options: a second build of the
 * same sources is a copy-free cache hit.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { GenError } from '../../generator/errors.js';
import { ASC_VERSION } from './asc.js';
import { compileAsInWorker } from './asc-thread.js';
import { hashFiles, listFiles, withoutComments } from './hash.js';
import { firmwareCacheDir, REPO_ROOT } from './paths.js';
import { staticDataEnd } from './wasm-data.js';

export interface FirmwareBuild {
  wasmPath: string;
  cached: boolean;
  /** Wall time of this call, ms. */
  ms: number;
}

/** Linear address where the firmware's window starts (docs/firmware-abi.md). */
export const FIRMWARE_MEMORY_BASE = 0x40_0000;
/** The window's size: static data and stub heap in [4 MiB, 8 MiB); the chip's regions follow (docs/firmware-abi.md). */
export const FIRMWARE_WINDOW_BYTES = 4 * 1024 * 1024;

/**
 * Firmware compiler options (docs/firmware-abi.md): the stub runtime (a bump allocator, fine for a module that runs
 * once), the emulator's memory imported, static data at the firmware window, SIMD for kernels (works in Node 20,
 * TOOLCHAIN.md). The WASI shim's config comes on top (console output, `_start`).
 */
const FIRMWARE_OPTIONS = [
  '--runtime', 'stub',
  '--importMemory',
  '--memoryBase', String(FIRMWARE_MEMORY_BASE),
  '--enable', 'simd',
  '--optimizeLevel', '3',
  '--noColors',
];

const require = createRequire(import.meta.url);
const SHIM_CONFIG = require.resolve('@assemblyscript/wasi-shim/asconfig.json');
const SHIM_VERSION = (JSON.parse(readFileSync(require.resolve('@assemblyscript/wasi-shim/package.json'), 'utf8')) as {
  version: string;
}).version;

export async function buildFirmware(asDir: string): Promise<FirmwareBuild> {
  const t0 = performance.now();
  // Absolute: the compiler resolves against --baseDir (the repository), not the user's current folder.
  const entry = resolve(asDir, 'network.ts');
  if (!existsSync(entry)) throw new GenError('run', 'no network.ts to build', { file: asDir });
  // Comments do not reach the module (hash.ts withoutComments): firmware differing in them only is built once.
  const key = hashFiles(asDir, listFiles(asDir, '.ts'), [
    ASC_VERSION, `wasi-shim ${SHIM_VERSION}`, readFileSync(SHIM_CONFIG, 'utf8'), ...FIRMWARE_OPTIONS,
  ], withoutComments).slice(0, 32);
  const dir = firmwareCacheDir();
  const wasmPath = join(dir, `${key}.wasm`);
  if (existsSync(wasmPath)) return { wasmPath, cached: true, ms: performance.now() - t0 };

  mkdirSync(dir, { recursive: true });
  // Build under a private name and rename: concurrent builds of the same sources never see a half-written file.
  const tmp = join(dir, `${key}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp.wasm`);
  // In a worker thread: the compiler's seconds of synchronous work would otherwise stop the CLI's spinner.
  await compileAsInWorker([
    entry, '--outFile', tmp,
    // The config is explicit so that the repository's asconfig.json (the emulator's) is never picked up.
    '--baseDir', REPO_ROOT, '--config', SHIM_CONFIG,
    ...FIRMWARE_OPTIONS,
  ], entry);
  checkStaticData(tmp, asDir);
  renameSync(tmp, wasmPath);
  return { wasmPath, cached: false, ms: performance.now() - t0 };
}

/**
 * Static data past the window would lie over the chip's first region (tables and programs written over the model's
 * tensors): refused at build, before anything runs, and the module is not cached. Every platform's tables, engine
 * programs and constants count (Tangram's programs have their own, earlier budget: engine-kernel.ts).
 */
function checkStaticData(wasmPath: string, asDir: string): void {
  const end = staticDataEnd(readFileSync(wasmPath));
  const used = Math.max(0, end - FIRMWARE_MEMORY_BASE);
  if (end <= FIRMWARE_MEMORY_BASE + FIRMWARE_WINDOW_BYTES) return;
  rmSync(wasmPath, { force: true });
  throw new GenError('capacity', `the AS firmware's static data take ${used} bytes (${(used / 2 ** 20).toFixed(2)} MiB), more than its window of ${FIRMWARE_WINDOW_BYTES} bytes (4 MiB, docs/firmware-abi.md)`, { file: asDir });
}
