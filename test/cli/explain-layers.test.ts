import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * `npm run cost:explain` on a tiled Siracusa layer: both modes' cycles, and core 0's time cut at the team's barriers on
 * each, whose pieces add up to that mode's cycles of the layer (the cuts lie inside the layer, none lost).
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-explain-ok-'));
const model = join(DEEPLOY, 'Models', 'miniMobileNet');

test('miniMobileNet layer 5 (a tiled GEMM): the account and core 0 between barriers', () => {
  const out = join(work, 'fw');
  const g = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), 'firmware', '--platform', 'siracusa', join(model, 'network.onnx'), '-o', out], { encoding: 'utf8' });
  assert.is(g.status, 0, g.stderr);
  const r = spawnSync(process.execPath, [join(REPO, 'dist', 'scripts', 'explain-layers.js'), out, '--inputs', join(model, 'inputs.npz'), '--layers', '5'], { encoding: 'utf8', timeout: 600_000 });
  assert.is(r.status, 0, r.stderr);
  const head = /^layer 5 \S+: ISS (\d+), AS (\d+), ISS\/AS [\d.]+$/m.exec(r.stdout);
  assert.ok(head, r.stdout);
  const cut = /^ {2}core 0 between barriers: ISS ([\d |]+); AS ([\d |]+)$/m.exec(r.stdout);
  assert.ok(cut, r.stdout);
  const pieces = (s: string): number[] => s.split(' | ').map(Number);
  const iss = pieces(cut[1]);
  const as = pieces(cut[2]);
  // a tiled layer of one tile: the driving, the kernel between two barriers, what follows
  assert.ok(iss.length >= 3 && as.length >= 3, r.stdout);
  assert.is(iss.reduce((a, b) => a + b, 0), Number(head[1]));
  assert.is(as.reduce((a, b) => a + b, 0), Number(head[2]));
  assert.match(r.stdout, /^ {2}AS by class: .*CODE_BYTE \d+/m);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
