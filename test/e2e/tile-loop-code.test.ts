/**
 * A tiled layer's code is fetched where the C runs it (runtime/as/cluster.ts layer_code): the tile loop's part before
 * the kernel by core 0 before tile 0's transfers start, the kernel's by every core at its share, the loop's part after
 * the kernel by core 0 at the first write-back. The parts are estimated from the C's bytes (backend/emit.ts): checked
 * here against gcc's own split where it keeps the kernel in a function of its own (a conv's L_<id>_Conv and
 * L_<id>_Conv_t0 in the rv32 image), and the AS's charges against the parts.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateFirmware } from '../../generator/pipeline.js';
import { COST_CLASSES } from '../../generator/platforms/types.js';
import { builtCodeBytes } from '../../runtime/node/code-bytes.js';
import { runIss } from '../../runtime/node/iss-run.js';
import { runFirmware } from '../../runtime/node/run.js';
import { arrays, integerFolders } from '../helpers/deeploy.js';
import { workDir } from '../helpers/kernel-check.js';

const { dir, cleanup } = workDir('tile-loop-code');

/** Sizes of the image's functions by the cross toolchain's nm. */
function nmSizes(elf: string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const line of execFileSync('riscv64-unknown-elf-nm', ['-S', elf], { encoding: 'utf8' }).split('\n')) {
    const [, size, type, name] = line.split(' ');
    if (name && /^[tT]$/.test(type)) sizes.set(name.replace(/\..*$/, ''), parseInt(size, 16));
  }
  return sizes;
}

for (const name of ['Kernels/Integer/Conv/Regular_2D_RQ', 'Kernels/Integer/Conv/PW_2D_RQ/Regular_RQ']) {
  test(`${name} on siracusa: the tile loop's share of the code, and who pays for each part`, async () => {
    const f = integerFolders().find((x) => x.name === name)!;
    const out = join(dir, name.replace(/\W/g, '_'));
    const g = generateFirmware({ model: f.model, platform: 'siracusa', out, sampleInputs: join(f.dir, 'inputs.npz') });
    const layer = g.manifest.layers.find((l) => l.code?.loop);
    assert.ok(layer, 'a tiled layer with its loop\'s parts');
    const { before, after } = layer.code!.loop!;
    assert.ok(before > 0 && after > 0 && before + after < 256, `parts ${before} + ${after} of 256`);
    const inputs = arrays(join(f.dir, 'inputs.npz')).slice(0, g.manifest.inputs.length);
    await runIss(out, inputs);
    const built = builtCodeBytes(out)!;
    const sizes = nmSizes(built.elf);
    const loopFn = [...sizes.keys()].find((k) => new RegExp(`^L_${layer.id}_[A-Za-z0-9]+$`).test(k))!;
    const kernelFn = `${loopFn}_t0`;
    assert.ok(sizes.has(kernelFn), `gcc kept ${kernelFn} apart`);
    // gcc's split: the loop's function over both. The estimate from the C's bytes is an ASSUMPTION (emit.ts): within
    // a factor of 1.5 of it.
    const measured = sizes.get(loopFn)! / (sizes.get(loopFn)! + sizes.get(kernelFn)!);
    const estimated = (before + after) / 256;
    assert.ok(estimated > measured / 1.5 && estimated < measured * 1.5, `loop share estimated ${estimated.toFixed(3)}, built ${measured.toFixed(3)}`);
    // The AS charges the whole code once on core 0 and the kernel's part on each other core.
    const r = await runFirmware(out, inputs, { builtCode: true });
    const bytes = built.bytes.get(layer.id)!;
    const cores = r.coreCycles.length;
    const loop = Math.floor((bytes * before) / 256) + Math.floor((bytes * after) / 256);
    const codeUnits = r.units[COST_CLASSES.indexOf('CODE_BYTE')];
    const layers = g.manifest.layers.filter((l) => l.code).length;
    if (layers === 1) assert.is(codeUnits, cores * (bytes - loop) + loop);
    else assert.ok(codeUnits < cores * bytes, `${codeUnits} units, under ${cores} x ${bytes}`);
  });
}

test.after(cleanup);
test.run();
