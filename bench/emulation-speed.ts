/**
 * `npm run bench`: how fast firmgen emulates (issue 4). One JSON line per measurement: {name, figure, unit,
 * reference}. All figures are host wall time on this machine, measured inside this one run, so the ratios compare
 * like with like.
 *
 * - int8 kernels (GEMM and MatMul 256x256x256, conv 3x3 32->32 on 32x32, each with its requantization) three ways:
 *   the generated AssemblyScript in the emulator (only `_start`, after the build), the generated host C built with
 *   gcc -O3 (only network_run(), bench/c/bench_main.c), and a plain JavaScript Int8Array loop. The three outputs must
 *   agree byte for byte. Target: the emulator at no less than half the speed of the native C.
 * - whole models (Models/miniMobileNetv2, Models/CNN_Linear2): host time of a run after the build, first in a fresh
 *   process (as `gen run` does it) and best of several. Target < 100 ms.
 * - the asc build of a firmware, uncached (first in the process: compiler load included; then warm) and cached.
 *
 * Options: --platform <siracusa|generic> (default siracusa), --reps <n> (default 5; the best run counts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readNpz } from '../generator/onnx/npy.js';
import { generateFirmware } from '../generator/pipeline.js';
import { buildFirmware } from '../runtime/node/asc-build.js';
import { runFirmware } from '../runtime/node/run.js';
import { deeployDir } from '../test/helpers/paths.js';
import { convKernel, gemmKernel, type BenchKernel } from './kernels.js';
import { buildNative, runNative } from './native.js';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const platform = arg('--platform', 'siracusa');
const reps = Number(arg('--reps', '5'));
const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-'));
// A private cache: every first build below is a real, uncached asc build.
process.env.FIRMGEN_CACHE = join(work, 'cache');

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number(figure.toPrecision(4)), unit, reference }));
}

function best(times: number[]): number {
  return Math.min(...times);
}

function same(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if ((a[i] << 24) >> 24 !== (b[i] << 24) >> 24) return false;
  return true;
}

let coldBuild = true;

async function kernel(k: BenchKernel): Promise<void> {
  const dir = join(work, k.name);
  const { model, inputs } = k.write(dir);
  const out = join(dir, platform);
  const { manifest } = generateFirmware({ model, platform, out, sampleInputs: join(dir, 'inputs.npz') });
  const build = await buildFirmware(join(out, 'as'));
  emit(`asc_build.${coldBuild ? 'uncached_cold' : 'uncached'}.${k.name}`, build.ms, 'ms',
    coldBuild ? 'first build in the process: loading the compiler included' : 'compiler already loaded');
  coldBuild = false;

  const emuTimes: number[] = [];
  let emuOut: ArrayLike<number> = [];
  for (let r = 0; r < reps; r++) {
    const res = await runFirmware(out, inputs);
    emuTimes.push(res.execMs);
    emuOut = res.outputs[0].data;
  }
  const raw = new Uint8Array(Int8Array.from(inputs[0].data).buffer);
  const native = runNative(buildNative(out, ['-O3'], manifest.cores), raw, reps, dir);
  // Not the reference (plain -O3 is), but what this host's compiler can do with AVX2 and friends.
  const tuned = runNative(buildNative(out, ['-O3', '-march=native'], manifest.cores), raw, reps, dir);
  const js = k.js();
  const jsTimes: number[] = [];
  let jsOut: Int8Array = new Int8Array();
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    jsOut = js();
    jsTimes.push(performance.now() - t0);
  }
  if (!same(emuOut, jsOut) || !same(native.output, jsOut) || !same(tuned.output, jsOut)) throw new Error(`${k.name}: the three outputs differ`);

  const rate = (ms: number): number => k.macs / (ms / 1000);
  const emu = rate(best(emuTimes));
  const nat = rate(native.ms);
  const plain = rate(best(jsTimes));
  const what = `${k.macs} MACs, best of ${reps}`;
  emit(`${k.name}.emulator`, emu, 'MAC/s', `emulated ${platform} firmware, _start only; ${what}`);
  emit(`${k.name}.native_gcc_O3`, nat, 'MAC/s', `project host C, gcc -O3, network_run() only; ${what}`);
  emit(`${k.name}.native_gcc_O3_march_native`, rate(tuned.ms), 'MAC/s', `the same C, gcc -O3 -march=native; ${what}`);
  emit(`${k.name}.js`, plain, 'MAC/s', `plain JS Int8Array loop; ${what}`);
  emit(`${k.name}.emulator_vs_native`, emu / nat, 'ratio', 'target >= 0.5 (issue 4)');
  emit(`${k.name}.emulator_vs_native_march_native`, emu / rate(tuned.ms), 'ratio', 'informational: native tuned to this CPU');
  emit(`${k.name}.emulator_vs_js`, emu / plain, 'ratio', 'plain JS = 1');
}

async function wholeModel(name: string): Promise<void> {
  const dir = join(deeployDir, 'Models', name);
  const out = join(work, name);
  generateFirmware({ model: join(dir, 'network.onnx'), platform, out });
  const inputs = [...readNpz(join(dir, 'inputs.npz')).values()];
  const build = await buildFirmware(join(out, 'as'));
  const cached = await buildFirmware(join(out, 'as'));
  emit(`asc_build.uncached.${name}`, build.ms, 'ms', 'compiler already loaded');
  emit(`asc_build.cached.${name}`, cached.ms, 'ms', `content-hash hit (uncached ${build.ms.toFixed(0)} ms)`);
  // The first run in a fresh process (what `gen run` does after a build), without Node's start-up and imports:
  // the emulator compile, the firmware compile and instantiation are all in it.
  const fresh = firstRunInFreshProcess(out, join(dir, 'inputs.npz'));
  emit(`${name}.emulate_first`, fresh.ms, 'ms',
    `first run in a fresh process after the build (wasm compiles, instantiate, load, run); ${fresh.cycles} cycles; target < 100 ms`);
  const t0 = performance.now();
  await runFirmware(out, inputs.slice(0, 1));
  emit(`${name}.emulate_first_in_bench`, performance.now() - t0, 'ms', 'first run of this model in this process, after its asc build');
  const times: number[] = [];
  for (let r = 0; r < reps; r++) times.push((await runFirmware(out, inputs.slice(0, 1))).runMs);
  emit(`${name}.emulate`, best(times), 'ms', `instantiate + load + run, best of ${reps}; target < 100 ms`);
}

/** Times the first runFirmware() of a child process, which imports the runtime before the clock starts. */
function firstRunInFreshProcess(out: string, inputsNpz: string): { ms: number; cycles: number } {
  const url = (p: string): string => new URL(p, import.meta.url).href;
  const code = `
    const { runFirmware } = await import(${JSON.stringify(url('../runtime/node/run.js'))});
    const { readNpz } = await import(${JSON.stringify(url('../generator/onnx/npy.js'))});
    const inputs = [...readNpz(${JSON.stringify(inputsNpz)}).values()].slice(0, 1);
    const t0 = performance.now();
    const r = await runFirmware(${JSON.stringify(out)}, inputs);
    console.log(JSON.stringify({ ms: performance.now() - t0, cycles: r.cycles }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env: process.env });
  if (r.status !== 0) throw new Error(`fresh-process run failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { ms: number; cycles: number };
}

try {
  for (const k of [gemmKernel(256, 256, 256, true), gemmKernel(256, 256, 256, false), convKernel(32, 32, 32, 32)]) {
    await kernel(k);
  }
  for (const m of ['miniMobileNetv2', 'CNN_Linear2']) await wholeModel(m);
} finally {
  rmSync(work, { recursive: true, force: true });
}
