/**
 * With RunOptions.builtCode (the cost fit's AS runs) the AS path prices a layer's cold code at its compiled size where
 * the output directory's C is built and up to date (runtime/node/code-bytes.ts, emulator/assembly/code-bytes.ts), else
 * at the generator's estimate, as `gen run` always does: the sizes come from the rv32 image's layer functions (checked
 * against the toolchain's own nm), a stale build is not used, and the AS cycles of a one-layer network move by
 * CODE_BYTE x the difference.
 */
import { execFileSync } from 'node:child_process';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { platformByName } from '../../generator/platforms/index.js';
import { builtCodeBytes } from '../../runtime/node/code-bytes.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('code-bytes');

/** Bytes of each layer's tile loop and first kernel function by nm (the cross toolchain's, not firmgen's ELF reader). */
function nmLayerBytes(elf: string): Map<number, number> {
  const bytes = new Map<number, number>();
  for (const line of execFileSync('riscv64-unknown-elf-nm', ['-S', elf], { encoding: 'utf8' }).split('\n')) {
    const [, size, type, name] = line.split(' ');
    const m = /^L_(\d+)_[A-Za-z0-9]+(_t(\d+))?/.exec(name ?? '');
    if (!m || !/^[tT]$/.test(type) || (m[3] !== undefined && m[3] !== '0')) continue;
    bytes.set(Number(m[1]), (bytes.get(Number(m[1])) ?? 0) + parseInt(size, 16));
  }
  return bytes;
}

test('builtCode: a built output directory\'s layers priced at the ELF\'s sizes; before the build, after a C change and by default, the estimate', async () => {
  const f = integerFolders().find((x) => x.name === 'Kernels/Integer/MaxPool/Regular_2D')!;
  const out = join(dir, 'maxpool');
  const g = generateFirmware({ model: f.model, platform: 'siracusa', out, sampleInputs: join(f.dir, 'inputs.npz') });
  const inputs = arrays(join(f.dir, 'inputs.npz'));
  assert.is(builtCodeBytes(out), undefined, 'nothing built yet');
  const estimated = await runFirmware(out, inputs, { builtCode: true });
  assert.is(estimated.codeBytesFrom, undefined);
  await runIss(out, inputs);
  const built = builtCodeBytes(out);
  assert.ok(built, 'the ISS run built the rv32 image');
  assert.equal(built.bytes, nmLayerBytes(built.elf));
  const layer = g.manifest.layers.find((l) => l.code)!;
  const compiled = built.bytes.get(layer.id)!;
  assert.ok(compiled > 0 && compiled !== layer.code!.bytes, `compiled ${compiled}, estimated ${layer.code!.bytes}`);
  const priced = await runFirmware(out, inputs, { builtCode: true });
  assert.is(priced.codeBytesFrom, built.elf);
  // One layer: its critical core pays its code once (CODE_BYTE a byte), the rest of the run alike.
  const perByte = platformByName('siracusa').costs.CODE_BYTE;
  const moved = priced.cycles - estimated.cycles;
  assert.ok(Math.abs(moved - perByte * (compiled - layer.code!.bytes)) <= 2, `moved ${moved} for ${compiled - layer.code!.bytes} bytes at ${perByte}`);
  const plain = await runFirmware(out, inputs);
  assert.ok(plain.codeBytesFrom === undefined && plain.cycles === estimated.cycles, 'by default the estimate, built or not');
  // A C source newer than the image: the build is stale, the estimate stands.
  const later = new Date(Date.now() + 5000);
  utimesSync(join(out, 'c', 'network.c'), later, later);
  assert.is(builtCodeBytes(out), undefined);
  assert.is((await runFirmware(out, inputs, { builtCode: true })).cycles, estimated.cycles);
});

test.after(cleanup);
test.run();
