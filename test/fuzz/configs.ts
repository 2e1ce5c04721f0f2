import type { FirmwareOptions } from '../../generator/pipeline.js';
import type { Rng } from '../helpers/random.js';

/** One platform with one option set: what a case is generated and run with. */
export interface Config {
  id: string;
  platform: string;
  opts: Partial<Pick<FirmwareOptions, 'l1' | 'l2' | 'l3' | 'buffering' | 'untiled' | 'pes' | 'engines' | 'weightsIn' | 'cores' | 'analog'>>;
  /**
   * L1 bytes drawn for each case, log-uniform in [lo, hi] (concreteConfig): the tile shapes no fixed size reaches. A
   * tiled GEMM read a per-row requantization as per column when its tile came out square, at L1 sizes none of the
   * fixed configurations had.
   */
  l1Drawn?: [number, number];
  /** The configuration a drawn one came from: the summary counts its runs under it. */
  family?: string;
}

/** The option sets the differential tester sweeps (the README's command line, small L1s and core counts included). */
export const CONFIGS: Config[] = [
  { id: 'generic', platform: 'generic', opts: {} },
  { id: 'siracusa', platform: 'siracusa', opts: {} },
  { id: 'siracusa-l1-8000', platform: 'siracusa', opts: { l1: 8000 } },
  { id: 'siracusa-l1-16000', platform: 'siracusa', opts: { l1: 16000 } },
  { id: 'siracusa-l1-drawn', platform: 'siracusa', opts: {}, l1Drawn: [2048, 65536] },
  { id: 'siracusa-untiled', platform: 'siracusa', opts: { untiled: true } },
  { id: 'siracusa-single', platform: 'siracusa', opts: { buffering: 'single' } },
  { id: 'siracusa-cores-1', platform: 'siracusa', opts: { cores: 1 } },
  { id: 'siracusa-cores-3', platform: 'siracusa', opts: { cores: 3 } },
  { id: 'siracusa-npu', platform: 'siracusa', opts: { engines: 'cluster+npu' } },
  { id: 'siracusa-npu-l2', platform: 'siracusa', opts: { engines: 'cluster+npu', weightsIn: 'l2', l1: 16000 } },
  { id: 'spinnaker2', platform: 'spinnaker2', opts: {} },
  { id: 'spinnaker2-pes-2', platform: 'spinnaker2', opts: { pes: 2 } },
  { id: 'spinnaker2-pes-5', platform: 'spinnaker2', opts: { pes: 5 } },
  { id: 'gemmini', platform: 'gemmini', opts: {} },
  { id: 'tangram', platform: 'tangram', opts: {} },
  // the analog layers give the chip's values, not the int8 model's: the differential runs the digital path
  { id: 'brainscales2-digital', platform: 'brainscales2', opts: { analog: 'off' } },
];

export function configsFor(platforms: string[] | undefined): Config[] {
  return platforms ? CONFIGS.filter((c) => platforms.includes(c.platform) || platforms.includes(c.id)) : CONFIGS;
}

/** The configuration a case runs: `c` itself, or with its drawn L1 size fixed (named by it, so a replay has it). */
export function concreteConfig(c: Config, rng: Rng): Config {
  if (!c.l1Drawn) return c;
  const [lo, hi] = c.l1Drawn;
  const l1 = Math.round(Math.exp(Math.log(lo) + rng.next() * (Math.log(hi) - Math.log(lo))));
  return { id: `${c.platform}-l1-${l1}`, platform: c.platform, opts: { ...c.opts, l1 }, family: c.id };
}

export function configById(id: string): Config | undefined {
  return CONFIGS.find((c) => c.id === id);
}

/** The same options as `gen firmware` flags (for the replay command a report prints). */
export function cliFlags(c: Config): string[] {
  const o = c.opts;
  const f = ['--platform', c.platform];
  if (o.l1 !== undefined) f.push('--l1', String(o.l1));
  if (o.l2 !== undefined) f.push('--l2', String(o.l2));
  if (o.untiled) f.push('--untiled');
  if (o.buffering === 'single') f.push('--single-buffer');
  if (o.cores !== undefined) f.push('--cores', String(o.cores));
  if (o.engines) f.push('--engines', String(o.engines));
  if (o.weightsIn) f.push('--weights-in', String(o.weightsIn));
  if (o.pes !== undefined) f.push('--pes', String(o.pes));
  if (o.analog !== undefined) f.push('--analog', String(o.analog));
  return f;
}
