import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

/*
 * `gen firmware` runs from one file that scripts/bundle-cli.ts writes at `npm run build`: the CLI's modules bundled
 * into one CommonJS function, and V8's code cache of it, the bytecode of every function the build's generations of
 * the shipped example ran. Node 20 has no compile cache of its own; with the cache a `gen firmware` takes ~8 % less
 * CPU than compiling the same bundle as it runs (paired runs, scripts/bundle-cli.ts). A V8 startup snapshot was
 * measured too and not kept: `node bin/gen.js` would have to start a second Node to use one (node --snapshot-blob),
 * and that start costs more than the snapshot saves (docs/architecture.md, "Start-up").
 *
 * The file: one JSON line (the Node version and architecture the cache was made by, the byte lengths of the source
 * and of the cache), the source, the cache. The cache always sits beside the very source it was made from, so it can
 * never belong to another bundle (V8's own check compares a source's length, not its text); it is used only by the
 * same Node on the same architecture, and V8 itself still refuses data from another V8 or other flags. Without a
 * usable cache the source compiles as any script does: slower, same result.
 */

/** Beside the CLI's modules, so that their relative URLs (paths.ts, the commands left out) resolve the same. */
export const BUNDLE_FILE = 'gen.bundle';

/** What became of the code cache. */
export type CacheUse = 'used' | 'other-node' | 'rejected' | 'none';

export interface LoadedBundle {
  /** gen.ts's gen(): the code to exit with, or undefined. */
  gen(argv: string[]): Promise<number | undefined>;
  cache: CacheUse;
  /** The bundle file again, with the code cache of everything compiled so far (the build, after its generations). */
  writeWithCache(): void;
}

interface Header {
  node: string;
  arch: string;
  source: number;
  cache: number;
}

/**
 * The bundle's text wrapped as one function expression, as Node wraps a CommonJS module; strict as a whole, as the
 * ES modules it was made of are (the packages bundled with it are strict or classes). __import(specifier) imports a
 * module relative to the bundle: the commands left out of it (scripts/bundle-cli.ts).
 */
export function wrapSource(bundle: string): string {
  return `(function (exports, require, module, __filename, __dirname, __import) {'use strict';${bundle}\n})`;
}

/** Writes the bundle file: header, source (ASCII, so that it reads back as one-byte text), cache (may be empty). */
export function writeBundleFile(dir: string, source: string, cache: Buffer): void {
  if (!/^[\x00-\x7f]*$/.test(source)) throw new Error('the bundle source is not ASCII');
  const header: Header = { node: process.version, arch: process.arch, source: source.length, cache: cache.length };
  const file = join(dir, BUNDLE_FILE);
  writeFileSync(`${file}.tmp`, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), Buffer.from(source, 'latin1'), cache]));
  renameSync(`${file}.tmp`, file);
}

export function hasBundle(dir: string): boolean {
  return existsSync(join(dir, BUNDLE_FILE));
}

/** Compiles and evaluates the bundle with its code cache when that fits. */
export function loadBundle(dir: string): LoadedBundle {
  const file = join(dir, BUNDLE_FILE);
  return compileBundle(file, readFileSync(file));
}

/** The bundle file's content `data` compiled and evaluated as the bundle at `file` (tests give altered content). */
export function compileBundle(file: string, data: Buffer): LoadedBundle {
  const eol = data.indexOf(10);
  const header = JSON.parse(data.toString('utf8', 0, eol)) as Header;
  const start = eol + 1;
  if (data.length !== start + header.source + header.cache) throw new Error(`${file} is cut short; run \`npm run build\` again`);
  const source = data.toString('latin1', start, start + header.source);
  const sameNode = header.node === process.version && header.arch === process.arch;
  const cachedData = sameNode && header.cache > 0 ? data.subarray(start + header.source) : undefined;
  const here = pathToFileURL(file);
  const script = new vm.Script(source, { filename: file, cachedData });
  const cache: CacheUse = header.cache === 0 ? 'none' : !sameNode ? 'other-node' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as { gen?: LoadedBundle['gen'] } };
  (script.runInThisContext() as (...a: unknown[]) => void)(
    module.exports, createRequire(file), module, file, dirname(file), (specifier: string) => import(new URL(specifier, here).href),
  );
  const gen = module.exports.gen;
  if (typeof gen !== 'function') throw new Error(`${file} does not export gen(); run \`npm run build\` again`);
  return { gen, cache, writeWithCache: () => writeBundleFile(dirname(file), source, script.createCachedData()) };
}
