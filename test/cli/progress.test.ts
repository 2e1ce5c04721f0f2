/** The spinner draws stage names on a terminal and nothing at all elsewhere. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spinner } from '../../generator/cli/progress.js';

function stream(isTTY: boolean): { isTTY: boolean; text: string; write(s: string): void } {
  return { isTTY, text: '', write(s: string) { this.text += s; } };
}

test('on a terminal: each stage is drawn at once, done() clears the line', () => {
  const s = stream(true);
  const p = spinner(s);
  for (const name of ['load', 'lower', 'plan', 'emit', 'asc build', 'emulate']) p.stage(name);
  p.done();
  for (const name of ['load', 'lower', 'plan', 'emit', 'asc build', 'emulate']) assert.match(s.text, `${name} `);
  assert.ok(s.text.endsWith('\r\x1b[K'), 'the line is cleared');
});

test('not a terminal: silent', () => {
  const s = stream(false);
  const p = spinner(s);
  p.stage('load');
  p.done();
  assert.is(s.text, '');
});

test.run();
