import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { ndarray } from '../../generator/ir/ndarray.js';
import { gen } from '../helpers/cli.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/** Models that are valid ONNX but cannot become firmware fail cleanly; hostile names never reach the code. */
const work = mkdtempSync(join(tmpdir(), 'firmgen-generr-'));

function save(name: string, b: OnnxBuilder): string {
  const f = join(work, `${name}.onnx`);
  writeFileSync(f, b.bytes());
  return f;
}

test('an op no kernel supports names the node and the op', () => {
  const f = save('softsign', new OnnxBuilder('softsign').input('x', 'int8', [1, 8]).node('Softsign', ['x'], ['y']).output('y', 'float32', [1, 8]));
  const out = join(work, 'out-softsign');
  const r = gen('firmware', '--platform', 'generic', f, '-o', out);
  assert.is(r.code, 2);
  assert.match(r.stderr, /softsign\.onnx/);
  assert.match(r.stderr, /node 'Softsign_0' \(Softsign\)/);
  assert.is(r.stderr.trim().split('\n').length, 1);
  assert.not.ok(existsSync(out));
});

test('a model that does not fit the memory names the level, the bytes needed and available', () => {
  const rng = new Rng(7);
  const K = 1024;
  const N = 2048; // 2 MiB of int8 weights: more than Siracusa's L2 arena
  const f = save('huge', new OnnxBuilder('huge')
    .input('x', 'int8', [1, K])
    .initializer('w', 'int8', [K, N], rng.ints(K * N, -128, 127))
    .node('MatMul', ['x', 'w'], ['y'])
    .output('y', 'int32', [1, N]));
  const out = join(work, 'out-huge');
  const r = gen('firmware', '--platform', 'siracusa', f, '-o', out);
  assert.is(r.code, 2, r.stderr);
  assert.match(r.stderr, /needs \d+ bytes of L2/);
  assert.match(r.stderr, /'w' 2097152 bytes/);
  assert.match(r.stderr, /2031616 bytes are available/);
  assert.not.ok(existsSync(out));
  // The same model fits the generic target's 16 MiB.
  const ok = gen('firmware', '--platform', 'generic', f, '-o', join(work, 'out-huge-generic'));
  assert.is(ok.code, 0, ok.stderr);
});

test('hostile tensor and node names are sanitised: the firmware builds and computes', () => {
  const a = 'x"); abort(); /*';
  const b = '*/ system("rm -rf /"); //';
  const y = 'y\nconst evil = 1;';
  const f = save('evil', new OnnxBuilder('evil */ model')
    .input(a, 'int8', [1, 4])
    .input(b, 'int8', [1, 4])
    .node('Add', [a, b], [y])
    .output(y, 'int32', [1, 4]));
  const out = join(work, 'out-evil');
  for (const platform of ['generic', 'siracusa']) {
    const r = gen('firmware', '--platform', platform, f, '-o', out);
    assert.is(r.code, 0, r.stderr);
    const inputs = join(work, 'evil-in.npz');
    writeFileSync(inputs, encodeNpz(new Map([['a', ndarray('int8', [1, 4], [1, -2, 3, 127])], ['b', ndarray('int8', [1, 4], [5, 6, -7, 127])]])));
    const expect = join(work, 'evil-out.npz');
    writeFileSync(expect, encodeNpz(new Map([['y', ndarray('int32', [1, 4], [6, 4, -4, 254])]])));
    for (const on of ['emulator', 'host']) {
      const run = gen('run', out, '--inputs', inputs, '--expect', expect, '--on', on);
      assert.is(run.code, 0, `${platform} ${on}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, /Errors: 0 out of 4/);
    }
  }
});

test('model names with newlines and terminal escapes never reach the terminal raw', () => {
  // A tensor name that would forge a second "error:" line and clear the screen if printed as it is.
  const forged = 'x\n\u001b[2J\u001b[Herror: forged line\u0007\u2028';
  const unsupported = save('forged', new OnnxBuilder('forged\u001b[31m').input(forged, 'int8', [1, 8]).node('Softsign', [forged], ['y']).output('y', 'float32', [1, 8]));
  const r = gen('firmware', '--platform', 'generic', unsupported, '-o', join(work, 'out-forged'));
  assert.is(r.code, 2);
  assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.not.match(r.stderr, /[\u0000-\u0009\u000b-\u001f\u007f\u2028]/, 'no control characters');
  // Accepted with such names: what it prints on generating and running has none either.
  const ok = save('forged-ok', new OnnxBuilder('forged\u001b[31m').input(forged, 'int8', [1, 4]).input('b', 'int8', [1, 4])
    .node('Add', [forged, 'b'], [`${forged}out`]).output(`${forged}out`, 'int32', [1, 4]));
  const out = join(work, 'out-forged-ok');
  const g = gen('firmware', '--platform', 'siracusa', ok, '-o', out);
  assert.is(g.code, 0, g.stderr);
  const inputs = join(work, 'forged-in.npz');
  writeFileSync(inputs, encodeNpz(new Map([['a', ndarray('int8', [1, 4], [1, 2, 3, 4])], ['b', ndarray('int8', [1, 4], [1, 1, 1, 1])]])));
  const run = gen('run', out, '--inputs', inputs);
  assert.is(run.code, 0, run.stderr);
  for (const text of [g.stdout, g.stderr, run.stdout, run.stderr]) {
    assert.not.match(text, /[\u0000-\u0009\u000b-\u001f\u007f\u2028]/, 'no control characters');
    assert.not.match(text, /^error: forged/m);
  }
});

test('gen run with inputs that do not fit the input type exits 2 naming the input', () => {
  const f = save('narrow', new OnnxBuilder('narrow').input('x', 'int8', [1, 2]).input('z', 'int8', [1, 2]).node('Add', ['x', 'z'], ['y']).output('y', 'int32', [1, 2]));
  const out = join(work, 'out-narrow');
  assert.is(gen('firmware', '--platform', 'generic', f, '-o', out).code, 0);
  const inputs = join(work, 'narrow-in.npz');
  writeFileSync(inputs, encodeNpz(new Map([['x', ndarray('int64', [1, 2], [1, 300])], ['z', ndarray('int64', [1, 2], [0, 0])]])));
  const r = gen('run', out, '--inputs', inputs);
  assert.is(r.code, 2);
  assert.match(r.stderr, /300/);
  assert.match(r.stderr, /'x'/);
  assert.ok(readNpz(inputs).size === 2);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
