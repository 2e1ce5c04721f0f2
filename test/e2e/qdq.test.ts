import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkQuantizedModel, type OrtDiff } from '../helpers/qdq-check.js';
import { integerOpsNet, qdqConvNet, qdqMatMulNet, qopNet, type QModel, type Variant } from '../helpers/qdq-models.js';
import { Rng } from '../helpers/random.js';

/*
 * Standard quantized ONNX (QDQ and QOperator) through `gen firmware`: the firmware equals the reference interpreter
 * of the lowered integer graph exactly (emulated on generic and tiled siracusa, host C on some), and the lowered
 * graph is within 1 LSB of onnxruntime on the original model (with and without ORT's graph optimisations, which
 * turn QDQ into QLinear kernels), on a fraction printed per case and bounded over all cases below.
 */

const work = mkdtempSync(join(tmpdir(), 'firmgen-qdq-'));
const all: OrtDiff = { total: 0, differ: 0, maxDiff: 0 };

const VARIANTS: Variant[] = [
  { act: 'uint8', zeroPoints: true, perChannel: true },
  { act: 'int8', zeroPoints: false, perChannel: false },
  { act: 'int8', zeroPoints: true, perChannel: false },
  { act: 'uint8', zeroPoints: false, perChannel: true },
];
const label = (v: Variant): string => `${v.act}, zero points ${v.zeroPoints ? 'non-zero' : '0'}, ${v.perChannel ? 'per-channel' : 'per-tensor'}`;

async function check(name: string, m: QModel, platforms: string[], hostC = false): Promise<void> {
  const d = await checkQuantizedModel(join(work, name.replace(/\W+/g, '_')), m, platforms, { hostC });
  console.log(`  ${name}: ${d.differ} of ${d.total} outputs differ from onnxruntime (${((100 * d.differ) / d.total).toFixed(2)} %), at most ${d.maxDiff} LSB`);
  assert.ok(d.maxDiff <= 1, `${name}: ${d.maxDiff} LSB from onnxruntime`);
  all.total += d.total;
  all.differ += d.differ;
  all.maxDiff = Math.max(all.maxDiff, d.maxDiff);
}

VARIANTS.forEach((v, i) => {
  test(`QDQ conv net (${label(v)}): generic, siracusa`, async () => {
    await check(`qdq conv ${i}`, qdqConvNet(new Rng(101 + i), v), ['generic', 'siracusa'], i === 0);
  });
  test(`QOperator net (${label(v)}): generic, siracusa`, async () => {
    await check(`qop ${i}`, qopNet(new Rng(201 + i), v, i === 0), ['generic', 'siracusa'], i === 1);
  });
  test(`QDQ matmul net (${label(v)}): generic`, async () => {
    await check(`qdq matmul ${i}`, qdqMatMulNet(new Rng(301 + i), v), ['generic']);
  });
});

test('MatMulInteger, ConvInteger (uint8 with a zero point, padded): generic, siracusa', async () => {
  await check('integer ops', integerOpsNet(new Rng(401)), ['generic', 'siracusa']);
});

test('over all cases: at most 1 LSB from onnxruntime on a bounded fraction', () => {
  console.log(`  all: ${all.differ} of ${all.total} differ (${((100 * all.differ) / all.total).toFixed(2)} %), at most ${all.maxDiff} LSB`);
  assert.ok(all.total > 0);
  assert.ok(all.maxDiff <= 1);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
