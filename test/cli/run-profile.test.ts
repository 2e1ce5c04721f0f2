/** `gen run` on the emulator prints the per-layer profile and writes <dir>/profile.json. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gen } from '../helpers/cli.js';
import { DEEPLOY } from '../helpers/deeploy.js';
import { checkTraceStructure } from '../helpers/trace-check.js';

const work = mkdtempSync(join(tmpdir(), 'firmgen-run-profile-'));
const folder = join(DEEPLOY, 'Models', 'miniMobileNetv2');
const out = join(work, 'fw');

test('generate', () => {
  const r = gen('firmware', '--platform', 'siracusa', join(folder, 'network.onnx'), '-o', out);
  assert.is(r.code, 0, r.stderr);
});

test('gen run prints the table and writes profile.json', () => {
  const r = gen('run', out, '--inputs', join(folder, 'inputs.npz'), '--expect', join(folder, 'outputs.npz'));
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '', 'nothing on stderr when it is not a terminal');
  // DMA columns appear when the firmware moves tiles (Siracusa's tiled layers).
  assert.match(r.stdout, /^id\s+layer\s+kernel\s+MACs\s+L2 rd\s+L2 wr(\s+DMA in\s+DMA out)?\s+cycles\s+us\s+share\s+util$/m);
  for (const l of r.stdout.split('\n')) assert.ok(l.length <= 100, `fits a 100-column terminal: ${l.length} '${l}'`);
  assert.match(r.stdout, /^\s+\(setup\)/m);
  assert.match(r.stdout, /^\s+\(teardown\)/m);
  assert.match(r.stdout, /^Errors: 0 out of 10$/m);
  const cycles = Number(/^Cycles: (\d+)$/m.exec(r.stdout)?.[1]);
  const p = JSON.parse(readFileSync(join(out, 'profile.json'), 'utf8')) as {
    total: { cycles: number }; layers: { name: string }[]; clockHz: number; cyclesFrom: string;
  };
  assert.is(p.total.cycles, cycles);
  assert.is(p.clockHz, 360_000_000);
  assert.match(p.cyclesFrom, /docs\/timing\.md/);
  for (const l of p.layers) assert.match(r.stdout, l.name);
});

test('--trace writes a trace file with one track per agent', () => {
  const trace = join(work, 'trace.json');
  const r = gen('run', out, '--inputs', join(folder, 'inputs.npz'), '--trace', trace);
  assert.is(r.code, 0, r.stderr);
  const p = JSON.parse(readFileSync(join(out, 'profile.json'), 'utf8')) as { total: { us: number }; layers: { name: string; kernel: string }[] };
  const text = readFileSync(trace, 'utf8');
  // Master + 8 cores, plus a lane per DMA engine when the firmware moves tiles.
  const dmaLanes = (text.match(/"name":"DMA (in|out) \(/g) ?? []).length;
  checkTraceStructure(text, {
    agents: 9 + dmaLanes, layers: p.layers.filter((l) => l.kernel !== 'alias').map((l) => l.name), totalUs: p.total.us,
  });
});

test('--report writes one HTML page', () => {
  const page = join(work, 'report.html');
  const r = gen('run', out, '--inputs', join(folder, 'inputs.npz'), '--report', page);
  assert.is(r.code, 0, r.stderr);
  const html = readFileSync(page, 'utf8');
  assert.match(html, /<table>/);
  assert.match(html, /class="timeline"/);
  assert.match(html, /class="memplan"/);
});

test('--trace with --on host is a clear error', () => {
  const r = gen('run', out, '--inputs', join(folder, 'inputs.npz'), '--on', 'host', '--trace', join(work, 'x.json'));
  assert.is(r.code, 2);
  assert.match(r.stderr, /--trace needs --on emulator or --on iss/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
