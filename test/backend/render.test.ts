import Mustache from 'mustache';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TEMPLATES } from '../../generator/backend/paths.js';
import { renderTemplate } from '../../generator/backend/render.js';
import { parseTokens, tokensOf, TOKENS_FILE } from '../../generator/backend/template-tokens.js';
import { sanitizeComment, sanitizeIdentifier, SymbolTable } from '../../generator/backend/sanitize.js';
import { GenError } from '../../generator/errors.js';

test('the build\'s tokens file gives each template the tokens its parse gives (entries read one by one)', () => {
  const text = readFileSync(TOKENS_FILE, 'utf8');
  const eol = text.indexOf('\n');
  const index = JSON.parse(text.slice(0, eol)) as Record<string, [number, number]>;
  const files = readdirSync(TEMPLATES, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.mustache')).sort();
  assert.equal(Object.keys(index).sort(), files);
  // Each place holds that template's entry: its text as built (so a run takes its tokens from the file).
  for (const [rel, [at, length]] of Object.entries(index)) {
    const entry = JSON.parse(text.slice(eol + 1 + at, eol + 1 + at + length)) as { source: string };
    assert.is(entry.source, readFileSync(join(TEMPLATES, rel), 'utf8'), rel);
  }
  // An edited template (its text no longer the file's) is parsed, not taken from the file.
  const first = join(TEMPLATES, files[0]);
  const edited = `${readFileSync(first, 'utf8')}<%! edited %>tail`;
  assert.equal(tokensOf(first, edited), parseTokens(edited));
  for (const rel of files.slice(1)) {
    const source = readFileSync(join(TEMPLATES, rel), 'utf8');
    assert.equal(tokensOf(join(TEMPLATES, rel), source), parseTokens(source), rel);
  }
});

test('templates use <% %> tags and do not HTML-escape', () => {
  assert.is(renderTemplate('int8_t x[] = {{0}}; <%a%> <%b%>', { a: 'a < b && c', b: 3 }, 't'), 'int8_t x[] = {{0}}; a < b && c 3');
});

test('a name the view does not define is an error, not an empty string', () => {
  try {
    renderTemplate('x = <%missing%>;', { present: 1 }, 'kernel.c.mustache');
    assert.unreachable('should fail');
  } catch (e) {
    assert.instance(e, GenError);
    assert.match((e as Error).message, /kernel\.c\.mustache: 'missing' is not defined by the view/);
  }
});

test('names inside sections resolve against the section item, then outer contexts', () => {
  const out = renderTemplate('<%#items%><%name%>:<%width%> <%/items%>', { width: 8, items: [{ name: 'a' }, { name: 'b' }] }, 't');
  assert.is(out, 'a:8 b:8 ');
  assert.throws(() => renderTemplate('<%#items%><%nope%><%/items%>', { items: [{ name: 'a' }] }, 't'), /'nope'/);
});

test('the one-walk render gives what mustache renders, for every kind of section value', () => {
  const template = [
    '<%a%>|<%&a%>|<%n%>|<%z%>|<%nul%>|<%o.p.q%>|',
    '<%#list%>[<%x%>:<%a%>]<%/list%>|<%#prims%>(<%.%>)<%/prims%>|<%#o%><%p.q%><%/o%>|<%#s%>{<%.%>,<%a%>}<%/s%>|',
    '<%#n%>{<%.%>}<%/n%>|<%#t%>T<%a%><%/t%>|<%#f%>F<%/f%>|<%#z%>Z<%/z%>|<%#empty%>E<%/empty%>|',
    '<%^empty%>not<%/empty%>|<%^f%>nf<%/f%>|<%^t%>nt<%/t%>|<%^list%>nl<%/list%>|<%#nested%><%#in%><%v%><%w%><%/in%><%/nested%>',
  ].join('\n');
  const view = {
    a: 'x < y', n: 3.5, z: 0, nul: null, o: { p: { q: 'deep' } }, list: [{ x: 1 }, { x: 2, a: 'inner' }], prims: [1, 'two', 0, false],
    s: 'str', t: true, f: false, empty: [], nested: [{ w: 'w1', in: [{ v: 'a' }, { v: 'b', w: 'own' }] }],
  };
  const want = Mustache.render(template, view, {}, { tags: ['<%', '%>'], escape: String });
  assert.is(renderTemplate(template, view, 't'), want);
  assert.ok(want.includes('[1:x < y][2:inner]') && want.includes('(1)(two)(0)(false)'), want);
});

test('a function in the view is rendered as mustache renders it (called), after the same name check', () => {
  const view = { name: 'n', shout(): string { return 'LOUD'; } };
  assert.is(renderTemplate('<%name%> <%shout%>', view, 't'), 'n LOUD');
  assert.throws(() => renderTemplate('<%shout%> <%missing%>', view, 't'), /'missing' is not defined by the view/);
});

test('a comment is sanitised as it was before it was cut first: every character class, slashes pairing from the left', () => {
  const before = (text: string): string => text.replace(/[^A-Za-z0-9_ .,:;()[\]=+\-#/]/g, '_').replace(/\/\//g, '/_').slice(0, 120);
  const pieces = ['/', '//', '///', 'a', ' ', '*/', '\n', 'é', '\u{1F600}', 'x'.repeat(37)];
  let seed = 7;
  for (let k = 0; k < 2000; k++) {
    let text = '';
    while (text.length < 160) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      text += pieces[seed % pieces.length];
    }
    assert.is(sanitizeComment(text), before(text), JSON.stringify(text));
  }
});

test('model names cannot inject code', () => {
  const evil = 'x; system("rm -rf /"); /* */ //';
  assert.match(sanitizeIdentifier(evil), /^[A-Za-z_][A-Za-z0-9_]*$/);
  assert.not.match(sanitizeComment('a */ evil(); /* b'), /\*\//);
  assert.not.match(sanitizeComment('line\nbreak'), /\n/);
  const s = new SymbolTable();
  const a = s.symbol('a-b', 't_');
  const b = s.symbol('a_b', 't_');
  assert.is.not(a, b, 'distinct names stay distinct after sanitising');
  assert.is(s.symbol('a-b', 't_'), a, 'the same name keeps its symbol');
});

test.run();
