import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './deeploy.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the installed `gen` command as a user would. */
export function gen(...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), ...args], { encoding: 'utf8', cwd: REPO });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
