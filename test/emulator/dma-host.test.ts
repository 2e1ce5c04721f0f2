/**
 * The C HAL's DMA on the host (runtime/c/common/dma_memcpy.c, with the host fork) against the emulator: the same scenarios as the AS fixture
 * (dma-fixture.ts) written with hal_dma_*, built with the host compiler, must move the same bytes. Where they must
 * differ is the point of the emulator: the host copies at issue, so a read before the wait already sees new data.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REPO_ROOT } from '../../runtime/node/paths.js';
import { run, X } from './dma-fixture.js';

const PROGRAM = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "firmgen_hal.h"

static uint8_t L1[4096], X[4096], Y[4096];

int main(int argc, char **argv) {
  const int mode = atoi(argv[1]);
  for (int i = 0; i < 4096; i++) X[i] = (uint8_t)((i * 7 + (i >> 8)) % 255 + 1);
  int ch = hal_dma_channel_alloc();
  if (mode == 0) {
    hal_dma_copy_1d(ch, L1, X, 1024, 1); hal_dma_wait(ch);
    hal_dma_copy_1d(ch, L1, Y, 1024, 0); hal_dma_wait(ch);
  } else if (mode == 1) {
    hal_dma_copy_2d(ch, L1, X + 4 * 64 + 8, 256, 64, 16, 1); hal_dma_wait(ch);
    hal_dma_copy_2d(ch, L1, Y + 4 * 64 + 8, 256, 64, 16, 0); hal_dma_wait(ch);
  } else if (mode == 2) {
    hal_dma_copy_2d_l1(ch, L1, X, 192, 32, 12, 1); hal_dma_wait(ch);
    hal_dma_copy_1d(ch, L1, Y, 512, 0); hal_dma_wait(ch);
  } else if (mode == 3) {
    hal_dma_copy_2d_both(ch, L1, X, 256, 64, 16, 32, 16, 1); hal_dma_wait(ch);
    hal_dma_copy_2d_both(ch, L1, Y, 512, 64, 32, 32, 32, 0); hal_dma_wait(ch);
  } else if (mode == 6) {
    memset(L1 + 256, 0x55, 64);
    hal_dma_copy_1d(ch, L1 + 256, X, 64, 1);
    memcpy(Y, L1 + 256, 64);
    hal_dma_wait(ch);
    memcpy(Y + 64, L1 + 256, 64);
  } else if (mode == 10) {
    hal_dma_copy_1d(ch, L1, X, 131072, 1);
  }
  hal_dma_channel_free(ch);
  fwrite(Y, 1, sizeof Y, stdout);
  return 0;
}
`;

let binary: string | undefined;
const dirs: string[] = [];
process.on('exit', () => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function host(mode: number): number[] {
  if (!binary) {
    const dir = mkdtempSync(join(tmpdir(), 'firmgen-dma-host-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'main.c'), PROGRAM);
    binary = join(dir, 'dma');
    const c = join(REPO_ROOT, 'runtime', 'c');
    execFileSync('cc', ['-O2', '-std=c11', '-Wall', '-Werror', '-I', join(c, 'include'), '-o', binary, join(dir, 'main.c'),
      join(c, 'host', 'hal_host.c'), join(c, 'common', 'dma_memcpy.c')]);
  }
  return [...execFileSync(binary, [String(mode)], { maxBuffer: 1 << 20 })];
}

test('1-D, 2-D external, 2-D L1 and 2-D both: the host HAL moves the bytes the emulator moves', async () => {
  for (const mode of [0, 1, 2, 3]) {
    assert.equal(host(mode), [...(await run(mode)).outputs[0].data], `mode ${mode}`);
  }
});

test('a read before the wait: stale in the emulator, already new on the host (which copies at issue)', async () => {
  const emulated = [...(await run(6)).outputs[0].data];
  const onHost = host(6);
  assert.equal(onHost.slice(0, 64), X.slice(0, 64));
  assert.equal(emulated.slice(0, 64), new Array(64).fill(0x55));
  assert.equal(onHost.slice(64, 128), emulated.slice(64, 128));
});

test('the host rejects a copy larger than one mchan command, as the emulator does', () => {
  try {
    host(10);
    assert.unreachable('131072 bytes accepted');
  } catch (e) {
    assert.match(String((e as { stderr?: Buffer }).stderr), /hal_dma: a copy moves 1 to 131071 bytes \(channel 0, 131072\)/);
  }
});

test.run();
