import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CASES_DIR, OPEN_DIR, readEntries } from './corpus.js';
import { replayEntry } from './replay.js';

/**
 * The fuzz corpus as regression tests. Every case in corpus/cases must now be exact or cleanly rejected. Every
 * case in corpus/open is a finding not fixed yet: its test checks it still fails, so a fix makes it fail here and
 * the case moves to corpus/cases (never skipped silently).
 */
const cases = readEntries(CASES_DIR);
const open = readEntries(OPEN_DIR);

test('the corpus holds regression cases', () => {
  assert.ok(cases.length > 0, 'corpus/cases is empty');
});

for (const e of cases) {
  test(`corpus case ${e.name} passes`, async () => {
    const problems = await replayEntry(e);
    assert.equal(problems, [], problems.join('; '));
  });
}

for (const e of open) {
  test(`open finding ${e.name} still fails (fixed? move it to corpus/cases)`, async () => {
    // An open hang only has to be seen not to finish: a short bound (it also allocates gigabytes if let run).
    const hang = e.meta.kind === 'cli' && e.meta.found.problems.some((p) => p.includes('no exit'));
    const problems = await replayEntry(e, hang ? 8_000 : 60_000);
    assert.ok(problems.length > 0, `${e.name} passes now: move it from corpus/open to corpus/cases`);
  });
}

test.run();
