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
 * exact, and the AS within 10 % of the ISS cycles; the coefficients of a tiny-llama layer (k = 1) or those of scores on a
 * 4x finer scale (k = 4: log2, B x 4, C x 16), on a shape and scores other than the calibration's. A clipped entry's
 * (p + B)^2 takes the chain to 64 bits at +-32767, but its e (shifted by 31) leaves the sum in 32; the finer scale's e
 * takes the sum to 64 bits.
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-softmax-cycles-'));

const CASES = [[2000, 1, 'int32_t', 'int32_t'], [32767, 1, 'int64_t', 'int32_t'], [14000, 4, 'int32_t', 'int64_t']] as const;
for (const [amp, k, xt, sum] of CASES) {
  test(`16-bit scores within +-${amp}, scale ${k}: ${xt} chain, ${sum} sum; outputs exact, AS within 10 % of the ISS on 8 cores`, async () => {
    const shape = [1, 12, 40];
    const b = new OnnxBuilder('softmax16').input('x', 'int16', shape);
    b.node('iSoftmax', ['x'], ['y'], { coeffA: 1, coeffB: 1024 * k, coeffC: 549684 * k * k, log2: 525 * k, n_levels: 256 });
    b.output('y', 'uint8', shape);
    const rng = new Rng(amp);
    const x = ndarray('int16', shape, rng.ints(12 * 40, -amp, amp));
    const dir = join(work, `${amp}-${k}`);
    const { model, sample } = writeCase(dir, { builder: b, inputs: [x] });
    generateFirmware({ model, platform: 'siracusa', out: join(dir, 'fw'), sampleInputs: sample });
    const c = readFileSync(join(dir, 'fw', 'c', 'network.c'), 'utf8');
    assert.is(/const (int\d+_t) xt/.exec(c)?.[1], xt);
    assert.is(/(int\d+_t) sum = 0/.exec(c)?.[1], sum);
    const as = await runFirmware(join(dir, 'fw'), [x]);
    const iss = await runIss(join(dir, 'fw'), [x]);
    assert.ok(Buffer.from(as.outputs[0].data.buffer).equals(Buffer.from(iss.outputs[0].data.buffer)), 'AS and ISS outputs differ');
    const ratio = as.cycles / iss.networkCycles;
    assert.ok(ratio > 1 / 1.1 && ratio < 1.1, `AS ${as.cycles} / ISS ${iss.networkCycles} = ${ratio.toFixed(3)}`);
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
