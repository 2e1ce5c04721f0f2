import { rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { CaseJob } from './case-run.js';
import type { Outcome } from './verdict.js';

/**
 * One worker thread that runs case jobs with a time bound each: a job past its bound is terminated (which stops
 * even a synchronous loop) and tried once more on a fresh worker with three times the time (load on a shared machine
 * can stretch a job past the bound); past that too it is a hang. The next job gets a fresh worker.
 */
export class CaseRunner {
  private worker: Worker | undefined;
  private nextId = 0;

  constructor(private readonly timeoutMs: number) {}

  private theWorker(): Worker {
    if (!this.worker) {
      this.worker = new Worker(new URL('./case-worker.js', import.meta.url));
      this.worker.unref();
    }
    return this.worker;
  }

  async run(job: CaseJob): Promise<Outcome> {
    const o = await this.runOnce(job, this.timeoutMs);
    return o.verdict === 'hang' ? this.runOnce(job, 3 * this.timeoutMs) : o;
  }

  private runOnce(job: CaseJob, timeoutMs: number): Promise<Outcome> {
    const w = this.theWorker();
    const id = this.nextId++;
    const t0 = Date.now();
    return new Promise<Outcome>((resolve) => {
      const settle = (o: Outcome): void => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        resolve(o);
      };
      const onMessage = (m: { id: number; outcome: Outcome }): void => {
        if (m.id === id) settle(m.outcome);
      };
      const onError = (e: Error): void => {
        this.worker = undefined;
        settle({ verdict: 'crash', stage: 'worker', message: `worker died: ${e.message.split('\n')[0]}`, ms: Date.now() - t0 });
      };
      const timer = setTimeout(() => {
        void w.terminate();
        this.worker = undefined;
        rmSync(job.out, { recursive: true, force: true });
        settle({ verdict: 'hang', stage: 'time', message: `no result within ${timeoutMs} ms`, ms: Date.now() - t0 });
      }, timeoutMs);
      w.on('message', onMessage);
      w.on('error', onError);
      w.ref();
      w.postMessage({ id, job });
    }).finally(() => this.worker?.unref());
  }

  async close(): Promise<void> {
    await this.worker?.terminate();
    this.worker = undefined;
  }
}
