/** Content hashes that decide whether an asc build can be skipped. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** All files under `dir` whose names end in `ext`, recursively, sorted (so the hash does not depend on readdir order). */
export function listFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, ext));
    else if (e.isFile() && e.name.endsWith(ext)) out.push(p);
  }
  return out.sort();
}

/**
 * sha256 over the files' paths (relative to `root`) and contents, plus `extra` strings (compiler version and
 * options: a different compiler is a different build).
 */
export function hashFiles(root: string, files: readonly string[], extra: readonly string[] = []): string {
  const h = createHash('sha256');
  for (const x of extra) h.update(`${x}\0`);
  for (const f of files) {
    h.update(`${relative(root, f)}\0`);
    h.update(readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}
