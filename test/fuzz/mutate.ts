import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { integerFolders } from '../helpers/deeploy.js';
import { Rng } from '../helpers/random.js';
import { zipFolder } from './zip-folder.js';
import { caseSeedOf, inLanes } from './lanes.js';
import { checkAccepted } from './accepted-check.js';
import { checkRun, runConfirmingHangs, runGen, snapshot, touchedFiles } from './cli-check.js';
import { CliServer } from './cli-pool.js';
import { OPEN_DIR, slug, writeMeta, type CliMeta } from './corpus.js';
import { buildRecipe, randomRecipe } from './graph-gen.js';
import { mutateFirmwareDir, mutateNpz } from './mutate-files.js';
import { mutateBytes, mutateNames, mutateStructure } from './mutate-model.js';
import type { CaseRunner } from './pool.js';

/*
 * The mutation fuzzer: damaged models, hostile names, bad .npz inputs and corrupted firmware folders through the
 * command line, time-bounded: in long-lived workers that run gen's own entry in process (cli-pool.ts; a spawn costs
 * seconds of start-up per command), and every `spawnEvery`-th case as a spawned bin/gen.js, the way a user runs it. Every run must pass checkRun; a failed `firmware` leaves no
 * output folder; nothing outside the output folder changes; an accepted model is run and must match the reference.
 */

export interface MutationOptions {
  seed: number;
  count: number;
  seconds: number;
  platforms: string[];
  work: string;
  runner?: CaseRunner;
  record: boolean;
  corpusDir?: string;
  timeoutMs?: number;
  /** Cases run at once (one in-process worker each; default 1). */
  jobs?: number;
  /** Run every case's commands as spawned bin/gen.js (no in-process workers). */
  spawnAll?: boolean;
  /** One case in every this many runs spawned instead of in process, every kind in turn (default 50). */
  spawnEvery?: number;
  log: (line: string) => void;
}

export interface MutationRun {
  kind: string;
  /** How its commands ran: a spawned bin/gen.js or a long-lived in-process worker. */
  via: 'spawned' | 'in-process';
  /** Wall ms of each command it ran, in order (`firmware`, `run`, ...): the fuzzer's own profile. */
  commandMs: [string, number][];
  what: string;
  problems: string[];
}

export interface MutationFinding {
  signature: string;
  count: number;
  path?: string;
}

export interface MutationResult {
  runs: MutationRun[];
  findings: MutationFinding[];
}

export const KINDS = ['bytes', 'structure', 'names', 'npz', 'firmware'] as const;

interface Source {
  name: string;
  bytes: Uint8Array;
  inputs: NDArray[];
}

/** Real models small enough to generate in a second, and random graphs. */
function sources(): Source[] {
  const out: Source[] = [];
  for (const f of integerFolders()) {
    if (statSync(f.model).size > 60_000) continue;
    const model = loadOnnxFile(f.model);
    const inputs = [...readNpz(join(f.dir, 'inputs.npz')).values()].slice(0, model.inputs.length);
    out.push({ name: f.name, bytes: new Uint8Array(readFileSync(f.model)), inputs });
  }
  return out;
}

function randomSource(seed: number): Source {
  const built = buildRecipe(randomRecipe(seed, 3));
  return { name: `random ${seed}`, bytes: built.builder.bytes(), inputs: built.inputs };
}

export async function runMutations(opts: MutationOptions): Promise<MutationResult> {
  const real = sources();
  const t0 = Date.now();
  const runs: MutationRun[] = [];
  const findings = new Map<string, MutationFinding>();
  const timeout = opts.timeoutMs ?? 60_000;
  const stop = (): boolean => (Date.now() - t0) / 1000 >= opts.seconds;
  const lanes = opts.jobs ?? 1;
  const servers = Array.from({ length: lanes }, () => new CliServer());
  const spawnEvery = Math.max(1, opts.spawnEvery ?? 50);
  try {
    await inLanes(lanes, opts.count, stop, async (i, lane) => {
      // One case in each block of spawnEvery, at an offset that walks the kinds (i % KINDS.length picks the kind).
      const spawned = opts.spawnAll === true || i % spawnEvery === Math.floor(i / spawnEvery) % Math.min(spawnEvery, KINDS.length);
      const runCommand = spawned ? runGen : (args: string[], cwd: string, ms: number) => servers[lane].run(args, cwd, ms);
      const rng = new Rng(caseSeedOf(opts.seed, 0xfa22, i));
      const kind = KINDS[i % KINDS.length];
      const platform = rng.pick(opts.platforms);
      const src = real.length > 0 && rng.next() < 0.6 ? rng.pick(real) : randomSource((opts.seed * 7919 + i) >>> 0);
      const dir = join(opts.work, `m${i}`);
      const out = join(dir, 'out');
      mkdirSync(dir, { recursive: true });
      const model = join(dir, 'model.onnx');
      const inputsFile = join(dir, 'inputs.npz');
      writeFileSync(inputsFile, encodeNpz(new Map(src.inputs.map((a, k) => [`in${k}`, a]))));
      let what = '';
      let hostile: string | undefined;
      let bytes: Uint8Array | undefined = src.bytes;
      try {
        if (kind === 'bytes') ({ bytes, what } = mutateBytes(rng, src.bytes));
        else if (kind === 'structure') ({ bytes, what } = mutateStructure(rng, src.bytes));
        else if (kind === 'names') ({ bytes, what, name: hostile } = mutateNames(rng, src.bytes));
        else if (kind === 'npz') {
          const m = mutateNpz(rng, src.inputs);
          writeFileSync(inputsFile, m.bytes);
          what = m.what;
        }
      } catch (e) {
        what = `mutation not applicable: ${(e as Error).message.split('\n')[0]}`;
        bytes = undefined;
      }
      if (!bytes) {
        rmSync(dir, { recursive: true, force: true });
        return;
      }
      writeFileSync(model, bytes);
      const commands: string[][] = [];
      const commandMs: [string, number][] = [];
      const problems: string[] = [];
      const check = async (args: string[]): Promise<number | null> => {
        commands.push(args);
        const before = caseFiles(opts.work, dir, out);
        // What a killed run left (a SIGKILL cannot clean up: new files of the case) and a firmware's output folder go
        // before the second try.
        const r = await runConfirmingHangs(runCommand, runGen, args, dir, timeout, () => {
          for (const f of touchedFiles(before, caseFiles(opts.work, dir, out))) if (!before.has(f) && !f.endsWith(' (removed)')) rmSync(join(dir, f), { recursive: true, force: true });
          if (args[0] === 'firmware') rmSync(out, { recursive: true, force: true });
        });
        commandMs.push([args[0], r.ms]);
        problems.push(...checkRun(r).map((p) => `${args[0]}: ${p}`));
        const touched = touchedFiles(before, caseFiles(opts.work, dir, out));
        if (touched.length > 0) problems.push(`${args[0]}: touched outside the output folder: ${touched.slice(0, 3).join(', ')}`);
        if (args[0] === 'firmware' && r.code !== 0 && existsSync(out)) problems.push('firmware: output folder left after a failure');
        return r.code;
      };
      // BrainScaleS-2's analog layers give the chip's values, not the int8 model's (configs.ts): accepted models are
      // compared on its digital path (a fuzz false positive: miniMobileNetv2 differed in 1 of 10 whatever its names).
      const fwArgs = ['firmware', '--platform', platform, model, '-o', out, '--inputs', inputsFile, ...(platform === 'brainscales2' ? ['--analog', 'off'] : [])];
      if (kind === 'firmware') {
        try {
          generateFirmware({ model, platform, out, sampleInputs: inputsFile });
          what = mutateFirmwareDir(rng, out);
        } catch {
          rmSync(dir, { recursive: true, force: true });
          return; // this source does not generate on this platform: nothing to corrupt
        }
        const host = rng.next() < 0.2;
        const code = await check(['run', out, '--inputs', inputsFile, ...(host ? ['--on', 'host'] : [])]);
        // The emulator loads the images (the host C has its data compiled in): one outside the folder must be refused.
        if (code === 0 && !host && /\.\.\/|\/etc\//.test(what)) problems.push(`run: accepted ${what}`);
      } else {
        const code = await check(fwArgs);
        if (code === 0) {
          const expected = join(dir, 'expected.npz');
          problems.push(...checkAccepted(model, kind === 'npz' ? undefined : src.inputs, out, expected, hostile));
          if (existsSync(expected)) {
            const runCode = await check(['run', out, '--inputs', inputsFile, '--expect', expected, ...(rng.next() < 0.15 ? ['--on', 'host'] : [])]);
            if (runCode === 1) problems.push('run: outputs differ from the reference');
          }
        }
      }
      runs.push({ kind, via: spawned ? 'spawned' : 'in-process', commandMs, what, problems });
      if (problems.length > 0) {
        const sig = `${kind}: ${problems.map((p) => p.replaceAll(dir, '').replace(/'[^']*'/g, "'_'").replace(/\d+/g, 'N').replace(/"[^"]*"/g, '"_"')).join('; ')}`.slice(0, 160);
        opts.log(`  FAIL ${kind} (${spawned ? 'spawned' : 'in process'}) ${platform} ${src.name} (${what}): ${problems.join('; ').slice(0, 240)}`);
        const f = findings.get(sig);
        if (f) f.count++;
        else {
          const finding: MutationFinding = { signature: sig, count: 1 };
          findings.set(sig, finding);
          if (opts.record) finding.path = record(opts.corpusDir ?? OPEN_DIR, `${kind}-${slug(problems[0])}-${i}`, dir, out, commands, {
            problems, what, platform, src: src.name, hostile, checkAccepted: kind !== 'npz' && kind !== 'firmware',
          });
        }
      }
      rmSync(dir, { recursive: true, force: true });
    });
  } finally {
    for (const s of servers) s.close();
  }
  return { runs, findings: [...findings.values()] };
}

/**
 * The files a case could touch by mistake: its own folder (the command's cwd and the model's folder) except the
 * output folder, and the files directly in the work folder (its parent). Other cases' folders, busy on other lanes,
 * are left out.
 */
function caseFiles(work: string, dir: string, out: string): Map<string, string> {
  const m = snapshot(dir, [out]);
  for (const e of readdirSync(work, { withFileTypes: true })) {
    if (!e.isFile()) continue;
    const st = statSync(join(work, e.name), { throwIfNoEntry: false });
    if (st) m.set(`../${e.name}`, `${st.size}:${st.mtimeMs}`);
  }
  return m;
}

/** Copies the case folder (the damaged firmware folder too) into the corpus with its commands, paths as placeholders. */
function record(corpus: string, name: string, dir: string, out: string, commands: string[][], info: {
  problems: string[]; what: string; platform: string; src: string; hostile?: string; checkAccepted: boolean;
}): string {
  const dest = join(corpus, name);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  for (const f of ['model.onnx', 'inputs.npz', 'expected.npz']) if (existsSync(join(dir, f))) cpSync(join(dir, f), join(dest, f));
  const corrupted = commands[0]?.[0] === 'run';
  // Zipped: the folder holds .ts sources, which must not join the project's own compilation.
  if (corrupted && existsSync(out)) writeFileSync(join(dest, 'firmware.zip'), zipFolder(out));
  const place = (a: string): string => a.replace(out, corrupted ? '{dir}/firmware' : '{out}').replace(dir, '{dir}');
  const meta: CliMeta = {
    kind: 'cli', args: commands[0].map(place), checkAccepted: info.checkAccepted, hostile: info.hostile, then: commands.slice(1).map((c) => c.map(place)), found: { problems: info.problems, code: -1, stderr: '' },
    signature: info.problems.join('; '),
    note: `${info.what} on ${info.platform}, from ${info.src}${info.hostile !== undefined ? `; hostile name ${JSON.stringify(info.hostile).slice(0, 60)}` : ''}`,
    replay: commands.map((c) => `node bin/gen.js ${c.map(place).map((a) => JSON.stringify(a)).join(' ')}`).join(' && '),
  };
  writeMeta(dest, meta);
  return dest;
}

