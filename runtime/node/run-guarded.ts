/**
 * `gen run`'s emulator run under two bounds, so no firmware can hang the tool: the cycle watchdog inside the emulator
 * (`--max-cycles`: a fault naming the agent and layer) and a wall-clock bound on the emulation (`--timeout`), which
 * ends the worker thread running it (run-worker.ts). The asc build before it is not counted: a cold build of a large
 * model takes its own time and always ends.
 */
import { Worker } from 'node:worker_threads';
import { GenError } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import type { RunResult } from './run.js';
import type { RunReply, RunRequest } from './run-worker.js';

/** Defaults of `gen run`: far above any model firmgen runs (the largest runs take seconds and under 10^9 cycles). */
export const DEFAULT_MAX_CYCLES = 1e11;
export const DEFAULT_TIMEOUT_S = 600;

export interface GuardOptions {
  cores?: number;
  maxCycles?: number;
  /** Wall-clock seconds the emulation (after the build) may take. */
  timeoutS?: number;
  onStage?: (stage: string) => void;
}

export function runFirmwareGuarded(dir: string, inputs: NDArray[], o: GuardOptions = {}): Promise<RunResult> {
  const data: RunRequest = { dir, inputs, cores: o.cores, maxCycles: o.maxCycles ?? DEFAULT_MAX_CYCLES };
  const timeoutS = o.timeoutS ?? DEFAULT_TIMEOUT_S;
  const worker = new Worker(new URL('./run-worker.js', import.meta.url), { workerData: data });
  return new Promise<RunResult>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = (f: () => void): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      f();
    };
    worker.on('message', (m: RunReply) => {
      if ('stage' in m) {
        o.onStage?.(m.stage);
        if (m.stage === 'emulate' && timeoutS > 0) {
          timer = setTimeout(() => {
            settle(() => reject(new GenError('run', `the firmware ran longer than ${timeoutS} s of wall time without ` +
              'finishing (a loop that never ends?); stopped (raise the bound with --timeout)', { file: dir })));
            void worker.terminate();
          }, timeoutS * 1000);
        }
      } else if ('result' in m) {
        settle(() => resolve(m.result));
        void worker.terminate();
      } else {
        const e = m.error;
        settle(() => reject(e.genError ? new GenError(e.kind!, e.reason, e.site) : new Error(e.message)));
        void worker.terminate();
      }
    });
    worker.on('error', (e) => settle(() => reject(new GenError('run', `the emulator thread failed: ${e.message}`))));
    worker.on('exit', (code) => settle(() => reject(new GenError('run', `the emulator thread exited with code ${code}`))));
  });
}
