import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileModel } from '../../generator/pipeline.js';
import { PLATFORMS } from '../../generator/platforms/index.js';
import { configurePlatform } from '../../generator/platforms/options.js';
import type { Platform } from '../../generator/platforms/types.js';
import { gen } from '../helpers/cli.js';
import { genError } from '../helpers/gen-error.js';
import { DEEPLOY, REPO } from '../helpers/deeploy.js';

/**
 * The platform seam for options: each platform declares its command-line options and parses them itself; the CLI
 * registers them from that data and the pipeline hands them over, so neither branches on a platform's name.
 */
const model = join(DEEPLOY, 'Kernels', 'Integer', 'Add', 'Regular', 'network.onnx');


test('the pipeline and the CLI name no platform in their logic', () => {
  const names = Object.keys(PLATFORMS);
  const files = [join(REPO, 'generator', 'pipeline.ts'), join(REPO, 'generator', 'compile.ts'), ...readdirSync(join(REPO, 'generator', 'cli')).filter((f) => f !== 'run.ts').map((f) => join(REPO, 'generator', 'cli', f))];
  for (const f of files) {
    const code = readFileSync(f, 'utf8');
    for (const n of names) {
      assert.not.match(code, new RegExp(`[!=]==?\\s*'${n}'|'${n}'\\s*[!=]==?`), `${f} compares with '${n}'`);
      assert.not.match(code, new RegExp(`platforms/${n}/`), `${f} imports from platforms/${n}`);
    }
  }
});

test("an option is parsed by the platform that declares it, from text or numbers", () => {
  const fromText = compileModel({ model, platform: 'siracusa', cores: '3' });
  const fromNumber = compileModel({ model, platform: 'siracusa', cores: 3 });
  assert.is(fromText.platform.cores, 3);
  assert.is(fromNumber.platform.cores, 3);
  assert.is(compileModel({ model, platform: 'spinnaker2', pes: '5' }).platform.cores, 5);
});

test("another platform's option, or a value out of range, is a named error", () => {
  assert.match(genError(() => compileModel({ model, platform: 'generic', pes: 5 })), /^--pes applies to spinnaker2, not to generic$/);
  assert.match(genError(() => compileModel({ model, platform: 'spinnaker2', engines: 'npu' })), /^--engines applies to siracusa, not to spinnaker2$/);
  assert.match(genError(() => compileModel({ model, platform: 'siracusa', cores: 9 })), /--cores 9: siracusa has 1\.\.8 cluster cores/);
  assert.match(genError(() => compileModel({ model, platform: 'siracusa', cores: '2x' })), /--cores 2x/);
  assert.match(genError(() => compileModel({ model, platform: 'siracusa', engines: 'gpu' })), /--engines takes cluster, cluster\+npu, npu, not 'gpu'/);
  assert.match(genError(() => compileModel({ model, platform: 'spinnaker2', pes: 1 })), /--pes 1: SpiNNaker2 has 2 to 152 PEs/);
});

test('a new platform brings its options as data: the seam configures it and refuses them elsewhere', () => {
  const chip: Platform = {
    ...PLATFORMS.generic, name: 'toychip',
    options: [{ flag: '--lanes <n>', key: 'lanes', help: 'vector lanes' }],
    configure: (self, given) => ({ ...self, cores: Number(given.lanes ?? 1) }),
  };
  const all = [...Object.values(PLATFORMS), chip];
  assert.is(configurePlatform(chip, { lanes: '4', untiled: true }, { untiled: true }, all).cores, 4);
  assert.is(configurePlatform(chip, {}, { untiled: false }, all).cores, 1);
  assert.match(genError(() => configurePlatform(PLATFORMS.siracusa, { lanes: 4 }, { untiled: false }, all)), /--lanes applies to toychip, not to siracusa/);
});

test('gen firmware --help lists every platform option with the platforms that take it', () => {
  const help = gen('firmware', '--help').stdout;
  for (const p of Object.values(PLATFORMS)) {
    for (const o of p.options ?? []) assert.match(help.replace(/\s+/g, ' '), `${o.flag} ${p.name}:`);
  }
  const r = gen('firmware', '--platform', 'generic', model, '--cores', '2', '-o', join(REPO, 'out', 'never-written'));
  assert.is(r.code, 2);
  assert.match(r.stderr, /^error: --cores applies to siracusa, not to generic\n$/);
});

test.run();
