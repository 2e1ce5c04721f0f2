/**
 * `node dist/test/fuzz/seed-corpus.js`: writes corpus/cases, the regression set npm test replays: one small graph
 * per step kind (its configuration rotating over the platforms) that is exact or cleanly rejected today, and the
 * command-line cases below. Run it again after adding a step kind; findings go to corpus/open instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCase } from './case-run.js';
import { cliFlags, configById } from './configs.js';
import { CASES_DIR, writeGraphEntry, writeMeta } from './corpus.js';
import { buildRecipe, randomRecipe, STEP_KINDS } from './graph-gen.js';
import { prepare } from './prepare.js';
import { signature } from './verdict.js';
import { Rng } from '../helpers/random.js';

const ROTATION = ['generic', 'siracusa-l1-8000', 'spinnaker2-pes-5', 'siracusa-npu', 'siracusa-cores-3', 'siracusa-untiled'];
const work = mkdtempSync(join(tmpdir(), 'firmgen-seed-corpus-'));

for (const [k, kind] of STEP_KINDS.entries()) {
  const config = configById(ROTATION[k % ROTATION.length])!;
  for (let seed = 1; seed < 40; seed++) {
    const base = randomRecipe(seed * 131 + k, 1);
    const draws = new Rng(seed * 7 + k);
    const recipe = { ...base, steps: [{ op: kind, draws: Array.from({ length: 64 }, () => draws.next()) }] };
    const built = buildRecipe(recipe);
    if (built.applied === 0) continue;
    const dir = join(CASES_DIR, `${kind}-${config.id}`);
    const p = prepare(dir, built.builder.bytes(), built.inputs);
    const o = await runCase({ model: p.model, sample: p.sample, inputs: p.inputs, expected: p.expected, out: join(work, 'out'), config, hostC: k % 3 === 0 });
    if (o.verdict !== 'exact') {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    writeGraphEntry(dir, p.expected, {
      kind: 'graph', config, hostC: k % 3 === 0, found: { verdict: o.verdict, stage: o.stage, message: o.message, total: o.total }, signature: signature(o),
      note: `one ${kind} step; inputs ${recipe.inputs.map((x) => `${x.dtype}[${x.shape}]`).join(', ')}`,
      replay: `node bin/gen.js firmware ${cliFlags(config).join(' ')} <case>/model.onnx --inputs <case>/inputs.npz -o out/fuzz-case && node bin/gen.js run out/fuzz-case --inputs <case>/inputs.npz --expect <case>/expected.npz`,
    });
    console.log(`${kind} on ${config.id}: seed ${seed}, ${o.total} values exact`);
    break;
  }
}

/** Command-line cases that must stay clean: bad inputs rejected in one line, hostile names sanitised. */
const CLI: { name: string; args: string[]; note: string }[] = [
  { name: 'cli-missing-model', args: ['firmware', '--platform', 'generic', '{dir}/no-such.onnx', '-o', '{out}'], note: 'a model file that does not exist' },
  { name: 'cli-bad-platform', args: ['firmware', '--platform', 'nope', '{dir}/model.onnx', '-o', '{out}'], note: 'an unknown platform' },
  { name: 'cli-l1-negative', args: ['firmware', '--platform', 'siracusa', '--l1', '-5', '{dir}/model.onnx', '-o', '{out}'], note: 'a negative L1 budget' },
  { name: 'cli-pes-on-generic', args: ['firmware', '--platform', 'generic', '--pes', '3', '{dir}/model.onnx', '-o', '{out}'], note: '--pes on a platform without PEs' },
  { name: 'cli-run-no-folder', args: ['run', '{dir}/nothing-here', '--inputs', '{dir}/inputs.npz'], note: 'run on a folder that does not exist' },
];
for (const c of CLI) {
  const dir = join(CASES_DIR, c.name);
  const built = buildRecipe(randomRecipe(5, 2));
  prepare(dir, built.builder.bytes(), built.inputs);
  writeMeta(dir, {
    kind: 'cli', args: c.args, then: [], found: { problems: [], code: 2, stderr: '' }, signature: 'clean', note: c.note,
    replay: `node bin/gen.js ${c.args.join(' ')}`,
  });
}
rmSync(work, { recursive: true, force: true });
