/**
 * Worker-thread entry of the differential tester: runs the jobs it is sent one at a time (case-run.ts), so that the
 * main thread can bound each job's time and terminate a worker stuck in a synchronous loop.
 */
import { parentPort } from 'node:worker_threads';
import { runCase, type CaseJob } from './case-run.js';

parentPort!.on('message', async (msg: { id: number; job: CaseJob }) => {
  const outcome = await runCase(msg.job);
  parentPort!.postMessage({ id: msg.id, outcome });
});
