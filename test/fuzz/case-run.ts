import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runFirmware } from '../../runtime/node/run.js';
import { buildFirmware } from '../../runtime/node/asc-build.js';
import { join } from 'node:path';
import { runHostModelC } from '../helpers/host-model.js';
import type { Config } from './configs.js';
import { classifyGenerationError, type Outcome } from './verdict.js';

export interface CaseJob {
  model: string;
  sample: string;
  inputs: NDArray[];
  /** The reference interpreter's outputs, in graph output order. */
  expected: NDArray[];
  out: string;
  config: Config;
  /** Also build the C with the host compiler and compare it. */
  hostC: boolean;
}

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0].slice(0, 300);

/** Generates in process, emulates, compares exactly; optionally the host C too. Never throws. */
export async function runCase(job: CaseJob): Promise<Outcome> {
  const t0 = Date.now();
  // Wall time per stage (the fuzzer's profile): generate, build (asc; a cache hit is ~0), emulate, host (make + run).
  const stages: Record<string, number> = {};
  let mark = t0;
  const lap = (stage: string): void => {
    const now = Date.now();
    stages[stage] = now - mark;
    mark = now;
  };
  const done = (o: Omit<Outcome, 'ms'>): Outcome => ({ ...o, ms: Date.now() - t0, stages });
  let manifestOutputs: string[];
  try {
    const g = generateFirmware({ model: job.model, platform: job.config.platform, out: job.out, sampleInputs: job.sample, ...job.config.opts });
    manifestOutputs = g.manifest.outputs;
    lap('generate');
  } catch (e) {
    const c = classifyGenerationError(e);
    // Generation is atomic: a failure must leave no output folder behind.
    if (existsSync(job.out)) return done({ verdict: 'left-output', stage: 'generate', message: `output folder left after: ${c.message}` });
    return done({ ...c, stage: 'generate' });
  }
  try {
    let r;
    try {
      // Built first (runFirmware builds the same sources and finds them in the cache) only to time the two apart.
      await buildFirmware(join(job.out, 'as'));
      lap('build');
      r = await runFirmware(job.out, job.inputs);
      lap('emulate');
    } catch (e) {
      return done({ verdict: 'run-error', stage: 'emulate', message: firstLine(e) });
    }
    const emu = compareOutputs(manifestOutputs, r.outputs, job.expected);
    if (emu.errors > 0) return done({ verdict: 'mismatch', stage: 'emulate', message: emu.details.join('; '), errors: emu.errors, total: emu.total });
    // A C build (make + run) compared with the reference: undefined when exact, else the outcome.
    const checkC = (stage: string, run: () => NDArray[]): Outcome | undefined => {
      let outs;
      try {
        outs = run();
        lap(stage);
      } catch (e) {
        return done({ verdict: 'host-error', stage, message: firstLine(e) });
      }
      const c = compareOutputs(manifestOutputs, outs, job.expected);
      return c.errors > 0 ? done({ verdict: 'mismatch', stage, message: c.details.join('; '), errors: c.errors, total: c.total }) : undefined;
    };
    if (job.hostC) {
      const host = checkC('host', () => runHostC(job.out, job.inputs));
      if (host) return host;
      // An accelerator's C path on its functional C model (Gemmini's commands, Tangram's engine programs), where the
      // firmware's Makefile has one.
      if (readFileSync(join(job.out, 'c', 'Makefile'), 'utf8').includes('\nhost-model:')) {
        const model = checkC('host-model', () => runHostModelC(job.out, job.inputs));
        if (model) return model;
      }
    }
    return done({ verdict: 'exact', stage: job.hostC ? 'host' : 'emulate', message: '', total: emu.total });
  } finally {
    rmSync(job.out, { recursive: true, force: true });
  }
}
