import * as assert from 'uvu/assert';

/**
 * The structure a trace viewer (ui.perfetto.dev, chrome://tracing) needs from a trace-event file: valid JSON with
 * `traceEvents`; complete 'X' slices with ts/dur, or B/E pairs that balance per thread; one named thread per agent;
 * every expected layer present; every slice inside [0, totalUs]. Returns the slices per thread id.
 */
export function checkTraceStructure(
  text: string,
  expect: { agents: number; layers: string[]; totalUs: number },
): Map<number, { name: string; ts: number; dur: number; cat?: string }[]> {
  const json = JSON.parse(text) as { traceEvents?: unknown };
  assert.ok(Array.isArray(json.traceEvents), 'traceEvents is an array');
  const events = json.traceEvents as { name?: unknown; ph?: unknown; pid?: unknown; tid?: unknown; ts?: unknown; dur?: unknown; cat?: string; args?: { name?: unknown } }[];
  const names = new Map<number, string>();
  const slices = new Map<number, { name: string; ts: number; dur: number; cat?: string }[]>();
  const open = new Map<number, { name: string; ts: number }[]>();
  const eps = 1e-6;
  for (const e of events) {
    assert.type(e.name, 'string');
    assert.type(e.pid, 'number');
    assert.type(e.tid, 'number');
    const tid = e.tid as number;
    if (e.ph === 'M') {
      if (e.name === 'thread_name') {
        assert.type(e.args?.name, 'string');
        assert.not.ok(names.has(tid), `thread ${tid} named twice`);
        names.set(tid, e.args!.name as string);
      }
      continue;
    }
    assert.type(e.ts, 'number');
    const ts = e.ts as number;
    assert.ok(ts >= 0 && ts <= expect.totalUs + eps, `${String(e.name)} starts inside the run (${ts})`);
    if (e.ph === 'X') {
      assert.type(e.dur, 'number');
      const dur = e.dur as number;
      assert.ok(dur >= 0 && ts + dur <= expect.totalUs + eps, `${String(e.name)} ends inside the run`);
      (slices.get(tid) ?? slices.set(tid, []).get(tid)!).push({ name: e.name as string, ts, dur, cat: e.cat });
    } else if (e.ph === 'B') {
      (open.get(tid) ?? open.set(tid, []).get(tid)!).push({ name: e.name as string, ts });
    } else if (e.ph === 'E') {
      const b = open.get(tid)?.pop();
      assert.ok(b, `E without B on thread ${tid}`);
      (slices.get(tid) ?? slices.set(tid, []).get(tid)!).push({ name: b!.name, ts: b!.ts, dur: ts - b!.ts });
    } else {
      assert.unreachable(`unexpected phase ${String(e.ph)}`);
    }
  }
  for (const [tid, stack] of open) assert.is(stack.length, 0, `unbalanced B on thread ${tid}`);
  assert.is(names.size, expect.agents, 'one named thread per agent');
  for (const tid of slices.keys()) assert.ok(names.has(tid), `thread ${tid} has a name`);
  const all = [...slices.values()].flat().map((s) => s.name);
  for (const l of expect.layers) assert.ok(all.includes(l), `layer ${l} is in the trace`);
  return slices;
}
