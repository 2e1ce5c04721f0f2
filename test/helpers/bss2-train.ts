import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { ndarray, type NDArray } from '../../generator/ir/ndarray.js';
import { encodeNpz } from '../../generator/onnx/npy.js';
import { compileModel } from '../../generator/pipeline.js';
import { referenceGraph } from '../../generator/platforms/brainscales2/platform.js';
import { runReference } from '../../generator/reference/interpreter.js';
import { gen } from './cli.js';

/** What the in-the-loop examples' tests share (examples/bss2-train, examples/bss2-har). */

export const python = '/usr/bin/python3';

/** Fails (never skips) without python3 with torch, numpy and onnx: the examples' tests need them. */
export function requireTorch(example: string): void {
  const needs = spawnSync(python, ['-c', 'import torch, numpy, onnx'], { encoding: 'utf8' });
  if (needs.status !== 0) {
    // scripts/install-toolchains.sh installs them
    throw new Error(`${example} needs ${python} with torch, numpy and onnx (Debian: python3-torch python3-numpy python3-onnx; ` +
      `scripts/install-toolchains.sh installs them): ${(needs.stderr || needs.error?.message || '').trim().split('\n').pop()}`);
  }
}

/** Sample i of a batch [n, ...] as a batch of one. */
export function sampleAt(a: NDArray, i: number): NDArray {
  const size = a.data.length / a.shape[0];
  return ndarray(a.dtype, [1, ...a.shape.slice(1)], a.data.subarray(i * size, (i + 1) * size));
}

/**
 * `gen firmware --platform brainscales2` of a trained model with the given options (CLI flags and the same as
 * compileModel options), then `gen run` on the first `count` held-out samples against the reference interpreter on
 * the lowered graph: every one of the `outputs` logits equal. Returns the reference graph.
 */
export function firmwareEqualsReference(model: string, flags: string[], options: Record<string, number | string>, heldout: NDArray,
  count: number, outputs: number, work: string): ReturnType<typeof referenceGraph> {
  const fw = join(work, 'fw');
  const g = gen('firmware', '--platform', 'brainscales2', model, ...flags, '-o', fw);
  assert.is(g.code, 0, g.stderr);
  const c = compileModel({ model, platform: 'brainscales2', ...options });
  const ref = referenceGraph(c.platform, c.graph);
  assert.is(ref.nodes.filter((x) => x.op === 'Bss2Matmul').length, 3, 'all three layers on the arrays');
  for (let i = 0; i < count; i++) {
    const x = sampleAt(heldout, i);
    const want = runReference(ref, [x]).get(ref.outputs[0])!;
    const inputs = join(work, `x${i}.npz`);
    const expect = join(work, `y${i}.npz`);
    writeFileSync(inputs, encodeNpz(new Map([['image', x]])));
    writeFileSync(expect, encodeNpz(new Map([['logits', want]])));
    const res = gen('run', fw, '--inputs', inputs, '--expect', expect);
    assert.is(res.code, 0, res.stdout + res.stderr);
    assert.match(res.stdout, new RegExp(`Errors: 0 out of ${outputs}\\b`));
  }
  return ref;
}
