import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { REPO } from './deeploy.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A refused command: exit 2 and one line on stderr, `error: ` and the reason matching `pattern`. */
export function assertOneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  assert.is(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, `one line, got: ${r.stderr}`);
  assert.match(lines[0], /^error: /);
  assert.match(lines[0], pattern);
}

/** Runs the installed `gen` command as a user would. */
export function gen(...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: REPO });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
