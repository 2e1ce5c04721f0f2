import { existsSync, mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gen } from '../helpers/cli.js';
import { DEEPLOY } from '../helpers/deeploy.js';

/** Bad input: one clear line naming the file and the reason, exit code 2, no output directory left behind. */
const work = mkdtempSync(join(tmpdir(), 'firmgen-bad-'));
const model = readFileSync(join(DEEPLOY, 'Models', 'miniMobileNet', 'network.onnx'));

function expectCleanFailure(file: string, pattern: RegExp): void {
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  const r = gen('firmware', '--platform', 'siracusa', file, '-o', out);
  assert.is(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.match(lines[0], file);
  assert.match(lines[0], pattern);
  assert.not.match(r.stderr, /\n\s+at /, 'no stack trace');
  assert.not.ok(existsSync(out), 'no output directory');
}

test('a mistyped option: one line, the suggestion on it, no escaped line break', () => {
  const r = gen('run', work, '--expected', 'x.npz');
  assert.is(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.match(lines[0], /unknown option '--expected' \(Did you mean --expect\?\) \(gen --help for usage\)/);
  assert.not.match(lines[0], /\\n/, 'no literal backslash-n');
});

test('a missing file', () => {
  expectCleanFailure(join(work, 'nope.onnx'), /cannot read model: ENOENT/);
});

test('a file that is not ONNX', () => {
  const f = join(work, 'text.onnx');
  writeFileSync(f, 'this is a text file, not a protobuf model\n');
  expectCleanFailure(f, /not a valid ONNX model/);
});

test('a truncated ONNX file', () => {
  const f = join(work, 'truncated.onnx');
  writeFileSync(f, model.subarray(0, Math.floor(model.length * 0.6)));
  expectCleanFailure(f, /not a valid ONNX model/);
});

test('a corrupted ONNX file', () => {
  const f = join(work, 'corrupted.onnx');
  const bytes = Buffer.from(model);
  for (let i = 16; i < bytes.length; i += 97) bytes[i] ^= 0xa5;
  writeFileSync(f, bytes);
  expectCleanFailure(f, /not a valid ONNX model|node|tensor/);
});

test('an ONNX file with an invalid wire type', () => {
  const f = join(work, 'wire-type.onnx');
  writeFileSync(f, Buffer.concat([model, Buffer.from([0x1f])])); // field 3, wire type 7: no such wire type
  expectCleanFailure(f, /not a valid ONNX model \(protobuf decoding failed: invalid wire type 7 at byte \d+\)/);
});

test('an ONNX file whose ir_version field has the wrong wire type', () => {
  const f = join(work, 'field-type.onnx');
  writeFileSync(f, Buffer.concat([Buffer.from([0x0d, 1, 2, 3, 4]), model])); // field 1 (int64) as a fixed32
  expectCleanFailure(f, /not a valid ONNX model \(protobuf decoding failed: wire type 5 where 0 was expected/);
});

test('an ONNX model without an IR version', () => {
  assert.equal([model[0], model[1] < 0x80], [0x08, true], 'the file starts with a one-byte ir_version field');
  const f = join(work, 'no-ir-version.onnx');
  writeFileSync(f, model.subarray(2));
  expectCleanFailure(f, /not a valid ONNX model \(no graph, no nodes or no IR version\)/);
});

test('an unknown platform', () => {
  const r = gen('firmware', '--platform', 'nosuchchip', join(DEEPLOY, 'Models', 'miniMobileNet', 'network.onnx'), '-o', join(work, 'x'));
  assert.is(r.code, 2);
  assert.match(r.stderr, /unknown platform 'nosuchchip'/);
  assert.not.ok(existsSync(join(work, 'x')));
});

test('gen run on a directory that is not a firmware', () => {
  const r = gen('run', work, '--inputs', join(DEEPLOY, 'Models', 'miniMobileNet', 'inputs.npz'));
  assert.is(r.code, 2);
  assert.match(r.stderr, /firmware\.json/);
});

test('help is there for newcomers', () => {
  const r = gen('--help');
  assert.is(r.code, 0);
  assert.match(r.stdout, /firmware/);
  assert.match(r.stdout, /run/);
  const f = gen('firmware', '--help');
  assert.match(f.stdout, /--platform/);
  assert.match(f.stdout, /Example/);
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
