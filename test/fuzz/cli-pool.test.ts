import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkRun, runConfirmingHangs, runGen, type CliRun } from './cli-check.js';
import { CliServer } from './cli-pool.js';
import { CASES_DIR, readEntries } from './corpus.js';
import { unzipFolder } from './zip-folder.js';

/**
 * The mutation fuzzer runs most commands in a long-lived in-process worker (cli-pool.ts) and only a sample as a
 * spawned bin/gen.js: the two must give the same verdict. Corpus cases of every path (usage error, model error,
 * accepted model and its run, a corrupted firmware folder, the host build) run both ways in separate scratch copies:
 * same exit code, same stderr and stdout (scratch paths aside), same checkRun problems.
 */
const NAMES = [
  'cli-bad-platform', 'cli-usage-error-two-stderr-lines', 'huge-varint-pad-model-one-line', 'run-emoji-graph-name-printable',
  'run-broken-as-source-multiline-error', 'run-host-truncated-network-c-one-line', 'firmware-json-value-echoed-raw-in-error',
  'sample-reshaped-leading-one-accepted',
];
const server = new CliServer();
const scratch = mkdtempSync(join(tmpdir(), 'firmgen-cli-pool-'));

function copyOf(dir: string, name: string): string {
  const d = join(scratch, name);
  cpSync(dir, d, { recursive: true });
  if (existsSync(join(d, 'firmware.zip'))) unzipFolder(readFileSync(join(d, 'firmware.zip')), join(d, 'firmware'));
  return d;
}

/** What must agree: code, output with the case folder as a placeholder (emulator timings are not printed without --profile). */
const verdict = (r: CliRun, dir: string): unknown => ({
  code: r.code, stderr: r.stderr.replaceAll(dir, '{dir}'), stdout: r.stdout.replaceAll(dir, '{dir}').replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T'), problems: checkRun(r),
});

for (const e of readEntries(CASES_DIR).filter((x) => NAMES.includes(x.name))) {
  test(`in-process and spawned gen agree on ${e.name}`, async () => {
    if (e.meta.kind !== 'cli') throw new Error('not a command-line case');
    const commands = [e.meta.args, ...e.meta.then];
    const a = copyOf(e.dir, `${e.name}-spawned`);
    const b = copyOf(e.dir, `${e.name}-in-process`);
    for (const c of commands) {
      const fill = (d: string) => c.map((x) => x.replaceAll('{dir}', d).replaceAll('{out}', join(d, 'out')));
      const spawned = await runGen(fill(a), a, 60_000);
      const inProcess = await server.run(fill(b), b, 60_000);
      assert.equal(verdict(inProcess, b), verdict(spawned, a), `${c.join(' ')}`);
      assert.is(existsSync(join(b, 'out')), existsSync(join(a, 'out')), 'output folder written in one and not the other');
      if (spawned.code !== 0) break;
    }
  });
}

test('the whole corpus list is there', () => {
  const have = readEntries(CASES_DIR).map((x) => x.name);
  assert.equal(NAMES.filter((n) => !have.includes(n)), []);
});

test('version and usage through both', async () => {
  for (const args of [['--version'], [], ['nope']]) {
    const spawned = await runGen(args, scratch, 30_000);
    const inProcess = await server.run(args, scratch, 30_000);
    assert.equal(verdict(inProcess, scratch), verdict(spawned, scratch), args.join(' '));
  }
});

test('a run past its bound is tried again, cleaned, with three times the time; only twice past it is a hang', async () => {
  const done = (ms: number): CliRun => ({ code: 0, stdout: '', stderr: '', ms, timedOut: false });
  const late = (ms: number): CliRun => ({ code: null, stdout: '', stderr: '', ms, timedOut: true });
  const calls: string[] = [];
  const fake = (name: string, result: (ms: number) => CliRun) => async (args: string[], _cwd: string, ms: number): Promise<CliRun> => {
    calls.push(`${name} ${args[0]} ${ms}`);
    return result(ms);
  };
  const clean = (): void => void calls.push('clean');
  let r = await runConfirmingHangs(fake('first', done), fake('again', done), ['run'], '.', 100, clean);
  assert.equal([r.timedOut, calls], [false, ['first run 100']]);
  calls.length = 0;
  r = await runConfirmingHangs(fake('first', late), fake('again', done), ['run'], '.', 100, clean);
  assert.equal([r.timedOut, r.code, calls], [false, 0, ['first run 100', 'clean', 'again run 300']]);
  calls.length = 0;
  r = await runConfirmingHangs(fake('first', late), fake('again', late), ['firmware'], '.', 100, clean);
  assert.equal([checkRun(r), calls], [['no exit within 300 ms'], ['first firmware 100', 'clean', 'again firmware 300']]);
});

test('a command past its bound is a hang, and the next command gets a fresh worker', async () => {
  const d = copyOf(join(CASES_DIR, 'run-emoji-graph-name-printable'), 'hang');
  const r = await server.run(['firmware', '--platform', 'siracusa', join(d, 'model.onnx'), '-o', join(d, 'out')], d, 1);
  assert.ok(r.timedOut);
  assert.equal(checkRun(r), [`no exit within ${r.ms} ms`]);
  const again = await server.run(['--version'], d, 30_000);
  assert.is(again.code, 0);
});

test.after(() => {
  server.close();
  rmSync(scratch, { recursive: true, force: true });
});
test.run();
