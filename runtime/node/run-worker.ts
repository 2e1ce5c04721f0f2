/**
 * The emulator run of run-guarded.ts, in a worker thread: the main thread keeps a wall-clock bound on it and ends the
 * thread when a firmware loops without ever calling the emulator (where the cycle watchdog cannot see it).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { GenError } from '../../generator/errors.js';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { runFirmware, type RunResult } from './run.js';

export interface RunRequest {
  dir: string;
  inputs: NDArray[];
  cores?: number;
  maxCycles?: number;
}

export type RunReply =
  | { stage: string }
  | { result: RunResult }
  | { error: { genError: boolean; kind?: GenError['kind']; reason: string; site?: GenError['site']; message: string } };

const port = parentPort!;
const req = workerData as RunRequest;
runFirmware(req.dir, req.inputs, {
  cores: req.cores,
  maxCycles: req.maxCycles,
  onStage: (stage) => port.postMessage({ stage } satisfies RunReply),
}).then(
  (result) => port.postMessage({ result } satisfies RunReply),
  (e: unknown) => {
    const g = e instanceof GenError;
    const message = e instanceof Error ? e.message : String(e);
    port.postMessage({
      error: g ? { genError: true, kind: e.kind, reason: e.reason, site: e.site, message } : { genError: false, reason: message, message },
    } satisfies RunReply);
  },
);
