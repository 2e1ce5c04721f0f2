import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../helpers/paths.js';
import { HEAP_MB, type CliRun } from './cli-check.js';
import type { ServerJob, ServerReply } from './cli-server.js';

/**
 * The parent side of cli-server.ts: runs `gen` commands in one long-lived child with a time bound each. A command
 * past its bound is a hang (the child is killed, which stops even a synchronous loop, and the next command gets a
 * fresh one); a child that dies during a command is a crash. The child is replaced every `recycle` commands, so
 * that no state a command leaves behind (heap, caches) builds up over a long run.
 */
export class CliServer {
  private child: ChildProcess | undefined;
  private nextId = 0;
  private served = 0;

  constructor(private readonly recycle = 100) {}

  private theChild(): ChildProcess {
    if (this.child && this.served >= this.recycle) this.stop();
    if (!this.child) {
      // The same heap cap and environment as a spawned gen (cli-check.ts).
      this.child = fork(new URL('./cli-server.js', import.meta.url), [], {
        execArgv: [`--max-old-space-size=${HEAP_MB}`],
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
        stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      });
      this.served = 0;
    }
    return this.child;
  }

  private stop(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  /** As runGen (cli-check.ts): `gen ...args` in `cwd`, bounded by `timeoutMs`. */
  run(args: string[], cwd: string, timeoutMs: number): Promise<CliRun> {
    const child = this.theChild();
    this.served++;
    const id = this.nextId++;
    const t0 = Date.now();
    return new Promise<CliRun>((resolve) => {
      const settle = (r: Omit<CliRun, 'ms'>): void => {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve({ ...r, ms: Date.now() - t0 });
      };
      const onMessage = (m: ServerReply): void => {
        if (m.id !== id) return;
        if (m.fatal) this.child = undefined; // it ends itself after an uncaught exception
        settle({ code: m.code, stdout: m.stdout, stderr: m.stderr, timedOut: false });
      };
      const onExit = (code: number | null, signal: string | null): void => {
        this.child = undefined;
        settle({ code, stdout: '', stderr: '', timedOut: false, crashed: `the fuzz worker running gen died (exit code ${code}, signal ${signal})` });
      };
      const timer = setTimeout(() => {
        this.stop();
        settle({ code: null, stdout: '', stderr: '', timedOut: true });
      }, timeoutMs);
      child.on('message', onMessage);
      child.on('exit', onExit);
      const job: ServerJob = { id, args, cwd, script: join(repoRoot, 'bin', 'gen.js') };
      child.send(job);
    });
  }

  close(): void {
    this.stop();
  }
}
