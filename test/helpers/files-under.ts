import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` whose name ends in `suffix`, depth first, node_modules left out. */
export function filesUnder(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && e.name !== 'node_modules') out.push(...filesUnder(join(dir, e.name), suffix));
    else if (e.isFile() && e.name.endsWith(suffix)) out.push(join(dir, e.name));
  }
  return out;
}
