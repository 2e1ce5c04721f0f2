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
    if (job.hostC) {
      let host;
      try {
        host = runHostC(job.out, job.inputs);
        lap('host');
      } catch (e) {
        return done({ verdict: 'host-error', stage: 'host', message: firstLine(e) });
      }
      const hc = compareOutputs(manifestOutputs, host, job.expected);
      if (hc.errors > 0) return done({ verdict: 'mismatch', stage: 'host', message: hc.details.join('; '), errors: hc.errors, total: hc.total });
      // An accelerator's C path on its functional C model (Gemmini's commands, Tangram's engine programs), where the
      // firmware's Makefile has one.
      if (readFileSync(join(job.out, 'c', 'Makefile'), 'utf8').includes('\nhost-model:')) {
        let model;
        try {
          model = runHostModelC(job.out, job.inputs);
          lap('host-model');
        } catch (e) {
          return done({ verdict: 'host-error', stage: 'host-model', message: firstLine(e) });
        }
        const mc = compareOutputs(manifestOutputs, model, job.expected);
        if (mc.errors > 0) return done({ verdict: 'mismatch', stage: 'host-model', message: mc.details.join('; '), errors: mc.errors, total: mc.total });
      }
    }
    return done({ verdict: 'exact', stage: job.hostC ? 'host' : 'emulate', message: '', total: emu.total });
  } finally {
    rmSync(job.out, { recursive: true, force: true });
  }
}
