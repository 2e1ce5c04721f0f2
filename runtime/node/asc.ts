/**
 * The programmatic AssemblyScript compiler, with its diagnostics turned into one error. The compiler (with
 * binaryen) takes ~0.6 s to load, so it is imported only when a build actually runs, not for a cache hit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
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
    const first = diagnostics.split('\n').find((l) => /^ERROR/.test(l.trim()))?.trim();
    const log = writeLog(what, `${error.message}\n${diagnostics}\n`);
    // One line: the first diagnostic; the compiler's whole output goes to a file the line names.
    throw new GenError('run', `asc failed building ${what}: ${first ?? error.message}${log ? ` (the compiler's output: ${log})` : ''}`);
  }
}

/** The compiler's output beside the source it built (a firmgen output folder), else in the temporary folder. */
function writeLog(what: string, text: string): string | undefined {
  for (const dir of [dirname(what), tmpdir()]) {
    try {
      const file = join(dir, 'asc-errors.log');
      writeFileSync(file, text);
      return file;
    } catch {
      // not writable: try the next place
    }
  }
  return undefined;
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
