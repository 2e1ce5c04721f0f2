/**
 * A long-lived child process that runs `gen` commands in process for the mutation fuzzer (cli-pool.ts), one at a
 * time: the same entry bin/gen.js runs (generator/cli/gen.ts) with the same argv and working folder, stdout and
 * stderr captured, and the exit code the process would have had. A child process and not a worker thread: each
 * command runs in its case's folder (process.chdir, which worker threads lack) and under the same heap cap as a
 * spawned `gen`. It saves what a spawn pays per command: Node's start, loading the CLI and, for `gen run`, loading
 * asc and binaryen (seconds; node --cpu-prof).
 */
import { gen } from '../../generator/cli/gen.js';

export interface ServerJob {
  id: number;
  args: string[];
  cwd: string;
  /** The script path process.argv[1] holds in a spawned `gen` (bin/gen.js). */
  script: string;
}

export interface ServerReply {
  id: number;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The command left an uncaught exception: the child ends after this reply (a spawned gen would have died too). */
  fatal?: boolean;
}

/** What process.exit throws here: the command wanted the process to end with this code. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

const LIMIT = 1e6; // bytes kept per stream, as cli-check.ts keeps of a spawned gen
let out: Buffer[] = [];
let err: Buffer[] = [];
let current: number | undefined;

function capture(into: () => Buffer[]): (chunk: string | Uint8Array, ...rest: unknown[]) => boolean {
  return (chunk, ...rest) => {
    const b = into();
    if (b.reduce((n, x) => n + x.length, 0) < LIMIT) b.push(Buffer.from(typeof chunk === 'string' ? chunk : chunk));
    const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    if (cb) queueMicrotask(cb);
    return true;
  };
}
// Bytes kept and decoded once at the end (cli-check.ts does the same with a child's pipes).
process.stdout.write = capture(() => out) as typeof process.stdout.write;
process.stderr.write = capture(() => err) as typeof process.stderr.write;
const realExit = process.exit.bind(process);
process.exit = ((code?: number) => {
  throw new ExitCalled(code ?? 0);
}) as typeof process.exit;

const send = (r: ServerReply): void => {
  process.send!(r);
};

// An exception nothing caught would have ended a spawned gen with a stack trace and exit 1: report the same.
const fatal = (e: unknown): void => {
  if (e instanceof ExitCalled || current === undefined) {
    if (current !== undefined) finish(e instanceof ExitCalled ? e.code : 1);
    return;
  }
  err.push(Buffer.from(`${(e as Error)?.stack ?? String(e)}\n`));
  finish(1, true);
  setImmediate(() => realExit(1));
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

function finish(code: number | null, isFatal = false): void {
  if (current === undefined) return;
  const id = current;
  current = undefined;
  send({ id, code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), fatal: isFatal || undefined });
}

process.on('message', (job: ServerJob) => {
  void (async () => {
    out = [];
    err = [];
    current = job.id;
    process.exitCode = undefined;
    let code: number | null;
    try {
      process.chdir(job.cwd);
      const now = await gen([process.execPath, job.script, ...job.args]);
      code = now ?? (typeof process.exitCode === 'number' ? process.exitCode : 0);
    } catch (e) {
      if (!(e instanceof ExitCalled)) throw e; // gen catches every error; anything else is a crash (fatal above)
      code = e.code;
    }
    process.exitCode = undefined;
    finish(code);
  })();
});
