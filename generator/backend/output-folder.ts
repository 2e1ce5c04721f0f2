import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, parse, relative, resolve, sep } from 'node:path';
import { homedir } from 'node:os';
import { GenError } from '../errors.js';

/**
 * The one rule for the folder `gen firmware -o` replaces: it is new, empty, or holds an earlier firmgen output (a
 * firmware.json that firmgen wrote). Anything else may hold a user's files, so it is refused before any work and
 * nothing is touched. The current folder, the model's folder, the home folder, a filesystem root and any folder
 * holding one of them are refused even when they look like an output: replacing them would take the user's other
 * files along.
 */
export function checkOutputFolder(out: string, keep: { model?: string } = {}): void {
  const target = canonical(out);
  const guarded = [
    { path: canonical(process.cwd()), what: 'the current folder' },
    { path: canonical(homedir()), what: 'the home folder' },
    ...(keep.model ? [{ path: canonical(dirname(resolve(keep.model))), what: "the model's folder" }] : []),
  ];
  if (parse(target).root === target) refuse(out, 'is a filesystem root');
  for (const g of guarded) {
    if (target === g.path) refuse(out, `is ${g.what}`);
    if (isInside(g.path, target)) refuse(out, `holds ${g.what}`);
  }
  if (!existsSync(target)) return;
  const st = statSync(target);
  if (!st.isDirectory()) refuse(out, 'exists and is not a folder');
  if (readdirSync(target).length === 0) return;
  if (!isFirmgenOutput(target)) {
    refuse(out, 'exists and holds files that are not a firmgen output (no firmware.json written by firmgen); choose a new or empty folder');
  }
}

/** A folder firmgen wrote: its firmware.json parses and names firmgen as its generator. */
export function isFirmgenOutput(dir: string): boolean {
  const manifest = resolve(dir, 'firmware.json');
  try {
    if (!lstatSync(manifest).isFile()) return false;
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { generator?: unknown };
    return typeof m.generator === 'string' && m.generator.startsWith('firmgen ');
  } catch {
    return false;
  }
}

/** The real path of `p`, or of its nearest existing ancestor with the rest appended (p itself may not exist yet). */
function canonical(p: string): string {
  const abs = resolve(p);
  const rest: string[] = [];
  let at = abs;
  for (;;) {
    try {
      return resolve(realpathSync(at), ...rest.reverse());
    } catch {
      const up = dirname(at);
      if (up === at) return abs;
      rest.push(at.slice(up.length).replace(/^[\\/]+/, ''));
      at = up;
    }
  }
}

/** `inner` lies strictly inside `outer`. */
function isInside(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) && !/^[a-zA-Z]:/.test(rel);
}

function refuse(out: string, why: string): never {
  throw new GenError('input', `output folder ${why}: nothing was written`, { file: out });
}
