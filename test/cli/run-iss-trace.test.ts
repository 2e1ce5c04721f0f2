import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `gen run --on iss --trace`: the rv32 ELF's run drawn per hart from what the RV32 core measured. Checked against
 * records the trace is not made from: each hart's track holds no two slices at once (its waits sit where its clock
 * spent them), the cores' DMA waits add up to the DMA sleep the profile's counters give, the write-backs move the
 * bytes the AS firmware's write-backs move for the same tile plan (its own trace), and with N-EUREKA the jobs are the
 * AS firmware's jobs, layer by layer.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-iss-trace-'));

function gen(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', timeout: 300_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

interface Slice { name: string; ph: string; cat: string; tid: number; args: { startCycle: number; cycles: number; layer?: number; bytes?: number } }
interface TraceFile { traceEvents: (Slice & { args: Record<string, unknown> })[]; otherData: Record<string, unknown> }

function readTrace(path: string): { slices: Slice[]; threads: Map<number, string>; other: Record<string, unknown> } {
  const t = JSON.parse(readFileSync(path, 'utf8')) as TraceFile;
  const threads = new Map(t.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, String(e.args.name)]));
  return { slices: t.traceEvents.filter((e) => e.ph === 'X'), threads, other: t.otherData };
}

/** Sum of `value` over slices, keyed by layer. */
function byLayer(slices: Slice[], value: (s: Slice) => number): Map<number, number> {
  const m = new Map<number, number>();
  for (const s of slices) m.set(s.args.layer ?? -1, (m.get(s.args.layer ?? -1) ?? 0) + value(s));
  return m;
}

const src = join(DEEPLOY, 'Models', 'CNN_Linear1');

for (const engines of ['cluster', 'cluster+npu']) {
  test(`CNN_Linear1 on siracusa, --engines ${engines}: the ISS's trace`, () => {
    const out = join(work, engines.replace('+', '-'));
    const made = gen('firmware', '--platform', 'siracusa', '--engines', engines, join(src, 'network.onnx'), '-o', out);
    assert.is(made.code, 0, made.stderr);
    const inputs = join(src, 'inputs.npz');
    const r = gen('run', out, '--inputs', inputs, '--on', 'iss', '--trace', join(out, 'iss.json'));
    assert.is(r.code, 0, r.stderr);
    const as = gen('run', out, '--inputs', inputs, '--trace', join(out, 'as.json'));
    assert.is(as.code, 0, as.stderr);
    const iss = readTrace(join(out, 'iss.json'));
    const emu = readTrace(join(out, 'as.json'));

    assert.is(iss.threads.get(0), 'master (fabric controller)');
    for (let c = 0; c < 8; c++) assert.is(iss.threads.get(1 + c), `cluster core ${c}`);
    assert.match(String(iss.other.cyclesFrom), /RV32 core/);
    assert.is(iss.other.eventsDropped, 0);

    // A hart does one thing at a time: its runs and waits never overlap (the layers on core 0's track hold them).
    for (let h = 0; h <= 8; h++) {
      const own = iss.slices.filter((s) => s.tid === h && s.cat !== 'layer').sort((a, b) => a.args.startCycle - b.args.startCycle);
      assert.ok(own.length > 0, `hart ${h} has slices`);
      for (let i = 1; i < own.length; i++) {
        const prev = own[i - 1];
        assert.ok(own[i].args.startCycle >= prev.args.startCycle + prev.args.cycles,
          `hart ${h}: ${own[i].name} at ${own[i].args.startCycle} inside ${prev.name} ending at ${prev.args.startCycle + prev.args.cycles}`);
      }
    }
    const layerSlices = iss.slices.filter((s) => s.cat === 'layer');
    assert.ok(layerSlices.length >= 8 && layerSlices.every((s) => s.tid === 1), 'the layers on cluster core 0, which marks them');

    // The cores' DMA waits are the DMA sleep the cores' stall counters give (the profile's summary line).
    const sleep = Number(/DMA sleep (\d+)/.exec(r.stdout)?.[1]);
    const waited = iss.slices.filter((s) => s.tid >= 1 && s.tid <= 8 && s.name === 'DMA wait').reduce((n, s) => n + s.args.cycles, 0);
    assert.ok(sleep > 0, r.stdout);
    assert.is(waited, sleep);

    // The write-backs of the same tile plan move the same bytes, layer by layer, in the C and in the AS firmware.
    const outBytes = (t: typeof iss): Map<number, number> =>
      byLayer(t.slices.filter((s) => s.cat === 'dma' && / out ch/.test(s.name)), (s) => s.args.bytes ?? 0);
    assert.equal([...outBytes(iss).entries()].sort(), [...outBytes(emu).entries()].sort());

    const jobs = (t: typeof iss): Map<number, number> => byLayer(t.slices.filter((s) => s.cat === 'npu'), () => 1);
    if (engines === 'cluster+npu') {
      assert.ok(jobs(emu).size > 0, 'N-EUREKA runs some layers');
      assert.equal([...jobs(iss).entries()].sort(), [...jobs(emu).entries()].sort());
      assert.is(iss.threads.get(11), 'NPU');
    } else {
      assert.is(jobs(iss).size, 0);
    }
  });
}

test('--report stays with the emulator: one line, exit 2', () => {
  const out = join(work, 'cluster');
  const r = gen('run', out, '--inputs', join(src, 'inputs.npz'), '--on', 'iss', '--report', join(work, 'r.html'));
  assert.is(r.code, 2, r.stderr);
  assert.is(r.stderr.trim(), 'error: --report needs --on emulator');
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
