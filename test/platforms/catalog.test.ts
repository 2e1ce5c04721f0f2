import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOG, loadPlatform } from '../../generator/platforms/catalog.js';
import { PLATFORMS } from '../../generator/platforms/index.js';
import { REPO } from '../helpers/deeploy.js';

/**
 * The platform catalog (generator/platforms/catalog.ts) says what the command line needs of a platform before its
 * modules are loaded. It must say what the loaded platform says, and it must load nothing of any platform's backend.
 */

test('each description says what its loaded platform says', async () => {
  assert.equal(CATALOG.map((d) => d.name), Object.keys(PLATFORMS));
  for (const d of CATALOG) {
    const p = await d.load();
    assert.is(p, PLATFORMS[d.name], d.name);
    assert.equal(d.options, p.options ?? [], `${d.name} options`);
    assert.is(d.far, p.far !== undefined, `${d.name} far`);
    assert.is(d.forward, p.forward !== undefined, `${d.name} forward`);
  }
});

test('an unknown platform is a one-line input error naming the known ones', async () => {
  let message = '';
  await loadPlatform('nochip').catch((e: Error) => (message = e.message));
  assert.is(message, `unknown platform 'nochip' (known: ${Object.keys(PLATFORMS).join(', ')})`);
});

/** The compiled modules a module loads when it is imported (its static imports, transitively; import() not followed). */
function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const m of code.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'|^import\s+'(\.[^']+)'/gms)) {
      todo.push(resolve(dirname(file), m[1] ?? m[2]));
    }
  }
  return [...seen].map((f) => relative(join(REPO, 'dist', 'generator'), f));
}

test("the command line loads no platform's backend until one is asked for", () => {
  // gen --help loads main and every command's module; gen firmware --platform X adds X's platform.ts (import()).
  const loaded = ['main', 'firmware', 'forward', 'run', 'build', 'quantize'].flatMap((m) => staticClosure(join(REPO, 'dist', 'generator', 'cli', `${m}.js`)));
  // A platform's folder may give the CLI its description and the constants its help text quotes, nothing more; and
  // the reference interpreter's AnalogMatMul op (reference/ops/analog-matmul.ts) is BrainScaleS-2's chip model.
  const allowed = (f: string): boolean => f.endsWith('/description.js') || f === 'platforms/spinnaker2/timing.js' || f.startsWith('platforms/brainscales2/analog/');
  const backend = loaded.filter((f) => /^platforms\/[^/]+\//.test(f) && !allowed(f));
  assert.equal(backend, []);
});

test.run();
