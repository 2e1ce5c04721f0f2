/**
 * iRMSNorm's division by std as a multiply by its reciprocal (rmsnorm.c: m = floor(2^(31+l) / std) + 1), where every
 * product x*w is below 2^31 in magnitude. Rows chosen for the formula's edges: zeros (std = 1, the path that keeps
 * |t|), a power of two (std = 64, m = 2^31 + 1), the int16 extremes (t = 2^30, std = 2^15 and 32767), and random rows;
 * at four D so the quotients show past the int8 clip. The C on the emulator's RV32 core (Siracusa's XpulpV2 build,
 * generic's RV32IMC) and on the host, and the AS firmware, against the reference interpreter.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { checkEveryBuild, workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const { dir, cleanup } = workDir('rms-recip');
const L = 16;

function rows(rng: Rng): number[] {
  const fixed = [new Array(L).fill(0), new Array(L).fill(64), new Array(L).fill(-32768), new Array(L).fill(32767),
    Array.from({ length: L }, (_, j) => (j % 2 ? -32768 : 3))];
  const random = Array.from({ length: 5 }, () => rng.ints(L, -rng.int(1, 32768), rng.int(0, 32767)));
  return [...fixed, ...random].flat();
}

for (const D of [1, 8, 256, 4096]) {
  test(`iRMSNorm by the reciprocal, D = ${D}: ISS, host C and AS equal the reference`, async () => {
    const rng = new Rng(D * 7919);
    const x = ndarray('int16', [10, L], rows(rng));
    const w = [-32768, 32767, ...rng.ints(L - 2, -Math.min(32768, 160 * D), Math.min(32767, 160 * D))];
    const b = new OnnxBuilder('rms').input('x', 'int16', [10, L]);
    b.initializer('w', 'int16', [L], w);
    b.node('iRMSNorm', ['x', 'w'], ['y'], { D, n_levels: 256 }).output('y', 'float32');
    const c = writeCase(join(dir, String(D)), { builder: b, inputs: [x] });
    for (const platform of ['siracusa', 'generic']) {
      const out = join(dir, String(D), platform);
      const { manifest } = generateFirmware({ model: c.model, platform, out, sampleInputs: c.sample });
      assert.ok(readFileSync(join(out, 'c', 'network.c'), 'utf8').includes('fg_clz32((uint32_t)std - 1u)'), 'the reciprocal path');
      await checkEveryBuild(out, platform, manifest.outputs, [x], c.expected);
    }
  });
}

test.after(cleanup);
test.run();
