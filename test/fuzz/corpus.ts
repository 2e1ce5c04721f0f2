import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz, readNpz } from '../../generator/onnx/npy.js';
import { repoRoot } from '../helpers/paths.js';
import type { Config } from './configs.js';
import type { Outcome } from './verdict.js';

/*
 * The fuzz corpus: one folder per minimised case. `corpus/cases/` holds cases that must now pass (replayed by
 * npm test); `corpus/open/` holds findings not fixed yet (their replay checks they still fail as recorded, so a
 * fix shows up and the case is moved, never skipped silently).
 */
export const CORPUS = join(repoRoot, 'test', 'fuzz', 'corpus');
export const CASES_DIR = join(CORPUS, 'cases');
export const OPEN_DIR = join(CORPUS, 'open');

/** A graph case: model.onnx + inputs.npz run on one configuration. */
export interface GraphMeta {
  kind: 'graph';
  config: Config;
  hostC: boolean;
  /** What happened when it was recorded. */
  found: Pick<Outcome, 'verdict' | 'stage' | 'message' | 'errors' | 'total'>;
  signature: string;
  seed?: number;
  note?: string;
  replay: string;
}

/** A command-line case: gen run as a child process on files of the folder; see cli-check.ts for the checks. */
export interface CliMeta {
  kind: 'cli';
  /** Arguments of bin/gen.js; `{dir}` stands for the case folder, `{out}` for a fresh output folder. */
  args: string[];
  /** When the first command (`firmware`) succeeds: run accepted-check.ts on the model with inputs.npz. */
  checkAccepted?: boolean;
  /** The hostile name the model carries, if any (accepted-check.ts looks for it in the generated code). */
  hostile?: string;
  /** Commands run after the first when it succeeds (`run` of an accepted model). */
  then: string[][];
  found: { problems: string[]; code: number; stderr: string };
  signature: string;
  note?: string;
  replay: string;
}

export type Meta = GraphMeta | CliMeta;

export interface Entry {
  dir: string;
  name: string;
  meta: Meta;
}

/** model.onnx and inputs.npz are already in `dir` (prepare.ts); adds the reference's outputs and the metadata. */
export function writeGraphEntry(dir: string, expected: NDArray[], meta: GraphMeta): void {
  writeFileSync(join(dir, 'expected.npz'), encodeNpz(new Map(expected.map((a, i) => [`out${i}`, a]))));
  writeFileSync(join(dir, 'case.json'), JSON.stringify(meta, null, 2) + '\n');
}

export function writeMeta(dir: string, meta: Meta): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'case.json'), JSON.stringify(meta, null, 2) + '\n');
}

export function readEntries(dir: string): Entry[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'case.json')))
    .map((e) => ({ dir: join(dir, e.name), name: e.name, meta: JSON.parse(readFileSync(join(dir, e.name, 'case.json'), 'utf8')) as Meta }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function entryInputs(dir: string): NDArray[] {
  return [...readNpz(join(dir, 'inputs.npz')).values()];
}

/** A folder name from a signature: short, lower-case, no characters a shell or a file system would mind. */
export function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 48);
}
