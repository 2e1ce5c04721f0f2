/**
 * `npm run fuzz [-- --seed N --count N --graphs N --mutations N --seconds N --jobs N --platforms a,b --all-configs --steps N --only diff|mutate
 *   --scale X --host-share P --no-record --corpus DIR --timeout MS --verbose --spawn-every N --spawn-all]`:
 * the random-graph differential tester and the mutation fuzzer with a large budget. Prints one line per finding, a
 * summary table, the rates (graphs/min, mutations/min), and ends with `N passed, N failed` (runs that passed / failed).
 * The mutations' commands run in long-lived in-process workers (cli-pool.ts) but one case in --spawn-every (default
 * 50), which runs bin/gen.js spawned; --spawn-all spawns every command (the old way, to compare).
 * There is no --help: an unknown flag is ignored and the default run starts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { configsFor } from './configs.js';
import { runDifferential } from './diff.js';
import { runMutations } from './mutate.js';
import { CaseRunner } from './pool.js';
import { summaryTable } from './summary.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const flag = (name: string): boolean => process.argv.includes(`--${name}`);

const seed = Number(arg('seed') ?? 1);
const count = Number(arg('count') ?? 1_000_000);
// Per-fuzzer case budgets (default --count): the random graphs stop at --graphs, then the mutations take the time left.
const graphs = Number(arg('graphs') ?? count);
const mutations = Number(arg('mutations') ?? count);
const seconds = Number(arg('seconds') ?? 600);
const platforms = arg('platforms')?.split(',');
const only = arg('only');
const record = !flag('no-record');
// Findings go to corpus/open unless --corpus names another folder.
const corpusDir = arg('corpus');
const work = mkdtempSync(join(tmpdir(), 'firmgen-fuzz-'));
// Lanes run cases at once (one worker thread or child process each): one per core by default.
const jobs = Math.max(1, Number(arg('jobs') ?? availableParallelism()));
const runners = Array.from({ length: jobs }, () => new CaseRunner(Number(arg('timeout') ?? 90_000)));
const log = (l: string): void => console.log(l);
const t0 = Date.now();

const left = (): number => Math.max(1, seconds - (Date.now() - t0) / 1000);
const diffShare = only === 'mutate' ? 0 : only === 'diff' ? 1 : 0.6;
const diff = diffShare > 0
  ? await runDifferential({
    seed, count: graphs, seconds: seconds * diffShare, configs: configsFor(platforms), allConfigs: flag('all-configs'), hostShare: Number(arg('host-share') ?? 0.25),
    work, runner: runners, record, corpusDir, log, verbose: flag('verbose'), maxSteps: Number(arg('steps') ?? 6), scale: Number(arg('scale') ?? 1),
  })
  : { runs: [], findings: [] };
const tDiff = (Date.now() - t0) / 1000;
const mut = diffShare < 1
  ? await runMutations({
    seed, count: mutations, seconds: left(), platforms: [...new Set(configsFor(platforms).map((c) => c.platform))], work, jobs, record, corpusDir, log,
    spawnAll: flag('spawn-all'), spawnEvery: Number(arg('spawn-every') ?? 50),
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
