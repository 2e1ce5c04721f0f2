import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { npuJobCycles } from '../../generator/platforms/siracusa/npu/cost.js';
import type { NpuMode } from '../../generator/platforms/siracusa/npu/weights.js';
import { documentedCycles, outShape, type ConvSpec } from '../emulator/neureka-driver.js';
import { Rng } from '../helpers/random.js';

/*
 * The generator's NPU cycle figure (engine selection, tile search) equals the documented timing formula, which
 * test/emulator/neureka-hal.test.ts holds equal to the emulator's job length: choices are made on the model the
 * emulator charges.
 */
test('generator estimate = documented N-EUREKA timing on random jobs', () => {
  const rng = new Rng(11);
  for (let i = 0; i < 300; i++) {
    const mode = rng.pick<NpuMode>(['1x1', '3x3', '3x3dw']);
    const k = mode === '1x1' ? 1 : 3;
    const pad: [number, number, number, number] = mode === '1x1' ? [0, 0, 0, 0] : [rng.int(0, 1), rng.int(0, 1), rng.int(0, 1), rng.int(0, 1)];
    const cout = rng.int(1, 90);
    const spec: ConvSpec = {
      mode, bits: rng.int(2, 8), cin: mode === '3x3dw' ? cout : rng.int(1, 90), cout,
      h: rng.int(k, 20), w: rng.int(k, 20), pad, signedIn: true, x: [], weight: () => 0,
      ...(rng.next() < 0.5 ? { norm: { scale: [], scale32: rng.next() < 0.5, shift: 0, relu: false } } : {}),
      ...(rng.next() < 0.5 ? { wmem: 0x40_0000 } : {}),
    };
    const { ho, wo } = outShape(spec);
    const got = npuJobCycles({
      mode, bits: spec.bits, signedInput: true, wmem: spec.wmem !== undefined, ho, wo, cin: spec.cin, cout,
      pads: { top: pad[0], right: pad[1], bottom: pad[2], left: pad[3] },
      inPixel: spec.cin, inRow: spec.cin * spec.w, outPixel: cout, outRow: cout * wo,
      stage: { normQuant: spec.norm !== undefined, scale32: spec.norm?.scale32 ?? false, bias: false, relu: false, shift: 0 },
    });
    assert.is(got, documentedCycles(spec), `${mode} ${spec.bits}-bit ${spec.cin}->${cout} ${ho}x${wo}`);
  }
});

test.run();
