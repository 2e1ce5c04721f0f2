import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderTemplate } from '../../generator/backend/render.js';
import { sanitizeComment, sanitizeIdentifier, SymbolTable } from '../../generator/backend/sanitize.js';
import { GenError } from '../../generator/errors.js';

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
