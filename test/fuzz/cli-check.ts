import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

/*
 * The command line as a user runs it: bin/gen.js in a child process with a time bound, and the checks every run
 * must pass whatever its input (README "Exit codes"; DESIGN.md: one clear line, atomic output, sanitised names).
 */

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
  /** The process running the command died without an exit of its own (cli-pool.ts: the in-process worker). */
  crashed?: string;
}

/** A way to run `gen ...args` in `cwd` within `timeoutMs` (runGen, or the in-process worker's run). */
export type GenRunner = (args: string[], cwd: string, timeoutMs: number) => Promise<CliRun>;

/**
 * `gen ...args` by `first`; a run past the bound once more by `again` (a fresh process) with three times the time,
 * after `clean` has removed what the killed run left, since load on a shared machine can stretch a run past the bound
 * (a firmware build at a load average of 12 took minutes). Only a run that times out twice is a hang.
 */
export async function runConfirmingHangs(first: GenRunner, again: GenRunner, args: string[], cwd: string, timeoutMs: number, clean: () => void): Promise<CliRun> {
  const r = await first(args, cwd, timeoutMs);
  if (!r.timedOut) return r;
  clean();
  return again(args, cwd, 3 * timeoutMs);
}

export const HEAP_MB = 1024;

export function runGen(args: string[], cwd: string, timeoutMs: number): Promise<CliRun> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    // A heap cap: the machine is shared, and a model that drives generation past it is a finding anyway.
    const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, join(repoRoot, 'bin', 'gen.js'), ...args], {
      cwd, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Bytes kept and decoded once as UTF-8 at the end: a character split across chunks stays whole, and a printable
    // non-ASCII character (an emoji in a name) is not mistaken for C1 control bytes.
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => { if (outBytes < 1e6) { out.push(d); outBytes += d.length; } });
    child.stderr.on('data', (d: Buffer) => { if (errBytes < 1e6) { err.push(d); errBytes += d.length; } });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - t0, timedOut });
    });
  });
}

// Raw control characters a terminal would act on (tab, newline and carriage return aside).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Problems of one run: exit code, stderr shape, stack traces, raw control characters, time. */
export function checkRun(r: CliRun): string[] {
  const p: string[] = [];
  if (r.timedOut) return [`no exit within ${r.ms} ms`];
  if (r.crashed !== undefined) return [`crash: ${r.crashed}`];
  if (r.code === null || ![0, 1, 2].includes(r.code)) p.push(`exit code ${r.code}`);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('note: '));
  if (r.code === 2 && lines.length !== 1) p.push(`stderr has ${lines.length} lines (not one)`);
  if (/internal error/i.test(r.stderr)) p.push('internal error');
  if (/^\s+at .+:\d+:\d+\)?$/m.test(r.stderr) || /^\s+at .+:\d+:\d+\)?$/m.test(r.stdout)) p.push('stack trace printed');
  if (CONTROL.test(r.stderr)) p.push('raw control character on stderr');
  if (CONTROL.test(r.stdout)) p.push('raw control character on stdout');
  return p;
}

/** Every file under `root` (except below `skip`) with its size and modification time. */
export function snapshot(root: string, skip: string[] = []): Map<string, string> {
  const m = new Map<string, string>();
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (skip.some((s) => p === s || p.startsWith(s + '/'))) continue;
      if (e.isDirectory()) walk(p);
      else {
        const s = statSync(p);
        m.set(relative(root, p), `${s.size}:${s.mtimeMs}`);
      }
    }
  };
  walk(root);
  return m;
}

export function touchedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of after) if (before.get(k) !== v) out.push(k);
  for (const k of before.keys()) if (!after.has(k)) out.push(`${k} (removed)`);
  return out;
}
