/** Content hashes that decide whether an asc build can be skipped. */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { COMMENT_OR_STRING } from '../../generator/backend/comments.js';

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
 * options: a different compiler is a different build). `content` maps a file's text to what is hashed (default: as is).
 */
export function hashFiles(root: string, files: readonly string[], extra: readonly string[] = [], content?: (text: string) => string): string {
  const h = createHash('sha256');
  for (const x of extra) h.update(`${x}\0`);
  for (const f of files) {
    h.update(`${relative(root, f)}\0`);
    h.update(content ? content(readFileSync(f, 'utf8')) : readFileSync(f));
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * TypeScript/AssemblyScript source as the compiler's output depends on it: a line comment dropped, a block comment
 * made spaces of its length with its newlines kept, strings left as they are (found left to right, so a '//' inside
 * a string is string). Every token keeps its line and column, which the compiler writes into the module (abort's
 * position arguments), so two sources alike here compile to the same bytes: generated firmware that differs only in
 * the comments naming a model's nodes builds once.
 */
export function withoutComments(text: string): string {
  return text.replace(COMMENT_OR_STRING, (m) => (m.startsWith('//') ? '' : m.startsWith('/*') ? m.replace(/[^\n]/g, ' ') : m));
}
