/**
 * Gemmini timing numbers written twice, kept equal: the emulator's (emulator/assembly/chips/gemmini.ts) and the ones
 * the depthwise host-vs-array rule replays (generator/platforms/gemmini/dw-cost.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMULATOR_TIMING } from '../../generator/platforms/gemmini/dw-cost.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';

test('the depthwise rule replays the emulator\'s Gemmini timing', () => {
  const text = readFileSync(join(REPO_ROOT, 'emulator/assembly/chips/gemmini.ts'), 'utf8');
  for (const [name, value] of Object.entries(EMULATOR_TIMING)) {
    const m = new RegExp(`export const ${name}: \\w+ = (\\d+);`).exec(text);
    assert.ok(m, `${name} is not a plain number in the emulator's chips/gemmini.ts`);
    assert.is(Number(m![1]), value, name);
  }
});

test.run();
