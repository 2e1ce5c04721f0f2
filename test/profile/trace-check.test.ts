/** The trace checker itself rejects what a viewer would choke on (so a passing models test means something). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTraceStructure } from '../helpers/trace-check.js';

const meta = (tid: number) => ({ name: 'thread_name', ph: 'M', pid: 1, tid, args: { name: `t${tid}` } });
const x = (tid: number, name: string, ts: number, dur: number) => ({ name, ph: 'X', pid: 1, tid, ts, dur });
const check = (events: unknown[]) =>
  checkTraceStructure(JSON.stringify({ traceEvents: events }), { agents: 2, layers: ['L0'], totalUs: 10 });

test('a good trace passes, B/E pairs included', () => {
  const s = check([meta(0), meta(1), x(0, 'L0', 0, 4), { name: 'k', ph: 'B', pid: 1, tid: 1, ts: 1 }, { name: 'k', ph: 'E', pid: 1, tid: 1, ts: 3 }]);
  assert.equal(s.get(1), [{ name: 'k', ts: 1, dur: 2 }]);
});

test('each defect fails', () => {
  const bad: [string, unknown[]][] = [
    ['not JSON', []],
    ['unbalanced B', [meta(0), meta(1), x(0, 'L0', 0, 4), { name: 'k', ph: 'B', pid: 1, tid: 1, ts: 1 }]],
    ['slice past the end', [meta(0), meta(1), x(0, 'L0', 8, 4)]],
    ['a layer missing', [meta(0), meta(1), x(0, 'L1', 0, 4)]],
    ['an unnamed thread', [meta(0), meta(1), x(0, 'L0', 0, 4), x(2, 'k', 0, 1)]],
    ['one thread too few', [meta(0), x(0, 'L0', 0, 4)]],
  ];
  for (const [what, events] of bad) {
    // uvu's assert.throws re-throws assertion errors, so catch by hand.
    let failed = false;
    try {
      if (what === 'not JSON') checkTraceStructure('{"traceEvents": [', { agents: 1, layers: [], totalUs: 1 });
      else check(events);
    } catch {
      failed = true;
    }
    assert.ok(failed, what);
  }
});

test.run();
