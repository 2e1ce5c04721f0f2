/**
 * The programmatic AssemblyScript compiler, with its diagnostics turned into one error. The compiler (with
 * binaryen) takes ~0.6 s to load, so it is imported only when a build actually runs, not for a cache hit.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { GenError } from '../../generator/errors.js';

export const ASC_VERSION: string = (
  JSON.parse(readFileSync(createRequire(import.meta.url).resolve('assemblyscript/package.json'), 'utf8')) as {
    version: string;
  }
).version;

/**
 * Runs asc with `argv`. Pass `--config` explicitly: asc reads <baseDir>/asconfig.json when none is given, and the
 * repository root's asconfig.json builds the emulator (TOOLCHAIN.md).
 */
export async function compileAs(argv: string[], what: string): Promise<void> {
  const { default: asc } = await import('assemblyscript/asc');
  const stdout = asc.createMemoryStream();
  const stderr = asc.createMemoryStream();
  const { error } = await asc.main(argv, { stdout, stderr, listFiles });
  if (error) {
    const diagnostics = stderr.toString().trim();
    throw new GenError('run', `asc failed building ${what}: ${error.message}${diagnostics ? `\n${diagnostics}` : ''}`);
  }
}

/**
 * asc's own listFiles joins baseDir and the directory even when the directory is absolute, which breaks a config's
 * `lib` folder (the WASI shim's) as soon as baseDir is not the working directory. Same filter: .ts but not .d.ts.
 */
async function listFiles(dir: string, baseDir: string): Promise<string[] | null> {
  try {
    const names = await readdir(isAbsolute(dir) ? dir : join(baseDir, dir));
    return names.filter((n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
  } catch {
    return null;
  }
}
