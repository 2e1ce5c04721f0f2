import { mkdirSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GenError } from '../errors.js';

/**
 * Writes a whole output directory atomically: everything goes to a sibling temporary directory that replaces
 * the target only when complete, so a failed generation never leaves a half-written directory behind.
 */
export function writeDirectoryAtomically(outDir: string, files: Map<string, string | Uint8Array>): void {
  const target = resolve(outDir);
  const tmp = `${target}.tmp-${process.pid}-${Date.now()}`;
  try {
    for (const [rel, content] of files) {
      const path = join(tmp, rel);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    mkdirSync(dirname(target), { recursive: true });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new GenError('input', `cannot write the output directory: ${(e as Error).message}`, { file: outDir });
  }
}
