import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file under `dir` whose name ends in `suffix` (or one of `suffix`), depth first, the folders named in `skip`
 * (node_modules by default) left out.
 */
export function filesUnder(dir: string, suffix: string | readonly string[], skip: ReadonlySet<string> = new Set(['node_modules'])): string[] {
  const suffixes = typeof suffix === 'string' ? [suffix] : suffix;
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && !skip.has(e.name)) out.push(...filesUnder(join(dir, e.name), suffixes, skip));
    else if (e.isFile() && suffixes.some((s) => e.name.endsWith(s))) out.push(join(dir, e.name));
  }
  return out;
}
