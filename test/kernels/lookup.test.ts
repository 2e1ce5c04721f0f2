/**
 * Tables read by 8-bit codes (Gather of 1-D data by run-time indices, kernels/gather.ts `lookup`; tiled on Siracusa by
 * midend/tiling/specs.ts tableSpec): int8 codes wrapped into 256 and into a larger table, uint8 codes, a table the
 * path does not take (int8 codes into 100 entries: the general path clamps). Exact against the reference interpreter
 * emulated (generic; Siracusa tiled into several tiles), as host C and as the rv32 C on the ISS; and the C on the
 * ISS is faster tiled than on L2, where every code, entry and store pays L2's latency, which the AS charges too (within
 * 10 % of the ISS there).
 */
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DType } from '../../generator/ir/dtype.js';
import { generateFirmware } from '../../generator/pipeline.js';
import { compareOutputs } from '../../runtime/node/compare.js';
import { runHostC } from '../../runtime/node/host-c.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { workDir, writeCase } from '../helpers/kernel-check.js';
import { OnnxBuilder } from '../helpers/onnx-builder.js';
import { Rng } from '../helpers/random.js';

const cases: { codes: 'int8' | 'uint8'; entries: number; table: DType; lookup: boolean }[] = [
  { codes: 'int8', entries: 256, table: 'int8', lookup: true },
  { codes: 'uint8', entries: 256, table: 'uint8', lookup: true },
  { codes: 'int8', entries: 300, table: 'int16', lookup: true },
  { codes: 'int8', entries: 100, table: 'int8', lookup: false },
];
// 1,920 codes: tiled at 1,400 bytes of L1 in 15 tiles. (At 960 codes, 8 tiles, the tile loop's walkers out of line,
// firmgen_tiles.h, cost ~57 cycles a tile more than inlined, ISS 9,456 tiled against 9,345 on L2: a lookup so small
// gains nothing from its tiles; here 15,066 against 17,489.)
const SHAPE = [1, 48, 40];

for (const c of cases) {
  test(`${c.codes} codes into ${c.entries} ${c.table} entries (${c.lookup ? 'lookup' : 'clamped'} path): exact emulated, host C and on the ISS`, async () => {
    const { dir, cleanup } = workDir('lookup');
    try {
      const rng = new Rng(c.entries + SHAPE[2]);
      const n = SHAPE.reduce((a, b) => a * b, 1);
      const [lo, hi] = c.codes === 'int8' ? [-128, 127] : [0, 255];
      // Codes the reference accepts: within [-entries, entries) (an index outside the axis has no meaning).
      const codes = rng.ints(n, Math.max(lo, -c.entries), Math.min(hi, c.entries - 1));
      const [tlo, thi] = c.table === 'int16' ? [-30000, 30000] : c.table === 'uint8' ? [0, 255] : [-128, 127];
      const b = new OnnxBuilder('lookup').input('x', c.codes, SHAPE);
      b.initializer('table', c.table, [c.entries], rng.ints(c.entries, tlo, thi));
      b.node('Gather', ['table', 'x'], ['y'], { axis: 0 }).output('y', c.table);
      const x = { shape: SHAPE, dtype: c.codes, data: Float64Array.from(codes) };
      const { model, sample, expected } = writeCase(dir, { builder: b, inputs: [x] });
      for (const platform of ['generic', 'siracusa']) {
        const out = join(dir, platform);
        const g = generateFirmware({ model, platform, out, sampleInputs: sample, ...(platform === 'siracusa' ? { l1: 1400 } : {}) });
        const layer = g.layers.find((l) => l.node.op === 'Gather')!;
        assert.is(layer.kernel === 'alias' ? 'alias' : layer.kernel.name, 'gather');
        const source = (await import('node:fs')).readFileSync(join(out, 'c', 'network.c'), 'utf8');
        assert.is(source.includes('A table read by 8-bit codes'), c.lookup, 'the lookup path where every code indexes the table');
        if (platform === 'siracusa') {
          const tiles = g.manifest.layers.find((l) => l.op === 'Gather')!.tiling?.tiles ?? 0;
          assert.ok(tiles > 1, `tiled into ${tiles} tiles`);
        }
        const emu = compareOutputs(g.manifest.outputs, (await runFirmware(out, [x])).outputs, expected);
        assert.is(emu.errors, 0, `${platform} emulated: ${emu.details.join('; ')}`);
        const host = compareOutputs(g.manifest.outputs, runHostC(out, [x]), expected);
        assert.is(host.errors, 0, `${platform} host C: ${host.details.join('; ')}`);
        const iss = await runIss(out, [x]);
        const onIss = compareOutputs(g.manifest.outputs, iss.outputs, expected);
        assert.is(onIss.errors, 0, `${platform} on the ISS: ${onIss.details.join('; ')}`);
        if (platform === 'siracusa' && c.lookup) {
          generateFirmware({ model, platform, out: join(dir, 'l2'), sampleInputs: sample, untiled: true });
          const onL2 = await runIss(join(dir, 'l2'), [x]);
          assert.ok(iss.networkCycles < onL2.networkCycles, `tiled ${iss.networkCycles} < on L2 ${onL2.networkCycles} ISS cycles`);
          // The AS charges the L2 run its codes', entries' and outputs' L2 latency (mem_latency), as the ISS's loads
          // wait for it: without it the AS priced this run at a fifth of the ISS's cycles.
          const asOnL2 = (await runFirmware(join(dir, 'l2'), [x])).cycles;
          assert.ok(asOnL2 > onL2.networkCycles / 1.1 && asOnL2 < onL2.networkCycles * 1.1, `on L2: AS ${asOnL2}, ISS ${onL2.networkCycles}`);
        }
      }
    } finally {
      cleanup();
    }
  });
}

test.run();
