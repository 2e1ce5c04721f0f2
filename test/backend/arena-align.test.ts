import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { DEEPLOY } from '../helpers/deeploy.js';

/*
 * The arena's declaration in network.h states the alignment its definition in network_data.c gives it. Without it gcc,
 * compiling a layer that reads an int32_t at a constant offset of the arena (a tiled layer's table: its count and its
 * records' offsets), takes the array's declared alignment of one byte and reads each word as four byte loads; on a
 * Siracusa cluster core that is four L2 accesses of ~20 cycles for one (measured on the ISS: ~120 cycles per tiled
 * layer on core 0's path, DS-CNN's classifier 1,383 -> 1,252).
 */
const work = mkdtempSync(join(tmpdir(), 'firmgen-arena-align-'));
const alignOf = (text: string, decl: RegExp): number => {
  const m = decl.exec(text);
  assert.ok(m, `no ${decl} in the C`);
  return Number(m![1]);
};

for (const platform of ['siracusa', 'generic']) {
  test(`${platform}: network.h declares fg_arena (and fg_l1) with the alignment network_data.c defines them with`, () => {
    const out = join(work, platform);
    generateFirmware({ model: join(DEEPLOY, 'Kernels/Integer/Add/Regular_RQ/network.onnx'), platform, out });
    const h = readFileSync(join(out, 'c/network.h'), 'utf8');
    const data = readFileSync(join(out, 'c/network_data.c'), 'utf8');
    const arena = /uint8_t fg_arena\[NETWORK_ARENA_SIZE\] __attribute__\(\(aligned\((\d+)\)\)\)/;
    assert.is(alignOf(h, arena), alignOf(data, arena));
    assert.ok(alignOf(h, arena) >= 4, 'a word of the arena is a word load');
    if (platform === 'siracusa') {
      const l1 = /uint8_t fg_l1\[NETWORK_L1_SIZE\] __attribute__\(\(aligned\((\d+)\)\)\)/;
      assert.is(alignOf(h, l1), alignOf(data, l1));
    }
  });
}

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
