/**
 * compileAs off the main thread (asc-worker.ts), so that the event loop stays free during a build and the CLI's
 * spinner keeps turning. The worker starts on the first build and is reused; it never keeps the process alive.
 */
import { Worker } from 'node:worker_threads';
import { GenError } from '../../generator/errors.js';
import type { AscReply, AscRequest } from './asc-worker.js';

let worker: Worker | undefined;
let nextId = 0;
const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

function failAll(e: Error): void {
  for (const p of pending.values()) p.reject(e);
  pending.clear();
  worker = undefined;
}

function theWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(new URL('./asc-worker.js', import.meta.url));
  w.on('message', (r: AscReply) => {
    const p = pending.get(r.id);
    if (!p) return;
    pending.delete(r.id);
    if (pending.size === 0) w.unref(); // idle: let the process exit
    if (r.error !== undefined) p.reject(new GenError('run', r.error));
    else p.resolve();
  });
  w.on('error', (e) => failAll(new GenError('run', `the asc worker thread failed: ${e.message}`)));
  w.on('exit', (code) => failAll(new GenError('run', `the asc worker thread exited with code ${code}`)));
  worker = w;
  return w;
}

/** As compileAs (asc.ts), in the worker thread. */
export function compileAsInWorker(argv: string[], what: string): Promise<void> {
  const w = theWorker();
  const id = nextId++;
  return new Promise<void>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    w.ref(); // a build in flight keeps the process alive until it answers
    const req: AscRequest = { id, argv, what };
    w.postMessage(req);
  });
}
