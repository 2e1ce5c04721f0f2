/**
 * The asc build runs in a worker thread (runtime/node/asc-thread.ts): while a firmware compiles, the main thread's
 * event loop keeps running, which is what lets the CLI's spinner animate. Measured with a 10 ms timer during an
 * uncached build (a build takes hundreds of milliseconds; in-process it blocked the loop and the timer barely fired).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFirmware } from '../../runtime/node/asc-build.js';
import { makeFirmware } from '../emulator/fixture.js';

test('the event loop keeps turning during an uncached asc build', async () => {
  const saved = process.env.FIRMGEN_CACHE;
  const cache = mkdtempSync(join(tmpdir(), 'firmgen-cache-'));
  process.env.FIRMGEN_CACHE = cache;
  try {
    const out = makeFirmware({ platform: 'generic', network: 'import * as chip from "./hal/chip";\nchip.layer_begin(0);\nchip.layer_end(0);\n', tensors: [] });
    let ticks = 0;
    let longest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      ticks++;
    }, 10);
    const t0 = performance.now();
    const b = await buildFirmware(join(out, 'as'));
    const ms = performance.now() - t0;
    clearInterval(timer);
    assert.is(b.cached, false);
    // The timer fires at least every 10 ms of the build's wall time, less a generous margin for a loaded machine;
    // a build on the main thread blocks it for the whole compile (hundreds of ms without a tick).
    assert.ok(ticks >= ms / 10 / 4, `${ticks} ticks in ${ms.toFixed(0)} ms`);
    assert.ok(longest < Math.max(150, ms / 3), `the longest gap between ticks was ${longest.toFixed(0)} ms of ${ms.toFixed(0)} ms`);
  } finally {
    if (saved === undefined) delete process.env.FIRMGEN_CACHE;
    else process.env.FIRMGEN_CACHE = saved;
    rmSync(cache, { recursive: true, force: true });
  }
});

test.run();
