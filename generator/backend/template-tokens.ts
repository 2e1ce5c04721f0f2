import Mustache from 'mustache';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, TEMPLATES } from './paths.js';

/*
 * Templates parsed once at `npm run build` (mustache's parser was ~45 ms of a 0.55 s `gen firmware`, measured with
 * node --cpu-prof). Each entry keeps the source it was parsed from: a template edited after the build no longer matches
 * and is parsed at run time instead, so a stale file can never change what is rendered.
 */
export const TOKENS_FILE = join(ROOT, 'dist', 'firmware-templates.tokens.json');

/** The tags every template uses (`{{ }}` collides with C initialisers). */
export const TAGS: [string, string] = ['<%', '%>'];

export type Token = [string, string, number, number, Token[]?, number?];
type Entry = { source: string; tokens: Token[] };

let built: Map<string, Entry> | undefined;

function prebuilt(): Map<string, Entry> {
  if (built === undefined) {
    built = new Map();
    try {
      if (existsSync(TOKENS_FILE)) {
        const json = JSON.parse(readFileSync(TOKENS_FILE, 'utf8')) as Record<string, Entry>;
        for (const [rel, entry] of Object.entries(json)) built.set(join(TEMPLATES, rel), entry);
      }
    } catch {
      built.clear(); // an unreadable file only costs the parse it would have saved
    }
  }
  return built;
}

const parsed = new Map<string, Token[]>();

/** The tokens of the template at `path` whose text is `source`: from the build's file when it matches, else parsed. */
export function tokensOf(path: string, source: string): Token[] {
  let tokens = parsed.get(path);
  if (tokens === undefined) {
    const entry = prebuilt().get(path);
    tokens = entry !== undefined && entry.source === source ? entry.tokens : parseTokens(source);
    parsed.set(path, tokens);
  }
  return tokens;
}

export function parseTokens(source: string): Token[] {
  return new Mustache.Writer().parse(source, TAGS) as unknown as Token[];
}

function templateFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? templateFiles(join(dir, d.name)) : d.name.endsWith('.mustache') ? [join(dir, d.name)] : []))
    .sort();
}

/** Writes the tokens file (run by `npm run build`). */
export function writeTokensFile(): number {
  const out: Record<string, Entry> = {};
  for (const file of templateFiles(TEMPLATES)) {
    const source = readFileSync(file, 'utf8');
    out[relative(TEMPLATES, file)] = { source, tokens: parseTokens(source) };
  }
  writeFileSync(TOKENS_FILE, JSON.stringify(out));
  return Object.keys(out).length;
}
