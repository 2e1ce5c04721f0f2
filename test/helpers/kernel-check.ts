import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { NDArray } from '../../generator/ir/ndarray.js';
import { loadOnnxFile } from '../../generator/onnx/load.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { generateFirmware } from '../../generator/pipeline.js';
import type { CoreCosts } from '../../generator/platforms/types.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware, type RunOptions } from '../../runtime/node/run.js';
import type { OnnxBuilder } from './onnx-builder.js';

/*
 * The per-kernel property check: a small graph on seeded random data goes through the whole pipeline on both
 * core platforms, and the emulated outputs (and, on request, the host-compiled C) must equal the reference
 * interpreter's, which is the oracle, bit for bit.
 */

export interface KernelCase {
  builder: OnnxBuilder;
  inputs: NDArray[];
}

export interface CheckOptions {
  /** Kernel name every layer of this op must have been given (proves the kernel under test ran). */
  kernel: string;
  op: string;
  /** Also build the Siracusa C with the host compiler and compare it. */
  hostC?: boolean;
}

export function workDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `firmgen-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A case on disk: the model, its sample inputs (they fix the input device types) and the reference's outputs. */
export interface WrittenCase {
  model: string;
  sample: string;
  expected: NDArray[];
}

export function writeCase(dir: string, c: KernelCase): WrittenCase {
  mkdirSync(dir, { recursive: true });
  const model = join(dir, 'model.onnx');
  const sample = join(dir, 'in.npz');
  writeFileSync(model, c.builder.bytes());
  writeFileSync(sample, encodeNpz(new Map(c.inputs.map((a, i) => [`in${i}`, a]))));
  const graph = loadOnnxFile(model);
  const values = runReference(graph, c.inputs);
  return { model, sample, expected: graph.outputs.map((o) => values.get(o)!) };
}

/** Writes the case, then checks both platforms. */
export async function checkKernelCase(dir: string, c: KernelCase, opts: CheckOptions): Promise<void> {
  const { model, sample, expected } = writeCase(dir, c);
  for (const platform of ['generic', 'siracusa']) {
    const out = join(dir, platform);
    const { manifest, layers } = generateFirmware({ model, platform, out, sampleInputs: sample });
    const mine = layers.filter((l) => l.node.op === opts.op);
    assert.ok(mine.length > 0, `no ${opts.op} layer`);
    for (const l of mine) assert.is(l.kernel === 'alias' ? 'alias' : l.kernel.name, opts.kernel);
    const r = await runFirmware(out, c.inputs);
    const emu = compareOutputs(manifest.outputs, r.outputs, expected);
    assert.is(emu.errors, 0, `${platform} emulated: ${emu.details.join('; ')}`);
    if (opts.hostC && platform === 'siracusa') {
      const host = compareOutputs(manifest.outputs, runHostC(out, c.inputs), expected);
      assert.is(host.errors, 0, `${platform} host C: ${host.details.join('; ')}`);
    }
  }
}

export type SiracusaRun = { g: ReturnType<typeof generateFirmware>; r: Awaited<ReturnType<typeof runFirmware>> };

/**
 * The case on Siracusa three ways: with the bank-conflict-free L1 layouts (midend/tiling/filter-layout.ts), dense
 * (denseFilters) and untiled; every run bit-exact against the reference, emulated and (tiled) host C. Both tiled
 * runs must pick the same tiles of their first layer, so the loops compared are the same. `runOpts`: the emulator's
 * (e.g. the bank replay's skew); `planCosts`: costs the planner takes over the platform's (a case that needs a tile
 * shape whatever the measured table prefers).
 */
export async function padVsDense(dir: string, c: KernelCase, l1?: number, runOpts: RunOptions = {}, planCosts?: Partial<CoreCosts>): Promise<{ padded: SiracusaRun; dense: SiracusaRun }> {
  const { model, sample, expected } = writeCase(dir, c);
  const run = async (name: string, opts: { denseFilters?: boolean; untiled?: boolean }): Promise<SiracusaRun> => {
    const out = join(dir, name);
    const g = generateFirmware({ model, platform: 'siracusa', out, sampleInputs: sample, l1, planCosts, ...opts });
    const r = await runFirmware(out, c.inputs, runOpts);
    const emu = compareOutputs(g.manifest.outputs, r.outputs, expected);
    assert.is(emu.errors, 0, `${name}: ${emu.details.join('; ')}`);
    if (!opts.untiled) {
      const host = compareOutputs(g.manifest.outputs, runHostC(out, c.inputs), expected);
      assert.is(host.errors, 0, `${name} host C: ${host.details.join('; ')}`);
    }
    return { g, r };
  };
  const padded = await run('padded', {});
  const dense = await run('dense', { denseFilters: true });
  await run('untiled', { untiled: true });
  assert.equal(dense.g.manifest.layers[0].tiling!.sizes, padded.g.manifest.layers[0].tiling!.sizes, 'the same tiles, so the same loops compared');
  return { padded, dense };
}

/**
 * Every build of a generated firmware against the expected outputs: the AS firmware, the C on the emulator's RV32
 * core(s) (the ISS), and on Siracusa the C built for the host.
 */
export async function checkEveryBuild(out: string, platform: string, outputs: string[], inputs: NDArray[], expected: NDArray[]): Promise<void> {
  const runs: [string, ReturnType<typeof compareOutputs>][] = [
    ['AS', compareOutputs(outputs, (await runFirmware(out, inputs)).outputs, expected)],
    ['ISS', compareOutputs(outputs, (await runIss(out, inputs)).outputs, expected)],
  ];
  if (platform === 'siracusa') runs.push(['host C', compareOutputs(outputs, runHostC(out, inputs), expected)]);
  for (const [what, cmp] of runs) assert.is(cmp.errors, 0, `${platform} ${what}: ${cmp.details.join('; ')}`);
}
