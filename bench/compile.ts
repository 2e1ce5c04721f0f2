/**
 * `npm run bench:compile`: how long `gen firmware` takes (issue 15). For every Models folder and the Attention kernel
 * of ../shared/deeploy-tests and the MLPerf-Tiny-class models test/helpers/tiny-models.ts builds, on Siracusa (tiled, L1 64000, double buffering) and generic: each pipeline stage timed
 * in process (load, infer, lower, select, tile, plan, emit, closure check, write; from the pipeline's own stage marks), min and
 * median of 5 runs after a warm-up, and the whole CLI as a user runs it (a new Node process each time, module
 * loading included). One JSON line per figure {name, figure, unit, reference}, then a table.
 *
 * Reading the figures: `write` is mostly the file system creating the output's 40-50 files and folders, not the
 * generator (on an ext4 disk shared with other jobs, 0.03 to 0.8 ms per file created depending on their I/O: 50
 * small files took 1.5 ms at one time and 37 ms at another on the same machine, 0.5 ms on tmpfs). On a shared
 * machine, compare two trees by alternating their runs rather than by two bench runs apart in time.
 *
 * With FIRMGEN_DEEPLOY set (bench/peer-deeploy.ts), the peer compiler's generation step is timed the same way on
 * each Models folder of ../shared/deeploy-tests at the same settings (Siracusa, tiled, L1 64000, double buffering),
 * and the ratio peer wall / CLI wall is printed; without it the bench says the peer is not available.
 *
 * Options: --runs N (default 5), --only <regex on the model name>.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware, type FirmwareOptions } from '../generator/pipeline.js';
import { integerFolders, REPO } from '../test/helpers/deeploy.js';
import { TINY_MODEL_NAMES, writeTinyModel } from '../test/helpers/tiny-models.js';
import { deeployPeer } from './peer-deeploy.js';

const arg = (flag: string): string | undefined => {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('--runs') ?? 5);
const only = arg('--only') ? new RegExp(arg('--only')!) : undefined;
const STAGES = ['load', 'infer', 'lower', 'select', 'tile', 'plan', 'emit', 'closure check', 'write'];
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-compile-'));

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const min = (xs: number[]): number => Math.min(...xs);

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number(figure.toPrecision(4)), unit, reference }));
}

/** One in-process generation: ms per stage (a stage repeated, as the L3 rounds repeat select..plan, adds up). */
function timed(opts: FirmwareOptions): Map<string, number> {
  const ms = new Map<string, number>();
  let current: string | undefined;
  let t = performance.now();
  const mark = (next?: string): void => {
    const now = performance.now();
    if (current) ms.set(current, (ms.get(current) ?? 0) + now - t);
    current = next;
    t = now;
  };
  generateFirmware({ ...opts, onStage: (s) => mark(s) });
  mark();
  ms.set('total', [...ms.values()].reduce((a, b) => a + b, 0));
  return ms;
}

/** A model to time; dir: its deeploy-tests folder (the peer reads the folder), absent for the models the bench builds. */
const folders: { name: string; model: string; dir?: string }[] = [
  ...integerFolders().filter((f) => f.name.startsWith('Models/') || f.name === 'Kernels/Integer/Attention'),
  ...TINY_MODEL_NAMES.filter((name) => !only || only.test(name)).map((name) => ({ name: `Models/${name}`, model: writeTinyModel(name, join(work, 'models')) })),
];
const cases = folders
  .flatMap((f) => [
    { name: `${f.name.replace(/^(Models|Kernels\/Integer)\//, '')}.siracusa`, args: ['--platform', 'siracusa', '--l1', '64000'], opts: { platform: 'siracusa', l1: 64000 }, f },
    { name: `${f.name.replace(/^(Models|Kernels\/Integer)\//, '')}.generic`, args: ['--platform', 'generic'], opts: { platform: 'generic' }, f },
  ])
  .filter((c) => !only || only.test(c.name));

const peer = deeployPeer();
if (typeof peer === 'string') console.log(peer);
/** The peer runs the folders it ships (Models/ of deeploy-tests), on Siracusa only. */
const peerFolder = (c: (typeof cases)[number]): string | undefined =>
  c.opts.platform === 'siracusa' && c.f.name.startsWith('Models/') ? c.f.dir : undefined;

const rows: string[][] = [];
let i = 0;
for (const c of cases) {
  const out = (): string => join(work, String(i++));
  timed({ model: c.f.model, out: out(), ...c.opts }); // warm-up: modules loaded, caches filled
  const runs = Array.from({ length: RUNS }, () => timed({ model: c.f.model, out: out(), ...c.opts }));
  for (const s of [...STAGES, 'total']) {
    const xs = runs.map((r) => r.get(s) ?? 0);
    emit(`${c.name}.${s}`, median(xs), 'ms', `in process, median of ${RUNS} (min ${min(xs).toFixed(1)})`);
  }
  const cli = Array.from({ length: RUNS }, () => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(REPO, 'bin', 'gen.js'), 'firmware', c.f.model, ...c.args, '-o', out()], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${c.name}: ${r.stderr}`);
    return performance.now() - t0;
  });
  emit(`${c.name}.cli_wall`, median(cli), 'ms', `new Node process per run, median of ${RUNS} (min ${min(cli).toFixed(0)})`);
  let ratio = '';
  const dir = peerFolder(c);
  if (dir !== undefined && typeof peer !== 'string') {
    const walls = Array.from({ length: RUNS }, () => peer.wallMs(dir, out()));
    emit(`${c.name}.peer_wall`, median(walls), 'ms', `${peer.describe}, new process per run, median of ${RUNS} (min ${min(walls).toFixed(0)})`);
    emit(`${c.name}.peer_ratio`, median(walls) / median(cli), 'x', 'peer wall / gen firmware CLI wall, medians');
    ratio = (median(walls) / median(cli)).toFixed(1);
  }
  rows.push([c.name, ...[...STAGES, 'total'].map((s) => median(runs.map((r) => r.get(s) ?? 0)).toFixed(1)), median(cli).toFixed(0), ratio]);
}
rmSync(work, { recursive: true, force: true });

const head = ['model', ...STAGES, 'total', 'CLI wall', 'peer/CLI'];
const width = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c].length)));
const line = (r: string[]): string => r.map((v, c) => (c === 0 ? v.padEnd(width[c]) : v.padStart(width[c]))).join('  ');
console.log(['', `gen firmware, ms (in-process stages: median of ${RUNS} after a warm-up; CLI: whole process)`, line(head), ...rows.map(line)].join('\n'));
