/**
 * The SpiNNaker2 C firmware compiles for the PE's core (ARM Cortex-M4F, arm-none-eabi-gcc) without warnings, and its
 * code fits the 32 KiB of SRAM the image format reserves for code, stack and static data (layout.ts SRAM.reserved)
 * with room for a board HAL. The cross compiler (Debian package gcc-arm-none-eabi) is installed by .ci/run; without
 * it the test fails and says what to install, never passes unchecked.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SRAM } from '../../generator/platforms/spinnaker2/layout.js';
import { TEMPLATES, RUNTIME } from '../../generator/backend/paths.js';
import { workDir } from '../helpers/kernel-check.js';

const CC = 'arm-none-eabi-gcc';
const SOURCES = ['scheduler.c', 'worker.c', 'gemm.c', 'elementwise.c', 'rows.c', 'im2col.c', 'movement.c', 'main_board.c'];

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('the firmware compiles for the Cortex-M4F and its code is a fraction of the 32 KiB reserved for it', () => {
  assert.ok(has(CC), `${CC} is not installed: apt-get install gcc-arm-none-eabi (.ci/run does)`);
  const { dir, cleanup } = workDir('s2-arm');
  try {
    const src = join(TEMPLATES, 'spinnaker2', 'c');
    const objects = SOURCES.map((f) => {
      const o = join(dir, `${f}.o`);
      const out = execFileSync(CC, ['-mcpu=cortex-m4', '-mthumb', '-mfloat-abi=hard', '-mfpu=fpv4-sp-d16', '-O2', '-std=c11',
        '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter', '-ffreestanding', `-I${src}`, `-I${join(RUNTIME, 'c', 'spinnaker2')}`,
        '-c', join(src, f), '-o', o], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      assert.is(out, '');
      return o;
    });
    const size = execFileSync('arm-none-eabi-size', objects, { encoding: 'utf8' });
    const text = size.trim().split('\n').slice(1).reduce((n, line) => n + Number(line.trim().split(/\s+/)[0]), 0);
    assert.ok(text > 0 && text < SRAM.reserved / 4, `${text} bytes of code`);
    console.log(`  firmware code: ${text} bytes for the Cortex-M4F`);
  } finally {
    cleanup();
  }
});

test.run();
