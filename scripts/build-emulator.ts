/**
 * Builds build/emulator.wasm from emulator/assembly/ with the root asconfig.json (release target), unless the
 * sources, the config and the compiler are unchanged since the last build (content hash in build/emulator.hash).
 * Run by `npm run build` after tsc.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASC_VERSION, compileAs } from '../runtime/node/asc.js';
import { hashFiles, listFiles } from '../runtime/node/hash.js';
import { EMULATOR_WASM, REPO_ROOT } from '../runtime/node/paths.js';

const CONFIG = join(REPO_ROOT, 'asconfig.json');
const STAMP = join(REPO_ROOT, 'build', 'emulator.hash');

/** The emulator imports the cost class ids from the HAL (runtime/as/cost.ts), so that file is a source too. */
function sources(): string[] {
  return [...listFiles(join(REPO_ROOT, 'emulator', 'assembly'), '.ts'), join(REPO_ROOT, 'runtime', 'as', 'cost.ts'), CONFIG];
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const hash = hashFiles(REPO_ROOT, sources(), [ASC_VERSION]);
  if (existsSync(EMULATOR_WASM) && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === hash) {
    console.log('emulator: up to date');
    return;
  }
  mkdirSync(join(REPO_ROOT, 'build'), { recursive: true });
  await compileAs(['--baseDir', REPO_ROOT, '--config', 'asconfig.json', '--target', 'release', '--noColors'], 'the emulator');
  writeFileSync(STAMP, hash);
  console.log(`emulator: built ${EMULATOR_WASM} in ${Math.round(performance.now() - t0)} ms`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
