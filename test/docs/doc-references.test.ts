/**
 * Every citation of a section of a document under docs/ names a heading that document has. Sources cite sections as
 * the document's path followed by the heading in straight double quotes, optionally after a comma or the word
 * "section", several headings joined by ", " or " and " (for instance timing.md's Clocks section, or two sections of
 * firmware-abi.md at once). The heading is named by its leading words: a citation matches a heading (any level, outside
 * code fences) that equals it or starts with it at a word's end, so that a dated heading such as the journal's can be
 * cited without its date. A citation may wrap onto the next lines of a comment: their comment leaders (`//`, `*`, `#`)
 * are dropped before the quoted text is read. Scans the repository's .ts, .md, .mustache, .c and .h files, the
 * dependencies and the build outputs left out.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { filesUnder } from '../helpers/files-under.js';

/** Directories that hold no sources of the repository's own (dependencies, build outputs, caches). */
const SKIPPED = new Set(['node_modules', 'dist', 'build', 'out', '.git', '.cache']);
const SUFFIXES = ['.ts', '.md', '.mustache', '.c', '.h'];

/** The text a citation is compared in: emphasis and code marks dropped, white space collapsed. */
const normal = (s: string): string => s.replace(/[`*]/g, '').replace(/\s+/g, ' ').trim();

/** The headings of a markdown document (any level), those inside code fences left out. */
export function headingsOf(markdown: string): string[] {
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) headings.push(normal(m[1]));
  }
  return headings;
}

/** Whether `cited` names `heading`: equal, or its leading words (the heading goes on after a non-word character). */
export function names(heading: string, cited: string): boolean {
  const c = normal(cited);
  return heading === c || (heading.startsWith(c) && !/[\p{L}\p{N}_'-]/u.test(heading[c.length]));
}

/** A line with its comment leader dropped, to continue a citation wrapped from the line before. */
const continuation = (line: string): string => line.replace(/^\s*(?:\/\/+|\*(?!\*)|#+|<!--)?\s*/, '');

export interface Citation { file: string; line: number; doc: string; heading: string }

/** The citations of one source's text (`file` is its path from the repository's root). */
export function citationsIn(file: string, text: string): Citation[] {
  const lines = text.split('\n');
  const found: Citation[] = [];
  const ref = /docs\/([\w.-]+)\.md`?/g;
  for (let i = 0; i < lines.length; i++) {
    // The line and the two after it: a citation that starts on this line may wrap.
    const joined = [lines[i], ...lines.slice(i + 1, i + 3).map(continuation)].join(' ');
    for (const m of lines[i].matchAll(ref)) {
      let at = m.index! + m[0].length;
      const lead = /^\s*,?\s*(?:section\s+)?\(?(?=")/.exec(joined.slice(at));
      if (!lead) continue;
      at += lead[0].length;
      // The quoted headings: the first, then any joined to it by ", ", " and " or ", and ".
      for (;;) {
        const q = /^"([\p{L}\p{N}`][^"]*)"/u.exec(joined.slice(at));
        if (!q) break;
        found.push({ file, line: i + 1, doc: `docs/${m[1]}.md`, heading: q[1] });
        at += q[0].length;
        const sep = /^(?:,\s+and\s+|\s+and\s+|,\s+)(?=")/.exec(joined.slice(at));
        if (!sep) break;
        at += sep[0].length;
      }
    }
  }
  return found;
}

test('the scan reads single, listed and wrapped citations', () => {
  const doc = 'docs/a.md';
  const text = [
    `// one (${doc} "One") and two (${doc}, "Two", "Three" and "Four")`,
    ` * wrapped (${doc} "Five`,
    ` * six") and (${doc}`,
    ` * section "Seven")`,
    `const files = ["${doc}", "docs/b.md"];`,
  ].join('\n');
  assert.equal(citationsIn('x.ts', text).map((c) => [c.line, c.heading]), [
    [1, 'One'], [1, 'Two'], [1, 'Three'], [1, 'Four'], [2, 'Five six'], [3, 'Seven'],
  ]);
  const headings = headingsOf('# Title\n## The fit\n```\n## Not a heading\n```\n### Per phase, from the trace (2026-12-04)\n');
  assert.equal(headings, ['Title', 'The fit', 'Per phase, from the trace (2026-12-04)']);
  assert.ok(names('Per phase, from the trace (2026-12-04)', 'Per phase'));
  assert.ok(names('The fit', 'The fit'));
  assert.not.ok(names('The fitted table', 'The fit'));
  assert.not.ok(names('The fit', 'The fit on compiled bytes'));
});

test('every cited section of a document under docs/ is one of its headings', () => {
  const headings = new Map<string, string[] | undefined>();
  const broken: string[] = [];
  let count = 0;
  for (const path of filesUnder(REPO_ROOT, SUFFIXES, SKIPPED)) {
    const file = relative(REPO_ROOT, path);
    for (const c of citationsIn(file, readFileSync(path, 'utf8'))) {
      count++;
      if (!headings.has(c.doc)) {
        const target = join(REPO_ROOT, c.doc);
        headings.set(c.doc, existsSync(target) ? headingsOf(readFileSync(target, 'utf8')) : undefined);
      }
      const of = headings.get(c.doc);
      if (!of) broken.push(`${c.file}:${c.line}: ${c.doc} does not exist`);
      else if (!of.some((h) => names(h, c.heading))) broken.push(`${c.file}:${c.line}: ${c.doc} has no heading "${c.heading}"`);
    }
  }
  assert.ok(count > 100, `only ${count} citations found: the scan is broken`);
  assert.equal(broken, [], broken.join('\n'));
});

test.run();
