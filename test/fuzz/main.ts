/**
 * `npm run fuzz [-- --seed N --count N --graphs N --mutations N --seconds N --jobs N --platforms a,b --all-configs --steps N --only diff|mutate
 *   --scale X --host-share P --no-record --corpus DIR --timeout MS --verbose --spawn-every N --spawn-all]`:
 * the random-graph differential tester and the mutation fuzzer with a large budget. Prints one line per finding, a
 * summary table, the rates (graphs/min, mutations/min), and ends with `N passed, N failed` (runs that passed / failed).
 * The mutations' commands run in long-lived in-process workers (cli-pool.ts) but one case in --spawn-every (default
 * 50), which runs bin/gen.js spawned; --spawn-all spawns every command (the old way, to compare).
 * --help prints this usage; an unknown flag or a number that is not one is a one-line error (exit 2), before any run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { configsFor } from './configs.js';
import { runDifferential } from './diff.js';
import { runMutations } from './mutate.js';
import { CaseRunner } from './pool.js';
import { summaryTable } from './summary.js';

const USAGE = 'usage: npm run fuzz -- [--seed N --count N --graphs N --mutations N --seconds N --jobs N --platforms a,b ' +
  '--all-configs --steps N --only diff|mutate --scale X --host-share P --no-record --corpus DIR --timeout MS --verbose ' +
  '--spawn-every N --spawn-all]';
const VALUED = ['seed', 'count', 'graphs', 'mutations', 'seconds', 'jobs', 'platforms', 'steps', 'only', 'scale', 'host-share', 'corpus', 'timeout', 'spawn-every'];
const FLAGS = ['all-configs', 'no-record', 'verbose', 'spawn-all', 'help'];

function usageError(why: string): never {
  console.error(`error: ${why} (${USAGE})`);
  process.exit(2);
}
// Checked before any run: an unknown word (a typo, or a flag this script does not have) would else start the default
// run of ten minutes.
for (let i = 2; i < process.argv.length; i++) {
  const w = process.argv[i];
  const name = w.startsWith('--') ? w.slice(2) : '';
  if (VALUED.includes(name) && i + 1 < process.argv.length) i++;
  else if (!FLAGS.includes(name)) usageError(`unknown argument ${JSON.stringify(w).slice(0, 60)}`);
}
if (process.argv.includes('--help')) {
  console.log(USAGE);
  process.exit(0);
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string): boolean => process.argv.includes(`--${name}`);
/** A number option: `fallback` when absent, else a finite number of at least `min`. */
function num(name: string, fallback: number, min = 0): number {
  const v = arg(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min) usageError(`--${name} ${JSON.stringify(v).slice(0, 40)}: a number of at least ${min}`);
  return n;
}

const seed = num('seed', 1);
const count = num('count', 1_000_000);
// Per-fuzzer case budgets (default --count): the random graphs stop at --graphs, then the mutations take the time left.
const graphs = num('graphs', count);
const mutations = num('mutations', count);
const seconds = num('seconds', 600, 1);
const jobs = num('jobs', availableParallelism(), 1);
const timeout = num('timeout', 90_000, 1);
const hostShare = num('host-share', 0.25);
const maxSteps = num('steps', 6, 1);
const scale = num('scale', 1);
const spawnEvery = num('spawn-every', 50, 1);
const platforms = arg('platforms')?.split(',');
const only = arg('only');
if (only !== undefined && only !== 'diff' && only !== 'mutate') usageError(`--only ${JSON.stringify(only).slice(0, 40)}: diff or mutate`);
const record = !flag('no-record');
// Findings go to corpus/open unless --corpus names another folder.
const corpusDir = arg('corpus');
const work = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-'));
// Lanes run cases at once (one worker thread or child process each): one per core by default.
const runners = Array.from({ length: jobs }, () => new CaseRunner(timeout));
const log = (l: string): void => console.log(l);
const t0 = Date.now();

const left = (): number => Math.max(1, seconds - (Date.now() - t0) / 1000);
const diffShare = only === 'mutate' ? 0 : only === 'diff' ? 1 : 0.6;
const diff = diffShare > 0
  ? await runDifferential({
    seed, count: graphs, seconds: seconds * diffShare, configs: configsFor(platforms), allConfigs: flag('all-configs'), hostShare,
    work, runner: runners, record, corpusDir, log, verbose: flag('verbose'), maxSteps, scale,
  })
  : { runs: [], findings: [] };
const tDiff = (Date.now() - t0) / 1000;
const mut = diffShare < 1
  ? await runMutations({
    seed, count: mutations, seconds: left(), platforms: [...new Set(configsFor(platforms).map((c) => c.platform))], work, jobs, record, corpusDir, log,
    spawnAll: flag('spawn-all'), spawnEvery, timeoutMs: timeout,
  })
  : { runs: [], findings: [] };
await Promise.all(runners.map((r) => r.close()));
rmSync(work, { recursive: true, force: true });

const tMut = (Date.now() - t0) / 1000 - tDiff;
console.log(summaryTable(diff, mut));
const perMin = (n: number, s: number): string => (s > 0 ? (n / (s / 60)).toFixed(1) : '-');
const graphCount = new Set(diff.runs.map((r) => r.caseSeed)).size;
console.log(`\nseed ${seed}, ${jobs} jobs: ${graphCount} graphs in ${tDiff.toFixed(0)} s (${perMin(graphCount, tDiff)}/min), ` +
  `${mut.runs.length} mutations in ${tMut.toFixed(0)} s (${perMin(mut.runs.length, tMut)}/min)`);
const failed = diff.runs.filter((r) => !['exact', 'rejected'].includes(r.outcome.verdict)).length + mut.runs.filter((r) => r.problems.length > 0).length;
const passed = diff.runs.length + mut.runs.length - failed;
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
