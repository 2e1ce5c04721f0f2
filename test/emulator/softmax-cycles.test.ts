import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ndarray } from '../../generator/ir/ndarray.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

/*
 * iSoftmax of 16-bit scores (a decoder's attention) on Siracusa's 8 cores: the AS charges what the C does per entry by
 * the words its bounds need (SOFTMAX_RECIP, SOFTMAX_SUM_WIDE, SOFTMAX_WIDE). Before those classes the AS charged
 * every iSoftmax as one of bytes: the tiny-llama prompt pass's softmaxes came out at 1.69x (64-bit sum) and 2.83x
 * (64-bit chain) of the AS on the ISS. Each width's C is checked (the words the generated C declares), the outputs
 * exact, and the AS within 10 % of the ISS cycles; the coefficients of a tiny-llama layer or those of scores on a 4x
 * finer scale (log2, B x 4, C x 16), on a shape and scores other than the calibration's. The tiny-llama's first two
 * layers have log2 = 1024, whose z the C takes by gcc's division by the constant (shifts and a sign fix): before
 * SOFTMAX_ZDIV (2026-12-04) the AS charged it as an 8-bit input's, 1.17 of it on the ISS in the decoder step. A clipped entry's
 * (p + B)^2 takes the chain to 64 bits at +-32767, but its e (shifted by 31) leaves the sum in 32; the finer scale's e
 * takes the sum to 64 bits.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-softmax-cycles-'));

/** Per case: the scores' range, the coefficients (log2, B, C; A = 1), and what the C must declare and how it takes z. */
const CASES = [
  { amp: 2000, log2: 525, B: 1024, C: 549684, xt: 'int32_t', sum: 'int32_t', z: 'reciprocal' },
  { amp: 32767, log2: 525, B: 1024, C: 549684, xt: 'int64_t', sum: 'int32_t', z: 'reciprocal' },
  { amp: 14000, log2: 4 * 525, B: 4 * 1024, C: 16 * 549684, xt: 'int32_t', sum: 'int64_t', z: 'reciprocal' },
  // The tiny-llama's first layers' coefficients: log2 a power of two, z by gcc's shifts (SOFTMAX_ZDIV).
  { amp: 2500, log2: 1024, B: 1999, C: 2094201, xt: 'int32_t', sum: 'int32_t', z: 'shifts' },
] as const;
for (const { amp, log2, B, C, xt, sum, z } of CASES) {
  test(`16-bit scores within +-${amp}, log2 ${log2}: ${xt} chain, ${sum} sum, z by ${z}; outputs exact, AS within 10 % of the ISS on 8 cores`, async () => {
    const shape = [1, 12, 40];
    const b = new OnnxBuilder('softmax16').input('x', 'int16', shape);
    b.node('iSoftmax', ['x'], ['y'], { coeffA: 1, coeffB: B, coeffC: C, log2, n_levels: 256 });
    b.output('y', 'uint8', shape);
    const rng = new Rng(amp);
    const x = ndarray('int16', shape, rng.ints(12 * 40, -amp, amp));
    const dir = join(work, `${amp}-${log2}`);
    const { model, sample } = writeCase(dir, { builder: b, inputs: [x] });
    generateFirmware({ model, platform: 'siracusa', out: join(dir, 'fw'), sampleInputs: sample });
    const c = readFileSync(join(dir, 'fw', 'c', 'network.c'), 'utf8');
    assert.is(/const (int\d+_t) xt/.exec(c)?.[1], xt);
    assert.is(/(int\d+_t) sum = 0/.exec(c)?.[1], sum);
    assert.is(/\(\(uint64_t\)\(uint32_t\)-xt \* \d+u\) >> 32/.test(c), z === 'reciprocal', 'z by the reciprocal');
    assert.is(c.includes(`(int32_t)-xt / ${log2}`), z === 'shifts', 'z by a division by the constant');
    const as = await runFirmware(join(dir, 'fw'), [x]);
    const iss = await runIss(join(dir, 'fw'), [x]);
    assert.ok(Buffer.from(as.outputs[0].data.buffer).equals(Buffer.from(iss.outputs[0].data.buffer)), 'AS and ISS outputs differ');
    const ratio = as.cycles / iss.networkCycles;
    assert.ok(ratio > 1 / 1.1 && ratio < 1.1, `AS ${as.cycles} / ISS ${iss.networkCycles} = ${ratio.toFixed(3)}`);
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
