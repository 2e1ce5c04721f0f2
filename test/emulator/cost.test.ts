/** The cost tables the emulator charges are the ones docs/timing.md derives and docs/firmware-abi.md numbers. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmulator } from '../../runtime/node/emulator.js';
import { REPO_ROOT } from '../../runtime/node/paths.js';

const read = (...p: string[]): string => readFileSync(join(REPO_ROOT, ...p), 'utf8');

/** Class name -> id, from the HAL's runtime/as/cost.ts (the single definition). */
function classIds(): Map<string, number> {
  const ids = new Map<string, number>();
  for (const m of read('runtime', 'as', 'cost.ts').matchAll(/^export const (\w+): i32 = (\d+);$/gm)) {
    if (m[1] !== 'NUM_CLASSES') ids.set(m[1], Number(m[2]));
  }
  return ids;
}

test('class ids in the ABI table are the HAL constants', () => {
  const doc = new Map([...read('docs', 'firmware-abi.md').matchAll(/^\| (\d+) \| `(\w+)` \|/gm)].map((m) => [m[2], Number(m[1])]));
  assert.equal(doc, classIds());
});

/** `| CLASS[, CLASS...] | cycles |` rows of one `## <heading>` section of docs/timing.md. */
function documentedCosts(heading: string): Map<string, number> {
  const doc = read('docs', 'timing.md');
  const start = doc.indexOf(`## ${heading}`);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const costs = new Map<string, number>();
  for (const m of section.matchAll(/^\| ([A-Z_, ]+) \| ([\d.]+) \|/gm)) {
    for (const name of m[1].split(', ')) costs.set(name, Number(m[2]));
  }
  return costs;
}

for (const [platform, heading] of [['siracusa', 'Siracusa cluster core'], ['generic', 'Generic core']]) {
  test(`${platform}: every class costs what docs/timing.md says`, async () => {
    const emu = await createEmulator(platform);
    const documented = documentedCosts(heading);
    assert.equal([...documented.keys()].sort(), [...classIds().keys()].sort());
    for (const [name, id] of classIds()) assert.is(emu.cost_cycles(id), documented.get(name), name);
  });
}

test('fork, barrier and join overheads are the documented ones', async () => {
  const doc = read('docs', 'timing.md');
  for (const platform of ['siracusa', 'generic']) {
    const m = new RegExp(`^\\| ${platform} \\| (\\d+) \\| (\\d+) \\| (\\d+) \\|`, 'm').exec(doc);
    assert.ok(m, `no overhead row for ${platform}`);
    const emu = await createEmulator(platform);
    assert.equal([emu.fork_cycles(), emu.barrier_cycles(), emu.join_cycles()], [Number(m[1]), Number(m[2]), Number(m[3])]);
  }
});

test.run();
