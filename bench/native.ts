/**
 * The project's own host C output (out/c: network.c, network_data.c, the host HAL) built natively with gcc and a
 * timing driver (bench/c/bench_main.c) in place of the test driver, so that only network_run() is timed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../runtime/node/paths.js';

export interface NativeRun {
  /** Best wall time of one network_run(), ms. */
  ms: number;
  /** The output bytes, graph order, concatenated. */
  output: Uint8Array;
}

/** Builds <outDir>/c with `gcc <flags>`; returns the binary's path. */
export function buildNative(outDir: string, flags: string[], cores: number): string {
  const c = join(outDir, 'c');
  const bin = join(c, `bench_native${flags.join('').replace(/[^A-Za-z0-9]/g, '_')}`);
  execFileSync('gcc', [
    ...flags, '-std=c11', `-DFG_CORES=${cores}`, `-I${join(c, 'hal')}`, `-I${c}`,
    join(c, 'network.c'), join(c, 'network_data.c'), join(c, 'hal', 'host', 'hal_host.c'),
    join(c, 'hal', 'common', 'dma_memcpy.c'),
    join(REPO_ROOT, 'bench', 'c', 'bench_main.c'), '-o', bin,
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  return bin;
}

/** Runs the binary on raw input bytes, `reps` times inside one process. */
export function runNative(bin: string, input: Uint8Array, reps: number, work: string): NativeRun {
  const inFile = join(work, 'native-in.bin');
  const outFile = join(work, 'native-out.bin');
  writeFileSync(inFile, input);
  const ns = Number(execFileSync(bin, [inFile, outFile, String(reps)], { encoding: 'utf8' }).trim());
  return { ms: ns / 1e6, output: new Uint8Array(readFileSync(outFile)) };
}
