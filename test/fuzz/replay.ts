import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAccepted } from './accepted-check.js';
import { runCase } from './case-run.js';
import { checkRun, runGen } from './cli-check.js';
import { entryInputs, type Entry } from './corpus.js';
import { prepare } from './prepare.js';
import { PASSES } from './verdict.js';
import { unzipFolder } from './zip-folder.js';

/**
 * Replays one corpus entry in a scratch copy (the corpus is never written): a graph case must now be exact or
 * cleanly rejected; a command-line case must pass every check of cli-check.ts. Returns the problems, none = pass.
 */
export async function replayEntry(e: Entry, timeoutMs = 60_000): Promise<string[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'firmgen-replay-'));
  try {
    cpSync(e.dir, scratch, { recursive: true });
    if (existsSync(join(scratch, 'firmware.zip'))) unzipFolder(readFileSync(join(scratch, 'firmware.zip')), join(scratch, 'firmware'));
    if (e.meta.kind === 'graph') {
      const p = prepare(join(scratch, 'case'), new Uint8Array(readFileSync(join(scratch, 'model.onnx'))), entryInputs(scratch));
      const o = await runCase({ model: p.model, sample: p.sample, inputs: p.inputs, expected: p.expected, out: join(scratch, 'out'), config: e.meta.config, hostC: e.meta.hostC });
      return PASSES.has(o.verdict) ? [] : [`${o.verdict} at ${o.stage}: ${o.message.slice(0, 200)}`];
    }
    const fill = (a: string): string => a.replaceAll('{dir}', scratch).replaceAll('{out}', join(scratch, 'out'));
    const problems: string[] = [];
    const first = await runGen(e.meta.args.map(fill), scratch, timeoutMs);
    problems.push(...checkRun(first));
    if (e.meta.args[0] === 'firmware' && first.code !== 0 && existsSync(join(scratch, 'out'))) problems.push('output folder left after a failure');
    if (first.code === 0 && e.meta.checkAccepted) {
      problems.push(...checkAccepted(join(scratch, 'model.onnx'), entryInputs(scratch), join(scratch, 'out'), join(scratch, 'expected.npz'), e.meta.hostile));
    }
    if (first.code === 0) {
      for (const c of e.meta.then) {
        const r = await runGen(c.map(fill), scratch, timeoutMs);
        problems.push(...checkRun(r));
        if (r.code === 1) problems.push('outputs differ from the reference');
      }
    }
    return problems;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
