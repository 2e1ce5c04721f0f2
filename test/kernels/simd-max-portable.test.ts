/**
 * firmgen_simd.h's portable lane-wise maxima (fg_max4_s / fg_max4_u: word-at-a-time bit tricks, no branch), which the
 * host, qemu and plain rv32 builds of the 2x2 max pool use. Compiled with the host's C compiler and checked
 * exhaustively: every pair of byte values in every lane, the other lanes random, against the maximum of the two lanes
 * taken one at a time as int8 and as uint8 (the semantics of MaxPool on bytes).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../helpers/paths.js';

const PROGRAM = `#include <stdio.h>
#include "firmgen_simd.h"
int main(void) {
  unsigned bad = 0, checked = 0, seed = 1;
  for (int a = 0; a < 256; a++)
    for (int b = 0; b < 256; b++)
      for (int lane = 0; lane < 4; lane++) {
        seed = seed * 1103515245u + 12345u;
        uint32_t x = seed;
        seed = seed * 1103515245u + 12345u;
        uint32_t y = seed;
        x = (x & ~(0xffu << 8 * lane)) | ((uint32_t)a << 8 * lane);
        y = (y & ~(0xffu << 8 * lane)) | ((uint32_t)b << 8 * lane);
        const uint32_t ms = fg_max4_s(x, y), mu = fg_max4_u(x, y);
        for (int i = 0; i < 4; i++) {
          const int xs = (int8_t)(x >> 8 * i), ys = (int8_t)(y >> 8 * i);
          const int xu = (uint8_t)(x >> 8 * i), yu = (uint8_t)(y >> 8 * i);
          bad += (int8_t)(ms >> 8 * i) != (xs > ys ? xs : ys);
          bad += (uint8_t)(mu >> 8 * i) != (xu > yu ? xu : yu);
          checked += 2;
        }
      }
  printf("%u %u\\n", bad, checked);
  return 0;
}
`;

test('portable fg_max4_s / fg_max4_u equal the per-lane maximum for every pair of bytes in every lane', () => {
  const dir = mkdtempSync(join(tmpdir(), 'firmgen-simd-max-'));
  try {
    writeFileSync(join(dir, 'max.c'), PROGRAM);
    const bin = join(dir, 'max');
    execFileSync('cc', ['-O2', '-std=c11', '-I', join(repoRoot, 'runtime', 'c', 'include'), join(dir, 'max.c'), '-o', bin]);
    const [bad, checked] = execFileSync(bin, { encoding: 'utf8' }).trim().split(' ').map(Number);
    assert.is(checked, 256 * 256 * 4 * 4 * 2, 'every pair, lane and signedness checked');
    assert.is(bad, 0, `${bad} lanes differ from the maximum`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
