/** Where the runtime finds the repository's files, wherever it runs from (sources here compile to dist/runtime/node/). */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The emulator module built by `npm run build` (scripts/build-emulator.ts). */
export const EMULATOR_WASM = join(REPO_ROOT, 'build', 'emulator.wasm');

/** The AS HAL sources the generator copies into out/as/hal/. */
export const HAL_DIR = join(REPO_ROOT, 'runtime', 'as');

/** Built firmware modules, keyed by a content hash (gitignored); FIRMGEN_CACHE overrides. */
export function firmwareCacheDir(): string {
  return process.env.FIRMGEN_CACHE ?? join(REPO_ROOT, '.cache', 'firmware');
}
