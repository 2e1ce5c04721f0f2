/**
 * The worker thread that runs asc for asc-build.ts: a firmware build takes seconds of synchronous compiler work,
 * which on the main thread would freeze the CLI's spinner (generator/cli/progress.ts). One worker serves every build
 * of a process, so the compiler loads once, as it did in-process.
 */
import { parentPort } from 'node:worker_threads';
import { compileAs } from './asc.js';

export interface AscRequest {
  id: number;
  argv: string[];
  what: string;
}

export interface AscReply {
  id: number;
  /** The compiler's error (GenError message), absent on success. */
  error?: string;
}

if (!parentPort) throw new Error('asc-worker.ts runs as a worker thread only');
const port = parentPort;
// Builds run one at a time in this thread, in request order: asc keeps global state between runs.
let queue: Promise<void> = Promise.resolve();
port.on('message', (req: AscRequest) => {
  queue = queue.then(async () => {
    let reply: AscReply = { id: req.id };
    try {
      await compileAs(req.argv, req.what);
    } catch (e) {
      reply = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    port.postMessage(reply);
  });
});
