import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GenError } from '../errors.js';
import { checkOutputFolder } from './output-folder.js';

/**
 * Writes a whole output directory atomically: everything goes to a sibling temporary directory that replaces
 * the target only when complete, so a failed generation never leaves a half-written directory behind. The target
 * must pass checkOutputFolder (new, empty, or an earlier firmgen output): it is checked again here, right before
 * the swap, and the old folder is moved aside first and removed only once the new one is in place.
 */
export function writeDirectoryAtomically(outDir: string, files: Map<string, string | Uint8Array>, keep: { model?: string } = {}): void {
  checkOutputFolder(outDir, keep);
  const target = resolve(outDir);
  const stamp = `${process.pid}-${Date.now()}`;
  const tmp = `${target}.tmp-${stamp}`;
  const old = `${target}.old-${stamp}`;
  try {
    const made = new Set<string>(); // each folder made once, not once per file in it
    for (const [rel, content] of files) {
      const path = join(tmp, rel);
      const dir = dirname(path);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      writeFileSync(path, content);
    }
    mkdirSync(dirname(target), { recursive: true });
    const replacing = existsSync(target);
    if (replacing) renameSync(target, old);
    try {
      renameSync(tmp, target);
    } catch (e) {
      if (replacing) renameSync(old, target);
      throw e;
    }
    if (replacing) rmSync(old, { recursive: true, force: true });
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new GenError('input', `cannot write the output directory: ${(e as Error).message}`, { file: outDir });
  }
}
