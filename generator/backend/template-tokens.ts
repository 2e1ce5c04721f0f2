import Mustache from 'mustache';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, TEMPLATES } from './paths.js';

/*
 * Templates parsed once at `npm run build` (mustache's parser was ~45 ms of a 0.55 s `gen firmware`, measured with
 * node --cpu-prof). Each entry keeps the source it was parsed from: a template edited after the build no longer matches
 * and is parsed at run time instead, so a stale file can never change what is rendered. The file is one line of JSON,
 * each template's place in the rest (start, length), then each entry's JSON: a run parses only the entries of the
 * templates it renders (parsing all 62 was ~10 ms of a generation that renders about a third of them).
 */
export const TOKENS_FILE = join(ROOT, 'dist', 'firmware-templates.tokens.json');

/** The tags every template uses (`{{ }}` collides with C initialisers). */
export const TAGS: [string, string] = ['<%', '%>'];

export type Token = [string, string, number, number, Token[]?, number?];
type Entry = { source: string; tokens: Token[] };

/** The file's text after its index line, and each template's entry (start, length) in it, by path. */
let built: { text: string; at: Map<string, [number, number]> } | undefined;

function prebuilt(path: string): Entry | undefined {
  if (built === undefined) {
    built = { text: '', at: new Map() };
    try {
      if (existsSync(TOKENS_FILE)) {
        const file = readFileSync(TOKENS_FILE, 'utf8');
        const eol = file.indexOf('\n');
        const index = JSON.parse(file.slice(0, eol)) as Record<string, [number, number]>;
        built.text = file.slice(eol + 1);
        for (const [rel, place] of Object.entries(index)) built.at.set(join(TEMPLATES, rel), place);
      }
    } catch {
      built.at.clear(); // an unreadable file only costs the parse it would have saved
    }
  }
  const place = built.at.get(path);
  if (place === undefined) return undefined;
  try {
    return JSON.parse(built.text.slice(place[0], place[0] + place[1])) as Entry;
  } catch {
    return undefined; // as above: this template is parsed instead
  }
}

const parsed = new Map<string, Token[]>();

/** The tokens of the template at `path` whose text is `source`: from the build's file when it matches, else parsed. */
export function tokensOf(path: string, source: string): Token[] {
  let tokens = parsed.get(path);
  if (tokens === undefined) {
    const entry = prebuilt(path);
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
  const index: Record<string, [number, number]> = {};
  const entries: string[] = [];
  let at = 0;
  for (const file of templateFiles(TEMPLATES)) {
    const source = readFileSync(file, 'utf8');
    const entry = JSON.stringify({ source, tokens: parseTokens(source) } satisfies Entry);
    index[relative(TEMPLATES, file)] = [at, entry.length];
    entries.push(entry);
    at += entry.length;
  }
  writeFileSync(TOKENS_FILE, `${JSON.stringify(index)}\n${entries.join('')}`);
  return entries.length;
}
