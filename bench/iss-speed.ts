/**
 * `npm run bench:iss`: how fast the RV32 core (emulator/assembly/iss) emulates, in millions of emulated instructions
 * per host second on one core. Two kernels: the int8 dot-product inner loop of pulp-nn-class code (hardware loop,
 * post-increment word loads, pv.sdotsp.b) and the same dot product compiled from C with gcc -O2 for plain rv32imc.
 * Each result is checked against the dot product computed here before it counts. One JSON line per figure:
 * {name, figure, unit, reference}.
 * Then the cluster path `gen run --on iss` takes on Siracusa (the fabric controller and 8 cluster cores as harts,
 * every L1/L2 access through the timed path: bank conflicts, cluster DMA, event unit) on the generated firmware of
 * Models folders: MIPS as the instructions all harts retired per host second of emulation, and each folder's
 * emulation time (the gcc build and the wasm set-up excluded; the wall time with them is printed beside it). Each
 * run's outputs are checked against the folder's outputs.npz before its figure counts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFirmware } from '../generator/pipeline.js';
import { readNpz } from '../generator/onnx/npy.js';
import { compareOutputs } from '../runtime/node/compare.js';
import { runIss } from '../runtime/node/iss-run.js';
import { DEEPLOY } from '../test/helpers/deeploy.js';
import { assemble, compileC, loadElf, machine, runToStop, STOP, type Machine } from '../test/emulator/iss-harness.js';
import { lpSetup, pLoadPi, pv } from '../test/emulator/iss-xpulp.js';

const BYTES = 4096;
const REPS = 4000;
const TARGET_MIPS = 100;
/** Models folders run on the cluster path: the largest (a conv + linear network, ~2.6 M instructions on 9 harts)
 * and a depthwise/pointwise one. */
const CLUSTER_FOLDERS = ['CNN_Linear2', 'miniMobileNetv2'];
/** The cluster path's MIPS are the whole firmware's (9 harts in 16-instruction slices, every L1/L2 access timed): the
 * 100-MIPS target is the kernel loop's; the cluster path's is a Models folder in well under a second (below). */
const CLUSTER_REFERENCE = `the ${TARGET_MIPS}-MIPS target is the kernel loop's; a Models folder: well under 1 s`;

function emit(name: string, figure: number, unit: string, reference: string): void {
  console.log(JSON.stringify({ name, figure: Number(figure.toPrecision(4)), unit, reference }));
}

/** Measured runs of each kernel after a warm-up one: single runs on a shared 2-core host lie 30-50 % apart. */
const ROUNDS = 5;

/** The median of `runs`' MIPS, their range beside the target. */
function emitMips(name: string, runs: { mips: number }[]): void {
  const mips = runs.map((r) => r.mips).sort((x, y) => x - y);
  const range = `${mips[0].toFixed(1)}..${mips[mips.length - 1].toFixed(1)}`;
  emit(name, mips[mips.length >> 1], 'MIPS', `median of ${mips.length} runs (${range}); target >= ${TARGET_MIPS}`);
}

/** Deterministic int8 data; the expected dot product over one pass, times the repetitions (mod 2^32). */
function data(): { a: Int8Array; b: Int8Array; expect: number } {
  const a = new Int8Array(BYTES);
  const b = new Int8Array(BYTES);
  let s = 12345;
  const next = (): number => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) & 0xff;
  for (let i = 0; i < BYTES; i++) { a[i] = next() << 24 >> 24; b[i] = next() << 24 >> 24; }
  let dot = 0;
  for (let i = 0; i < BYTES; i++) dot += a[i] * b[i];
  return { a, b, expect: Math.imul(dot, REPS) };
}

const words = (v: Int8Array): string => Array.from(new Int32Array(v.buffer)).map((x) => `.word ${x}`).join('\n');

function xpulpKernel(a: Int8Array, b: Int8Array): Uint8Array {
  return assemble(`
    la s1, bufa
    la s2, bufb
    li s0, ${REPS}
    li a2, ${BYTES / 4}
    li t0, 0
    ${lpSetup(1, 's0', 'outer_end')}
    mv a0, s1
    mv a1, s2
    ${lpSetup(0, 'a2', 'inner_end')}
    ${pLoadPi('lw', 't1', 'a0', 4)}
    ${pLoadPi('lw', 't2', 'a1', 4)}
inner_end:
    ${pv('sdotsp', '', 'b', 't0', 't1', 't2')}
    addi t3, t3, 1
outer_end:
    addi t4, t4, 1
    mv a0, t0
    EXIT
    .data
    .balign 4
bufa:
${words(a)}
bufb:
${words(b)}
  `);
}

const C_KERNEL = (a: Int8Array, b: Int8Array): string => `
#include <stdint.h>
static const int8_t A[${BYTES}] = {${Array.from(a).join(',')}};
static const int8_t B[${BYTES}] = {${Array.from(b).join(',')}};
__attribute__((noinline)) static int32_t dot(const int8_t *x, const int8_t *y, int n) {
  int32_t s = 0;
  for (int i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}
int main(void) {
  volatile int32_t total = 0;
  for (int r = 0; r < ${REPS / 4}; r++) total += dot(A, B, ${BYTES});
  return (int)(total & 0xff);
}
`;

function timed(m: Machine): { mips: number; instructions: number; cycles: number; value: number; exit: number } {
  const t0 = performance.now();
  const r = runToStop(m);
  const s = (performance.now() - t0) / 1000;
  if (r.stop !== STOP.exit) throw new Error(`kernel stopped with ${r.stop}: ${r.fault}`);
  return { mips: r.instructions / s / 1e6, instructions: r.instructions, cycles: r.cycles, value: m.emu.iss_reg(0, 10), exit: r.exit };
}

async function main(): Promise<void> {
  const { a, b, expect } = data();
  const xp = xpulpKernel(a, b);
  // a warm-up run (wasm tier-up), then the measured runs, each on a fresh machine
  const xpRuns: ReturnType<typeof timed>[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const m = await machine();
    loadElf(m, xp);
    const r = timed(m);
    if (r.exit !== expect) throw new Error(`xpulp dot product ${r.exit}, expected ${expect}`);
    if (round > 0) xpRuns.push(r);
  }
  emitMips('iss xpulp int8 dot loop (hwloop, p.lw!, pv.sdotsp.b)', xpRuns);
  emit('iss xpulp int8 dot loop cycles per 4 MACs', xpRuns[0].cycles / (REPS * BYTES / 4), 'cycles', 'CV32E40P timing');
  const c = compileC(C_KERNEL(a, b));
  let oneDot = 0;
  for (let i = 0; i < BYTES; i++) oneDot += a[i] * b[i];
  const expectC = Math.imul(oneDot, REPS / 4) & 0xff;
  const cRuns: ReturnType<typeof timed>[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const m = await machine();
    loadElf(m, c.elf);
    const r = timed(m);
    if (r.exit !== expectC) throw new Error(`C dot product exit ${r.exit}, expected ${expectC}`);
    if (round > 0) cRuns.push(r);
  }
  emitMips('iss rv32imc int8 dot loop (gcc -O2)', cRuns);
  emit('iss rv32imc int8 dot loop cycles per MAC', cRuns[0].cycles / ((REPS / 4) * BYTES), 'cycles', 'CV32E40P timing');
}

/** The cluster path on each of CLUSTER_FOLDERS (Siracusa, `gen run --on iss`'s runIss): a warm-up run, then the
 * measured one; the outputs checked against the folder's outputs.npz. */
async function clusterPath(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'firmgen-bench-iss-speed-'));
  try {
    let instructions = 0;
    let seconds = 0;
    let wall = 0;
    for (const model of CLUSTER_FOLDERS) {
      const src = join(DEEPLOY, 'Models', model);
      const out = join(work, model);
      generateFirmware({ model: join(src, 'network.onnx'), platform: 'siracusa', out });
      const inputs = [...readNpz(join(src, 'inputs.npz')).values()];
      const expected = [...readNpz(join(src, 'outputs.npz')).values()];
      await runIss(out, inputs); // builds the ELF (gcc) and warms the wasm up
      const t0 = performance.now();
      const r = await runIss(out, inputs);
      const w = (performance.now() - t0) / 1000;
      const names = expected.map((_, i) => `output ${i}`);
      const cmp = compareOutputs(names, r.outputs, expected);
      if (cmp.errors > 0) throw new Error(`${model} on the cluster path: ${cmp.errors} of ${cmp.total} outputs differ`);
      if (r.harts < 2) throw new Error(`${model}: ran on ${r.harts} hart, not the cluster`);
      const n = r.hartInstructions.reduce((a, b) => a + b, 0);
      instructions += n;
      seconds += r.ms / 1000;
      wall += w;
      emit(`iss cluster path ${model} siracusa (${r.harts} harts)`, n / (r.ms / 1000) / 1e6, 'MIPS', CLUSTER_REFERENCE);
      emit(`iss cluster path ${model} siracusa emulation time`, r.ms / 1000, 's', `wall with set-up ${w.toFixed(3)} s`);
    }
    emit(`iss cluster path ${CLUSTER_FOLDERS.join(' + ')} (all harts)`, instructions / seconds / 1e6, 'MIPS', CLUSTER_REFERENCE);
    emit(`iss cluster path ${CLUSTER_FOLDERS.join(' + ')} emulation time`, seconds, 's', `wall with set-up ${wall.toFixed(3)} s; well under 1 s`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(clusterPath).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(1);
});
