import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { Rng } from '../helpers/random.js';
import { caseSeedOf, inLanes } from './lanes.js';
import { cliFlags, concreteConfig, type Config } from './configs.js';
import { OPEN_DIR, slug, writeGraphEntry, type GraphMeta } from './corpus.js';
import { buildRecipe, randomRecipe } from './graph-gen.js';
import type { CaseRunner } from './pool.js';
import { jobOf, prepare, type Prepared } from './prepare.js';
import type { Recipe } from './recipe.js';
import { shrinkRecipe } from './shrink.js';
import { PASSES, signature, type Outcome } from './verdict.js';

/*
 * The random-graph differential tester: each seeded case runs on a few configurations (one per platform, drawn
 * from the sweep), emulated and on a sample also as host-built C, against the reference interpreter. A failure
 * is shrunk once per signature and written to the corpus (open/).
 */

export interface DiffOptions {
  seed: number;
  count: number;
  /** Stop starting cases after this many seconds. */
  seconds: number;
  configs: Config[];
  /** Every case on every configuration instead of one per platform. */
  allConfigs?: boolean;
  /** Share of runs that also build and compare the host C. */
  hostShare: number;
  work: string;
  /** One runner per concurrent lane (one worker thread each). */
  runner: CaseRunner | CaseRunner[];
  /** Write shrunk findings here (default corpus/open); undefined with `record: false`. */
  record: boolean;
  corpusDir?: string;
  maxSteps?: number;
  /** Stretches input sizes (bigger tensors tile into more pieces). */
  scale?: number;
  /** Step kinds the recipes draw from (default: every kind). */
  kinds?: readonly string[];
  shrinkAttempts?: number;
  /** Also log every clean rejection. */
  verbose?: boolean;
  log: (line: string) => void;
}

export interface RunRecord {
  caseSeed: number;
  config: string;
  outcome: Outcome;
}

export interface Finding {
  signature: string;
  config: string;
  count: number;
  /** Corpus folder of the shrunk repro (when recorded). */
  path?: string;
  example: Outcome;
  steps?: string;
}

export interface DiffResult {
  runs: RunRecord[];
  findings: Finding[];
}

type Seeded = Recipe & { seed: number };

function pickConfigs(rng: Rng, all: Config[], every: boolean): Config[] {
  if (every) return all.map((c) => concreteConfig(c, rng));
  const byPlatform = new Map<string, Config[]>();
  for (const c of all) byPlatform.set(c.platform, [...(byPlatform.get(c.platform) ?? []), c]);
  return [...byPlatform.values()].map((cs) => concreteConfig(rng.pick(cs), rng));
}

export async function runDifferential(opts: DiffOptions): Promise<DiffResult> {
  const runners = Array.isArray(opts.runner) ? opts.runner : [opts.runner];
  const t0 = Date.now();
  const runs: RunRecord[] = [];
  const findings = new Map<string, Finding>();
  const attempt = async (recipe: Seeded, config: Config, hostC: boolean, tag: string, lane: number): Promise<Outcome | undefined> => {
    const dir = join(opts.work, tag);
    try {
      const p = prepareRecipe(recipe, dir);
      return p && await runners[lane].run(jobOf(p, config, join(dir, 'out'), hostC));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // The model, its inputs and the reference's outputs (the oracle) of a recipe; undefined when the fuzzer's own
  // generator fails (logged).
  const prepareRecipe = (recipe: Seeded, dir: string): Prepared | undefined => {
    try {
      const built = buildRecipe(recipe);
      return prepare(dir, built.builder.bytes(), built.inputs);
    } catch (e) {
      opts.log(`  generator of the fuzzer failed on seed ${recipe.seed}: ${(e as Error).message}`);
      return undefined;
    }
  };

  const stop = (): boolean => (Date.now() - t0) / 1000 >= opts.seconds;
  await inLanes(runners.length, opts.count, stop, async (i, lane) => {
    const caseSeed = (opts.seed * 100003 + i) >>> 0;
    const rng = new Rng(caseSeedOf(opts.seed, 0x5eed, i));
    const recipe = randomRecipe(caseSeed, opts.maxSteps ?? 6, opts.scale ?? 1, opts.kinds);
    // Built, written and run by the reference once for all its configurations: each configuration still generates,
    // builds and runs its own firmware (its own output folder) and is compared with these outputs.
    const caseDir = join(opts.work, `c${caseSeed}`);
    const prepared = prepareRecipe(recipe, caseDir);
    try {
      for (const config of pickConfigs(rng, opts.configs, opts.allConfigs ?? false)) {
        const hostC = rng.next() < opts.hostShare;
        if (!prepared) continue;
        const outcome = await runners[lane].run(jobOf(prepared, config, join(caseDir, `out-${config.id}`), hostC));
        runs.push({ caseSeed, config: config.family ?? config.id, outcome });
        if (outcome.verdict === 'rejected' && opts.verbose) opts.log(`  rejected seed ${caseSeed} ${config.id}: ${outcome.message}`);
        if (PASSES.has(outcome.verdict)) continue;
        const sig = signature(outcome);
        const key = `${config.platform} ${sig}`;
        const known = findings.get(key);
        opts.log(`  FAIL seed ${caseSeed} ${config.id}: ${outcome.verdict} ${outcome.message.slice(0, 160)}`);
        if (known) {
          known.count++;
          continue;
        }
        const finding: Finding = { signature: sig, config: config.id, count: 1, example: outcome };
        findings.set(key, finding);
        if (!opts.record) continue;
        const stillFails = async (r: Seeded): Promise<boolean> => {
          const o = await attempt(r, config, hostC, `s${caseSeed}-${config.id}`, lane);
          return o !== undefined && signature(o) === sig;
        };
        const { recipe: small } = await shrinkRecipe(recipe, stillFails, opts.shrinkAttempts ?? 30);
        const built = buildRecipe(small);
        const dir = join(opts.corpusDir ?? OPEN_DIR, `${config.id}-${slug(sig.replace(/^[^@]*@/, outcome.verdict + '-'))}-${caseSeed}`);
        const check = await attempt(small, config, hostC, `v${caseSeed}`, lane);
        const meta: GraphMeta = {
          kind: 'graph', config, hostC, signature: sig, seed: caseSeed,
          found: {
            verdict: check?.verdict ?? outcome.verdict, stage: check?.stage ?? outcome.stage, errors: check?.errors, total: check?.total,
            message: (check?.message ?? outcome.message).replace(/\/\S*\/model\.onnx/g, 'model.onnx'), // no scratch paths in the corpus
          },
          note: `steps: ${small.steps.map((s) => s.op).join(' ')}; inputs ${small.inputs.map((x) => `${x.dtype}[${x.shape}]`).join(', ')}`,
          replay: `node bin/gen.js firmware ${cliFlags(config).join(' ')} ${'<case>'}/model.onnx --inputs <case>/inputs.npz -o out/fuzz-case && node bin/gen.js run out/fuzz-case --inputs <case>/inputs.npz --expect <case>/expected.npz${(check?.stage ?? outcome.stage) === 'host' ? ' --on host' : ''}`,
        };
        writeGraphEntry(dir, prepare(dir, built.builder.bytes(), built.inputs).expected, meta);
        finding.path = dir;
        finding.steps = meta.note;
        opts.log(`  recorded ${dir} (${meta.note})`);
      }
    } finally {
      rmSync(caseDir, { recursive: true, force: true });
    }
  });
  return { runs, findings: [...findings.values()] };
}
